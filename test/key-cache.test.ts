/**
 * The isolate's cache of authenticated key records (lib/keys.ts, AUTH_CACHE_MS): a stored key's record is
 * read from KV once per AUTH_CACHE_MS, a key revoked through revokeRecord stops at once, a revocation
 * written by another isolate stops it within AUTH_CACHE_MS, and unknown or revoked keys are never cached.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AUTH_CACHE_MS, createKey, hashKey, revokeRecord, type KeyRecord } from '../lib/keys.ts';
import { authenticate } from '../lib/auth.ts';
import { MemoryKv } from './support/fakes.ts';

const refused = async (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (err: { status?: number }) => err.status,
  );

describe('key record cache', () => {
  afterEach(() => vi.restoreAllMocks());

  it('reads a stored key once per AUTH_CACHE_MS', async () => {
    const kv = new MemoryKv();
    const { key } = await createKey(kv, { fundId: 'sample-fund' });
    const hash = await hashKey(key);
    for (let i = 0; i < 5; i++) expect(await authenticate(`Bearer ${key}`, { keys: kv })).toMatchObject({ kind: 'key' });
    expect(kv.gets.filter((g) => g === hash)).toHaveLength(1);
    const now = performance.now();
    vi.spyOn(performance, 'now').mockReturnValue(now + AUTH_CACHE_MS + 1);
    await authenticate(`Bearer ${key}`, { keys: kv });
    expect(kv.gets.filter((g) => g === hash)).toHaveLength(2);
  });

  it('stops a key revoked through revokeRecord at once, and one revoked elsewhere within AUTH_CACHE_MS', async () => {
    const kv = new MemoryKv();
    const a = await createKey(kv, { fundId: 'sample-fund' });
    await authenticate(`Bearer ${a.key}`, { keys: kv });
    await revokeRecord(kv, await hashKey(a.key), a.record);
    expect(await refused(authenticate(`Bearer ${a.key}`, { keys: kv }))).toBe(401);

    const b = await createKey(kv, { fundId: 'sample-fund' });
    await authenticate(`Bearer ${b.key}`, { keys: kv });
    // Another isolate's revocation: only KV changes.
    const revoked: KeyRecord = { ...b.record, revokedAt: new Date().toISOString() };
    kv.data.set(await hashKey(b.key), { value: JSON.stringify(revoked), metadata: revoked });
    expect(await refused(authenticate(`Bearer ${b.key}`, { keys: kv }))).toBe('accepted');
    const now = performance.now();
    vi.spyOn(performance, 'now').mockReturnValue(now + AUTH_CACHE_MS + 1);
    expect(await refused(authenticate(`Bearer ${b.key}`, { keys: kv }))).toBe(401);
  });

  it('never caches an unknown or revoked key', async () => {
    const kv = new MemoryKv();
    const { key, record } = await createKey(kv, { fundId: 'sample-fund' });
    const hash = await hashKey(key);
    const stored = kv.data.get(hash)!;
    kv.data.delete(hash);
    expect(await refused(authenticate(`Bearer ${key}`, { keys: kv }))).toBe(401);
    kv.data.set(hash, stored);
    expect(await refused(authenticate(`Bearer ${key}`, { keys: kv }))).toBe('accepted');
    const other = await createKey(kv, { fundId: 'sample-fund' });
    await revokeRecord(kv, await hashKey(other.key), other.record);
    expect(await refused(authenticate(`Bearer ${other.key}`, { keys: kv }))).toBe(401);
    expect(record.revokedAt).toBeNull();
  });
});
