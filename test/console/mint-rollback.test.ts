/**
 * A key mint that fails after the key was written (its atomic step, or the account's index) takes the key
 * back: nothing is left in API_KEYS that the account cannot list or revoke, and no reservation is left in
 * the account's atomic record (lib/console/accounts.ts `mintAccountKey`).
 */
import { describe, expect, it } from 'vitest';
import { createAccount, listAccountKeys, mintAccountKey } from '../../lib/console/accounts.ts';
import { FakeAtomicNamespace, MemoryKv } from '../support/fakes.ts';

const T0 = new Date('2026-11-20T12:00:00Z');

/** The atomic store failing: the Durable Object unreachable, or answering 500. */
class FailingAtomic extends FakeAtomicNamespace {
  readonly how: 'throws' | '500';
  constructor(how: 'throws' | '500') {
    super();
    this.how = how;
  }
  override get(_id: DurableObjectId): { fetch(input: string, init: RequestInit): Promise<Response> } {
    return {
      fetch: async () => {
        if (this.how === 'throws') throw new Error('Durable Object reset because its code was updated.');
        return new Response('{}', { status: 500 });
      },
    };
  }
}

describe('a mint whose atomic step fails', () => {
  it.each(['throws', '500'] as const)('(the atomic store %s) leaves no key in API_KEYS', async (how) => {
    const kv = new MemoryKv();
    const apiKeys = new MemoryKv();
    const account = await createAccount(kv, 'h', T0);
    await expect(mintAccountKey(kv, apiKeys, new FailingAtomic(how), account, { scope: 'calc', label: 'a', now: T0 })).rejects.toThrow();
    expect([...apiKeys.data.keys()]).toEqual([]);
    expect(await listAccountKeys(kv, apiKeys, account.accountId)).toEqual([]);
  });
});

describe('a mint whose index write fails', () => {
  it('leaves no key in API_KEYS and releases its reservation; the next mint works', async () => {
    const kv = new MemoryKv();
    const apiKeys = new MemoryKv();
    const atomic = new FakeAtomicNamespace();
    const account = await createAccount(kv, 'h', T0);
    kv.failPuts = true;
    await expect(mintAccountKey(kv, apiKeys, atomic, account, { scope: 'calc', label: 'a', now: T0 })).rejects.toThrow(/KV PUT failed/);
    expect([...apiKeys.data.keys()]).toEqual([]);
    const members = atomic.records.get(`account-keys:${account.accountId}`)?.data.get('members');
    expect(members).toEqual({});
    kv.failPuts = false;
    const { record } = await mintAccountKey(kv, apiKeys, atomic, account, { scope: 'calc', label: 'b', now: T0 });
    expect((await listAccountKeys(kv, apiKeys, account.accountId)).map((k) => k.keyId)).toEqual([record.keyId]);
    expect(apiKeys.data.size).toBe(1);
  });
});
