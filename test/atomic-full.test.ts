/**
 * A capped count seen full is refused without another Durable Object request (lib/atomic.ts `take`): a
 * client network past its daily cap of sign-ups or client registrations cannot spend the deployment's
 * Durable Object requests by asking again, while other counts are still asked.
 */
import { describe, expect, it } from 'vitest';
import { giveBack, take } from '../lib/atomic.ts';
import { FakeAtomicNamespace } from './support/fakes.ts';

const DAY = 86_400_000;

describe('a full count', () => {
  it('is refused from memory after the first refusal, takes and peeks alike; another count is still asked', async () => {
    const atomic = new FakeAtomicNamespace();
    const until = Date.now() + DAY;
    const name = `test-count:${Math.random()}`;
    for (let i = 0; i < 3; i++) expect((await take(atomic, name, 3, until)).ok).toBe(true);
    expect(await take(atomic, name, 3, until)).toEqual({ ok: false, count: 3 });
    const asked = atomic.calls.length;
    for (let i = 0; i < 50; i++) {
      expect((await take(atomic, name, 3, until)).ok).toBe(false);
      expect((await take(atomic, name, 3, until, true)).ok).toBe(false);
    }
    expect(atomic.calls.length).toBe(asked);
    const other = `test-count:${Math.random()}`;
    expect((await take(atomic, other, 3, until)).ok).toBe(true);
    expect(atomic.calls.length).toBe(asked + 1);
  });

  it('is asked again once one is given back, and once its time is up', async () => {
    const atomic = new FakeAtomicNamespace();
    const name = `test-count:${Math.random()}`;
    expect((await take(atomic, name, 1, Date.now() + DAY)).ok).toBe(true);
    expect((await take(atomic, name, 1, Date.now() + DAY)).ok).toBe(false);
    await giveBack(atomic, name);
    expect((await take(atomic, name, 1, Date.now() + DAY)).ok).toBe(true);
    const expired = `test-count:${Math.random()}`;
    expect((await take(atomic, expired, 1, Date.now() - 1)).ok).toBe(true);
    expect((await take(atomic, expired, 1, Date.now() - 1)).ok).toBe(false);
    const asked = atomic.calls.length;
    expect((await take(atomic, expired, 1, Date.now() - 1)).ok).toBe(false);
    expect(atomic.calls.length).toBe(asked + 1);
  });
});
