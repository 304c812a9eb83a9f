/**
 * The atomic records (lib/atomic.ts) through the real Durable Object class over an in-memory state (the
 * workerd tests run it as a Durable Object: test/e2e/security.test.ts): each operation's rule, its answers
 * under concurrent calls, and the records' self-deletion.
 */
import { describe, expect, it } from 'vitest';
import { claim, giveBack, release, reserve, settle, spend, take } from '../lib/atomic.ts';
import { FakeAtomicNamespace } from './support/fakes.ts';

const UNTIL = Date.UTC(2026, 10, 3);

describe('claim', () => {
  it('the first claimant wins, also among 50 at once; a winner claiming again is still the winner', async () => {
    const ns = new FakeAtomicNamespace();
    const winners = await Promise.all(Array.from({ length: 50 }, (_, i) => claim(ns, 'invitation:x', `acct_${i}`, UNTIL)));
    expect(new Set(winners).size).toBe(1);
    expect(winners[0]).toBe('acct_0');
    expect(await claim(ns, 'invitation:x', 'acct_0', UNTIL)).toBe('acct_0');
    expect(await claim(ns, 'invitation:y', 'acct_7', UNTIL)).toBe('acct_7');
  });
});

describe('take and giveBack', () => {
  it('admit exactly `limit` of 40 concurrent takes; a peek takes nothing; a give-back makes room for one', async () => {
    const ns = new FakeAtomicNamespace();
    const answers = await Promise.all(Array.from({ length: 40 }, () => take(ns, 'signups:n:d', 10, UNTIL)));
    expect(answers.filter((a) => a.ok)).toHaveLength(10);
    expect(answers.filter((a) => a.ok).map((a) => a.count)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(await take(ns, 'signups:n:d', 10, UNTIL, true)).toEqual({ ok: false, count: 10 });
    await giveBack(ns, 'signups:n:d');
    expect(await take(ns, 'signups:n:d', 10, UNTIL, true)).toEqual({ ok: true, count: 9 });
    expect(await take(ns, 'signups:n:d', 10, UNTIL, true)).toEqual({ ok: true, count: 9 });
    expect((await take(ns, 'signups:n:d', 10, UNTIL)).ok).toBe(true);
    expect((await take(ns, 'signups:n:d', 10, UNTIL)).ok).toBe(false);
  });
});

describe('reserve and release', () => {
  it('start from the seed, admit up to the limit under concurrency, and make room once released', async () => {
    const ns = new FakeAtomicNamespace();
    const seed = ['k0', 'k1', 'k2'];
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => reserve(ns, 'account-keys:a', `n${i}`, 20, { seed, now: 5 })));
    expect(answers.filter((a) => a.ok)).toHaveLength(17);
    const last = answers.at(-1)!;
    expect(Object.keys(last.members)).toHaveLength(20);
    expect(last.members.k0).toBe(0);
    expect(last.members.n0).toBe(5);
    // A seed is read only while the record was never written.
    expect((await reserve(ns, 'account-keys:a', 'n99', 20, { seed: [], now: 6 })).ok).toBe(false);
    // A member already in is admitted again (a retry).
    expect((await reserve(ns, 'account-keys:a', 'n0', 20, { now: 6 })).ok).toBe(true);
    await release(ns, 'account-keys:a', ['k0', 'k1']);
    const again = await Promise.all([1, 2, 3].map((i) => reserve(ns, 'account-keys:a', `m${i}`, 20, { now: 7 })));
    expect(again.map((a) => a.ok)).toEqual([true, true, false]);
  });
});

describe('spend and settle (refresh-token reuse)', () => {
  it('a token is fresh once; presenting it again revokes the record, and every token of it stays refused', async () => {
    const ns = new FakeAtomicNamespace();
    expect(await spend(ns, 'grant:u:g', 'rt1', UNTIL)).toBe('fresh');
    expect(await settle(ns, 'grant:u:g', 'rt1', true)).toBe(false);
    expect(await spend(ns, 'grant:u:g', 'rt2', UNTIL)).toBe('fresh');
    expect(await settle(ns, 'grant:u:g', 'rt2', true)).toBe(false);
    expect(await spend(ns, 'grant:u:g', 'rt1', UNTIL)).toBe('reused');
    expect(await spend(ns, 'grant:u:g', 'rt3', UNTIL)).toBe('revoked');
    expect(await spend(ns, 'grant:other:g', 'rt1', UNTIL)).toBe('fresh');
  });

  it('a token given back (its exchange failed) may be presented again', async () => {
    const ns = new FakeAtomicNamespace();
    expect(await spend(ns, 'grant:u:g', 'bad', UNTIL)).toBe('fresh');
    expect(await settle(ns, 'grant:u:g', 'bad', false)).toBe(false);
    expect(await spend(ns, 'grant:u:g', 'bad', UNTIL)).toBe('fresh');
  });

  it('of 20 concurrent presentations of one valid token one is fresh and the rest contested; its exchange succeeding revokes the record', async () => {
    const ns = new FakeAtomicNamespace();
    const states = await Promise.all(Array.from({ length: 20 }, () => spend(ns, 'grant:u:g', 'rt', UNTIL)));
    expect(states.filter((s) => s === 'fresh')).toHaveLength(1);
    expect(states.filter((s) => s === 'contested')).toHaveLength(19);
    expect(await settle(ns, 'grant:u:g', 'rt', true)).toBe(true);
    expect(await spend(ns, 'grant:u:g', 'other', UNTIL)).toBe('revoked');
  });

  it('two concurrent presentations of a token that is not valid (its exchange fails) revoke nothing', async () => {
    const ns = new FakeAtomicNamespace();
    expect(await Promise.all([spend(ns, 'grant:u:g', 'junk', UNTIL), spend(ns, 'grant:u:g', 'junk', UNTIL)])).toEqual([
      'fresh',
      'contested',
    ]);
    expect(await settle(ns, 'grant:u:g', 'junk', false)).toBe(false);
    expect(await spend(ns, 'grant:u:g', 'rt', UNTIL)).toBe('fresh');
    expect(await settle(ns, 'grant:u:g', 'rt', true)).toBe(false);
  });
});

describe('records that end', () => {
  it('are deleted by their alarm, at the latest time asked for', async () => {
    const ns = new FakeAtomicNamespace();
    await claim(ns, 'invitation:x', 'a', UNTIL);
    await spend(ns, 'grant:u:g', 't', UNTIL + 5);
    await spend(ns, 'grant:u:g', 'u', UNTIL + 1);
    expect(ns.alarms.get('invitation:x')).toBe(UNTIL);
    expect(ns.alarms.get('grant:u:g')).toBe(UNTIL + 5);
    await ns.records.get('grant:u:g')!.record.alarm();
    expect(ns.records.get('grant:u:g')!.data.size).toBe(0);
    expect(await spend(ns, 'grant:u:g', 't', UNTIL)).toBe('fresh');
  });
});
