/**
 * API keys (docs/api.md#keys-and-scopes): format, minting, the KV key store and verification of a presented
 * key (the `Authorization` header is read by lib/auth.ts, the one authentication step).
 *
 * A key is `svc_dk_` + 32 base62 characters from a CSPRNG (≈190 bits). Only SHA-256(key), hex-encoded, is
 * stored: it is the KV key name in `API_KEYS`, and the record (value and metadata) holds no secret. A key is
 * found by its hash, so lookup time depends only on the hash; the one comparison against a secret held in
 * code, the published demo key, is done in constant time over the digests.
 */
import { UnauthorizedError } from './errors.ts';

/** Prefix of every developer key. */
export const KEY_PREFIX = 'svc_dk_';
/** Shape of a key: the prefix and 32 base62 characters. */
export const KEY_PATTERN = /^svc_dk_[0-9A-Za-z]{32}$/;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * The published demo key (docs/api.md#keys-and-scopes). Scope `demo`: it reads only the bundled synthetic fund, is refused on
 * the fund MCP server and does not raise the calculator limit.
 */
export const DEMO_API_KEY = 'svc_dk_DemoKeyFundEdgeSyntheticFixture1';

import { DEFAULT_KEY_DAILY_CALC_LIMIT } from './limits.ts';
import { sha256Hex } from './digest.ts';
/** Calculator limit of a key minted without `--daily-calc-limit` (lib/limits.ts). */
export { DEFAULT_KEY_DAILY_CALC_LIMIT };

/**
 * Scope of a stored key. `fund`: reads the fund `fundId` and raises the calculator quota; `calc`: raises the
 * calculator quota only (403 `insufficient_scope` on fund data and the fund MCP server). The published demo
 * key is the third scope, `demo`, and is never stored.
 */
export type KeyScope = 'fund' | 'calc';

/** A stored key record: what `API_KEYS` holds under SHA-256(key). No secret is in it. */
export interface KeyRecord {
  keyId: string;
  /** First 12 characters of the key, e.g. `svc_dk_AbCdE`, for listing and revoking. */
  prefix: string;
  scope: KeyScope;
  /** The fund a `fund` key reads; null for a `calc` key. */
  fundId: string | null;
  /**
   * Calculator calls per UTC day of a key minted by the operator CLI. A key minted in the developer console
   * (one with `accountId`) counts against its account's plan limit instead ({@link KeyAccount}).
   */
  dailyCalcLimit: number;
  /** The developer-console account that minted the key; absent for keys minted by the operator CLI. */
  accountId?: string;
  label: string;
  /** RFC 3339 UTC. */
  createdAt: string;
  /** RFC 3339 UTC, or null while the key is active. */
  revokedAt: string | null;
}

/** The account standing of a console key, read when the key is authenticated. */
export interface KeyAccount {
  accountId: string;
  /** Calculator calls per UTC day of the account's plan, shared by all its keys. */
  dailyCalcLimit: number;
}

/**
 * What verifying a key asks of the developer console, handed in by the composition root (lib/service.ts builds it
 * from lib/console/standing.ts), so that the key store depends on no feature.
 */
export interface AccountDirectory {
  /** The account when it exists and is not revoked, with its plan's calculator limit and its funds; else null. */
  activeAccount(accountId: string): Promise<(KeyAccount & { fundIds: readonly string[] }) | null>;
  /** Notes that a key of an account was used (at most once an hour per key and isolate; failures ignored). */
  noteKeyUse(keyId: string): Promise<void>;
}

/** Who a request authenticated as. `account` is set for keys minted in the developer console. */
export type Principal = { kind: 'demo' } | { kind: 'key'; record: KeyRecord; account?: KeyAccount };

/** The subset of `KVNamespace` authentication needs. */
export interface KeyValueStore extends KeyAdminStore {
  get(name: string): Promise<string | null>;
}

/** The subset of `KVNamespace` minting, listing and revoking need (the CLI backs it with `wrangler kv`). */
export interface KeyAdminStore {
  put(name: string, value: string, options?: { metadata?: unknown }): Promise<void>;
  list(options?: { prefix?: string; cursor?: string }): Promise<{
    keys: { name: string; metadata?: unknown }[];
    list_complete: boolean;
    cursor?: string;
  }>;
}

/** `n` base62 characters from the CSPRNG, by rejection sampling (no modulo bias). */
export function randomBase62(n: number): string {
  let out = '';
  while (out.length < n) {
    const bytes = crypto.getRandomValues(new Uint8Array(n * 2));
    for (const b of bytes) {
      if (b < 248 && out.length < n) out += BASE62[b % 62];
    }
  }
  return out;
}

/** A new key, `svc_dk_<32 base62>`. */
export function generateKey(): string {
  return KEY_PREFIX + randomBase62(32);
}

/** SHA-256 of a key, lower-case hex (the KV key name of its record). */
export function hashKey(key: string): Promise<string> {
  return sha256Hex(key);
}

/** Web Crypto as workerd has it: `timingSafeEqual` is a Cloudflare extension that Node's webcrypto lacks. */
type SubtleWithTimingSafeEqual = SubtleCrypto & { timingSafeEqual?: (a: ArrayBufferView, b: ArrayBufferView) => boolean };

/**
 * Equality of two strings in time that depends only on their lengths (which are public: both sides are
 * SHA-256 hex). In the Worker it is workerd's `crypto.subtle.timingSafeEqual`; under Node (tests, scripts),
 * which lacks it, an XOR fold over every byte.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  if (x.length !== y.length) return false;
  const subtle = crypto.subtle as SubtleWithTimingSafeEqual;
  if (typeof subtle.timingSafeEqual === 'function') return subtle.timingSafeEqual(x, y);
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i]! ^ y[i]!;
  return diff === 0;
}

/**
 * SHA-256 of the demo key, once made: a plain string, never the promise that makes it (workerd ties I/O to
 * the request that started it, so requests share plain values only; concurrent first requests each hash it).
 */
let demoHash: string | undefined;

/**
 * How long an isolate trusts a stored key record it has read, in milliseconds, without reading `API_KEYS`
 * again. A key revoked through `revokeRecord` (the console, the CLI against this isolate's namespace) stops at
 * once in the isolate that revoked it; elsewhere within this time, on top of KV's own propagation (up to
 * about 60 s), as docs/performance.md states. A console key's account is still read on every call, so
 * revoking an account stops its keys at once. Unknown and revoked keys are never cached.
 */
export const AUTH_CACHE_MS = 30_000;
/** At most this many keys are remembered per `API_KEYS` namespace and isolate (all forgotten when full). */
const AUTH_CACHE_ENTRIES = 1_000;
/**
 * Records read by this isolate, by key hash: plain values with their expiry, filled by the request that read
 * them. A request never awaits another's read (concurrent first requests of a key each read it once).
 */
const authCache = new WeakMap<object, Map<string, { record: KeyRecord; until: number }>>();

/** The isolate's authenticated keys for one `API_KEYS` namespace, by SHA-256 hash. */
function authCacheOf(store: object): Map<string, { record: KeyRecord; until: number }> {
  let cache = authCache.get(store);
  if (!cache) {
    cache = new Map();
    authCache.set(store, cache);
  }
  return cache;
}

/**
 * Mints a key and stores its record under SHA-256(key).
 * @returns the key (shown once; it cannot be recovered) and its record
 */
export async function createKey(
  store: KeyAdminStore,
  options: { fundId: string | null; scope?: KeyScope; accountId?: string; label?: string; dailyCalcLimit?: number; now?: Date },
): Promise<{ key: string; record: KeyRecord }> {
  const key = generateKey();
  const scope = options.scope ?? 'fund';
  if ((scope === 'fund') !== (options.fundId !== null)) throw new Error('A fund key names its fund; a calc key names none.');
  const record: KeyRecord = {
    keyId: `key_${randomBase62(16)}`,
    prefix: key.slice(0, 12),
    scope,
    fundId: options.fundId,
    dailyCalcLimit: options.dailyCalcLimit ?? DEFAULT_KEY_DAILY_CALC_LIMIT,
    ...(options.accountId !== undefined ? { accountId: options.accountId } : {}),
    label: options.label ?? '',
    createdAt: (options.now ?? new Date()).toISOString(),
    revokedAt: null,
  };
  await store.put(await hashKey(key), JSON.stringify(record), { metadata: record });
  return { key, record };
}

/** Every stored key record (read from list metadata, one KV list call per 1,000 keys). */
export async function listKeys(store: KeyAdminStore): Promise<(KeyRecord & { hash: string })[]> {
  const out: (KeyRecord & { hash: string })[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list(cursor ? { cursor } : {});
    for (const k of page.keys) if (k.metadata) out.push({ ...(k.metadata as KeyRecord), hash: k.name });
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor);
  return out;
}

/**
 * Marks one stored record revoked (no-op when it already is), keeping its value and metadata in step.
 * @returns the record as stored
 */
export async function revokeRecord(store: KeyAdminStore, hash: string, record: KeyRecord, now = new Date()): Promise<KeyRecord> {
  const revoked: KeyRecord = { ...record, revokedAt: record.revokedAt ?? now.toISOString() };
  await store.put(hash, JSON.stringify(revoked), { metadata: revoked });
  authCache.get(store)?.delete(hash); // this isolate stops trusting it at once
  return revoked;
}

/**
 * Revokes the key whose prefix (or keyId) is given.
 * @returns the revoked record
 * @throws {Error} when no key or more than one key matches (a CLI-facing message; never sent to clients)
 */
export async function revokeKey(store: KeyAdminStore, prefixOrId: string, now = new Date()): Promise<KeyRecord> {
  const matches = (await listKeys(store)).filter((r) => r.prefix === prefixOrId || r.keyId === prefixOrId);
  if (matches.length !== 1) {
    throw new Error(matches.length === 0 ? 'No key has that prefix or id.' : 'More than one key has that prefix; use the keyId.');
  }
  const { hash, ...record } = matches[0]!;
  return revokeRecord(store, hash, record, now);
}

/**
 * Verifies a presented key (the token of a `Bearer` header, lib/auth.ts). A key minted in the developer
 * console also needs its account to be active: one more read through `accounts`, so revoking an account stops
 * all its keys at once. Its last use is noted at most once an hour per key and isolate.
 * @param key the presented key
 * @param store the `API_KEYS` namespace
 * @param accounts the developer console's accounts; without it a console key is refused (fail closed)
 * @returns the principal: the demo key, or an active stored key (with its account's standing)
 * @throws {UnauthorizedError} 401 for a key of the wrong shape, an unknown or revoked key, or a key of a
 *   revoked account (one message, so the answer does not tell which keys exist)
 */
export async function verifyKey(key: string, store: KeyValueStore, accounts?: AccountDirectory): Promise<Principal> {
  if (!KEY_PATTERN.test(key)) throw new UnauthorizedError('The API key is malformed.', true);
  const hash = await hashKey(key);
  demoHash ??= await hashKey(DEMO_API_KEY);
  if (constantTimeEqual(hash, demoHash)) return { kind: 'demo' };
  const cache = authCacheOf(store);
  const cached = cache.get(hash);
  let record: KeyRecord | null;
  if (cached !== undefined && performance.now() < cached.until) record = cached.record;
  else {
    const stored = await store.get(hash);
    record = stored === null ? null : (JSON.parse(stored) as KeyRecord);
    if (record !== null && record.revokedAt === null) {
      if (cache.size >= AUTH_CACHE_ENTRIES) cache.clear();
      cache.set(hash, { record, until: performance.now() + AUTH_CACHE_MS });
    }
  }
  if (record === null || record.revokedAt !== null) throw new UnauthorizedError('The API key is not valid.', true);
  if (record.accountId === undefined) return { kind: 'key', record };
  const account = accounts ? await accounts.activeAccount(record.accountId) : null;
  if (account === null) throw new UnauthorizedError('The API key is not valid.', true);
  await accounts!.noteKeyUse(record.keyId);
  return { kind: 'key', record, account: { accountId: account.accountId, dailyCalcLimit: account.dailyCalcLimit } };
}
