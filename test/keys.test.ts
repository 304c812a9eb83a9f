/** API keys (docs/api.md#keys-and-scopes): format, hash-only storage, authentication outcomes, constant-time comparison. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { constantTimeEqual, createKey, DEMO_API_KEY, generateKey, hashKey, KEY_PATTERN, listKeys, revokeKey } from '../lib/keys.ts';
import { UnauthorizedError } from '../lib/errors.ts';
import { authenticate } from '../lib/auth.ts';
import { hex, sha256Hex } from '../lib/digest.ts';
import { MemoryKv } from './support/fakes.ts';

describe('key format', () => {
  it('mints svc_dk_ + 32 base62 characters, all distinct', () => {
    const keys = Array.from({ length: 200 }, generateKey);
    for (const k of keys) expect(k).toMatch(/^svc_dk_[0-9A-Za-z]{32}$/);
    expect(new Set(keys).size).toBe(200);
  });

  it('draws the random part from all 62 characters', () => {
    const seen = new Set(Array.from({ length: 300 }, () => generateKey().slice(7)).join(''));
    expect(seen.size).toBe(62);
  });

  it('the published demo key has the key shape', () => {
    expect(DEMO_API_KEY).toMatch(KEY_PATTERN);
  });

  it('hashes with SHA-256 (FIPS 180-4 test vector "abc")', async () => {
    expect(await hashKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('key store', () => {
  it('stores only the SHA-256 of the key, under the hash, with a record holding no secret', async () => {
    const kv = new MemoryKv();
    const { key, record } = await createKey(kv, {
      fundId: 'fund-1',
      label: 'analyst',
      dailyCalcLimit: 2000,
      now: new Date('2026-11-20T10:00:00Z'),
    });
    expect([...kv.data.keys()]).toEqual([await hashKey(key)]);
    const stored = kv.data.get(await hashKey(key))!;
    expect(stored.value).not.toContain(key);
    expect(stored.value).not.toContain(key.slice(12));
    expect(JSON.parse(stored.value)).toEqual(record);
    expect(stored.metadata).toEqual(record);
    expect(record).toEqual({
      keyId: expect.stringMatching(/^key_[0-9A-Za-z]{16}$/),
      prefix: key.slice(0, 12),
      scope: 'fund',
      fundId: 'fund-1',
      dailyCalcLimit: 2000,
      label: 'analyst',
      createdAt: '2026-11-20T10:00:00.000Z',
      revokedAt: null,
    });
  });

  it('defaults the calculator limit to 10,000', async () => {
    const { record } = await createKey(new MemoryKv(), { fundId: 'f' });
    expect(record.dailyCalcLimit).toBe(10_000);
  });

  it('lists and revokes by prefix or key id; refuses an unknown prefix', async () => {
    const kv = new MemoryKv();
    const a = await createKey(kv, { fundId: 'f' });
    const b = await createKey(kv, { fundId: 'f' });
    expect((await listKeys(kv)).map((r) => r.keyId).sort()).toEqual([a.record.keyId, b.record.keyId].sort());
    const revoked = await revokeKey(kv, a.record.prefix, new Date('2026-11-21T00:00:00Z'));
    expect(revoked.revokedAt).toBe('2026-11-21T00:00:00.000Z');
    await revokeKey(kv, b.record.keyId);
    expect((await listKeys(kv)).every((r) => r.revokedAt !== null)).toBe(true);
    await expect(revokeKey(kv, 'svc_dk_zzzzz')).rejects.toThrow(/No key/);
  });
});

describe('authenticate', () => {
  it('returns null when no header is sent', async () => {
    expect(await authenticate(undefined, { keys: new MemoryKv() })).toBeNull();
    expect(await authenticate('', { keys: new MemoryKv() })).toBeNull();
  });

  it('recognises the demo key and an active stored key', async () => {
    const kv = new MemoryKv();
    const { key, record } = await createKey(kv, { fundId: 'f' });
    expect(await authenticate(`Bearer ${DEMO_API_KEY}`, { keys: kv })).toEqual({ kind: 'demo' });
    expect(await authenticate(`bearer ${key}`, { keys: kv })).toEqual({ kind: 'key', record });
  });

  it('answers another scheme with a challenge that carries no error code (RFC 6750 §3.1)', async () => {
    const err = (await authenticate('Basic dXNlcjpwYXNz', { keys: new MemoryKv() }).catch((e: unknown) => e)) as UnauthorizedError;
    expect(err).toBeInstanceOf(UnauthorizedError);
    expect(err.headers['WWW-Authenticate']).toBe('Bearer realm="fund-data"');
  });

  it.each([
    ['Bearer', /Bearer/],
    ['Bearer not-a-key', /malformed/],
    [`Bearer svc_dk_${'a'.repeat(31)}`, /malformed/],
    [`Bearer svc_dk_${'a'.repeat(32)}`, /not valid/],
  ])('refuses %j with 401 invalid_token and without echoing it', async (header, message) => {
    const err = await authenticate(header, { keys: new MemoryKv() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnauthorizedError);
    const e = err as UnauthorizedError;
    expect(e.status).toBe(401);
    expect(e.detail).toMatch(message);
    expect(e.headers['WWW-Authenticate']).toBe('Bearer realm="fund-data", error="invalid_token"');
    expect(e.detail).not.toContain(header.split(' ')[1] ?? '\u0000');
  });

  it('refuses a revoked key with the same answer as an unknown one', async () => {
    const kv = new MemoryKv();
    const { key, record } = await createKey(kv, { fundId: 'f' });
    await revokeKey(kv, record.keyId);
    await expect(authenticate(`Bearer ${key}`, { keys: kv })).rejects.toMatchObject({ detail: 'The API key is not valid.' });
  });
});

describe('constantTimeEqual', () => {
  it('agrees with === on any pair of strings (property)', () => {
    fc.assert(fc.property(fc.string(), fc.string(), (a, b) => constantTimeEqual(a, b) === (a === b)));
    fc.assert(fc.property(fc.string(), (a) => constantTimeEqual(a, a)));
  });

  it("uses the runtime's crypto.subtle.timingSafeEqual where it exists (workerd), on equal-length inputs only", () => {
    const subtle = crypto.subtle as SubtleCrypto & { timingSafeEqual?: unknown };
    expect(subtle.timingSafeEqual).toBeUndefined(); // Node's webcrypto: the fallback above was tested
    const calls: [number, number][] = [];
    subtle.timingSafeEqual = (a: Uint8Array, b: Uint8Array) => {
      calls.push([a.length, b.length]);
      return a.every((x, i) => x === b[i]);
    };
    try {
      expect(constantTimeEqual('abcd', 'abcd')).toBe(true);
      expect(constantTimeEqual('abcd', 'abce')).toBe(false);
      expect(constantTimeEqual('abcd', 'abc')).toBe(false); // a length mismatch never reaches it (it would throw)
      expect(calls).toEqual([
        [4, 4],
        [4, 4],
      ]);
    } finally {
      Reflect.deleteProperty(subtle, 'timingSafeEqual');
    }
  });
});

describe('hex digests', () => {
  it('hex() writes two lower-case digits per byte, and sha256Hex matches a known vector', async () => {
    expect(hex(new Uint8Array([0, 10, 255]))).toBe('000aff');
    expect(await sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'); // FIPS 180-2, B.1
    expect(await hashKey('abc')).toBe(await sha256Hex('abc'));
  });
});
