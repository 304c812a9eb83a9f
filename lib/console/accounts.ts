/**
 * The developer console's records in the `CONSOLE` KV namespace, and the rules on them: accounts, passkey
 * credentials, sessions and each account's key index; invitations, which grant an account a fund, are in
 * lib/console/invitations.ts. API keys themselves stay in `API_KEYS`
 * (SHA-256 only, lib/keys.ts); this module never stores or logs a full key, a session id or an invitation
 * token, only their SHA-256.
 *
 * KV layout (names; values are JSON):
 *   account:<accountId>                 Account (value and metadata, so the operator can list accounts)
 *   credential:<credentialId>           StoredCredential (the passkey's public key and counter)
 *   session:<sha256(sessionId)>         Session, expiring with it
 *   invitation:<sha256(token)>          Invitation, kept a day past its expiry
 *   challenge:<sha256(id)>              a pending WebAuthn challenge, 5 minutes
 *   account-key:<accountId>:<keyId>     { hash } of the account's key in API_KEYS
 *   keyuse:<keyId>                      last use of a key (lib/console/standing.ts)
 *
 * KV is eventually consistent: a write is seen at once where it was made and within about 60 s elsewhere.
 * So a session ended or an account revoked in one location may still be honoured for up to a minute in
 * another; everything here is written where the request is served. KV has no compare-and-swap either, so the
 * two rules that must hold under concurrency are kept in atomic records (lib/atomic.ts, docs/atomic.md):
 *   invitation:<sha256(token)>          who redeemed the invitation (the first claim wins)
 *   account-keys:<accountId>            the account's active keys, at most {@link MAX_ACTIVE_KEYS_PER_ACCOUNT}
 */
import { ApiError } from '../errors.ts';
import { release, reserve, type AtomicNamespace } from '../atomic.ts';
import { createKey, hashKey, randomBase62, revokeRecord, type KeyAdminStore, type KeyRecord, type KeyScope } from '../keys.ts';
import type { AccountPlan } from '../identity.ts';
import { accountName, keyUseName, readAccount, type Account, type ConsoleKv } from './standing.ts';

export { type Account, activeAccount, readAccount } from './standing.ts';

/** The console namespace with listing and deletion (what the operator CLI and the console use). */
export interface ConsoleStore extends ConsoleKv {
  delete(name: string): Promise<void>;
  list(options?: { prefix?: string; cursor?: string }): Promise<{
    keys: { name: string; metadata?: unknown }[];
    list_complete: boolean;
    cursor?: string;
  }>;
}

/** The `API_KEYS` namespace as the console uses it. */
export type ApiKeyStore = KeyAdminStore & { get(name: string): Promise<string | null>; delete(name: string): Promise<void> };

/** A passkey registered to an account. */
export interface StoredCredential {
  /** base64url credential id (as WebAuthn reports it). */
  credentialId: string;
  accountId: string;
  /** base64url COSE public key. */
  publicKey: string;
  /** Signature counter (0 for authenticators that do not count). */
  counter: number;
  transports?: string[];
  createdAt: string;
}

/** A signed-in session. */
export interface Session {
  accountId: string;
  /** RFC 3339 UTC. */
  expiresAt: string;
}

/** A key of an account, as the console lists it. */
export interface AccountKey extends KeyRecord {
  /** RFC 3339 UTC of the last noted use (accurate to about an hour), or null. */
  lastUsedAt: string | null;
}

/** How long a session lasts, seconds (8 hours). */
export const SESSION_TTL_SECONDS = 8 * 3600;
/** How long a WebAuthn challenge may be answered, seconds (KV's minimum expiration is 60 s). */
export const CHALLENGE_TTL_SECONDS = 300;
/** Active keys an account may hold at once. */
export const MAX_ACTIVE_KEYS_PER_ACCOUNT = 20;

const SESSION_PREFIX = 'session:';
const accountKeyName = (accountId: string, keyId: string) => `account-key:${accountId}:${keyId}`;
const credentialName = (credentialId: string) => `credential:${credentialId}`;
/** The KV `expirationTtl` of a record that must outlive `expiresAt`: seconds from `now`, rounded up, at least KV's minimum of 60. */
export function ttlUntil(expiresAt: Date, now: Date): number {
  return Math.max(60, Math.ceil((expiresAt.getTime() - now.getTime()) / 1000));
}

/** Every record under a prefix, through all pages of `list`. */
async function listAll(kv: Pick<ConsoleStore, 'list'>, prefix: string): Promise<{ name: string; metadata?: unknown }[]> {
  const out: { name: string; metadata?: unknown }[] = [];
  let cursor: string | undefined;
  do {
    const page = await kv.list(cursor ? { prefix, cursor } : { prefix });
    out.push(...page.keys.filter((k) => k.name.startsWith(prefix)));
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor);
  return out;
}

/** Writes an account (value and metadata). */
export async function saveAccount(kv: ConsoleKv, account: Account): Promise<void> {
  await kv.put(accountName(account.accountId), JSON.stringify(account), { metadata: account });
}

/**
 * Creates an account on the `free` plan.
 * @param webauthnUserId the WebAuthn user handle its first passkey was registered with (base64url)
 */
export async function createAccount(kv: ConsoleKv, webauthnUserId: string, now = new Date()): Promise<Account> {
  const account: Account = {
    accountId: `acct_${randomBase62(16)}`,
    plan: 'free',
    fundIds: [],
    webauthnUserId,
    createdAt: now.toISOString(),
    revokedAt: null,
  };
  await saveAccount(kv, account);
  return account;
}

/** Every account (from list metadata). */
export async function listAccounts(kv: Pick<ConsoleStore, 'list'>): Promise<Account[]> {
  return (await listAll(kv, 'account:')).filter((k) => k.metadata).map((k) => k.metadata as Account);
}

/**
 * The account by id, for the operator.
 * @throws {Error} when there is none (a CLI-facing message)
 */
async function requireAccount(kv: ConsoleKv, accountId: string): Promise<Account> {
  const account = await readAccount(kv, accountId);
  if (!account) throw new Error(`No account ${accountId}.`);
  return account;
}

/** Sets an account's plan (operator). @throws {Error} when the account does not exist */
export async function setPlan(kv: ConsoleKv, accountId: string, plan: AccountPlan): Promise<Account> {
  const account = { ...(await requireAccount(kv, accountId)), plan };
  await saveAccount(kv, account);
  return account;
}

/**
 * Revokes an account (operator): its keys stop authenticating at once (authentication checks the account),
 * each key record is marked revoked too, and its sessions end at their next use.
 * @returns the account and how many keys were revoked
 * @throws {Error} when the account does not exist
 */
export async function revokeAccount(
  kv: ConsoleStore,
  apiKeys: ApiKeyStore,
  accountId: string,
  now = new Date(),
): Promise<{ account: Account; keysRevoked: number }> {
  const prior = await requireAccount(kv, accountId);
  const account: Account = { ...prior, revokedAt: prior.revokedAt ?? now.toISOString() };
  await saveAccount(kv, account);
  let keysRevoked = 0;
  for (const key of await listAccountKeys(kv, apiKeys, accountId)) {
    if (key.revokedAt !== null) continue;
    const { lastUsedAt: _unused, ...record } = key;
    await revokeRecord(apiKeys, await indexHash(kv, accountId, key.keyId), record, now);
    keysRevoked++;
  }
  return { account, keysRevoked };
}

/** Stores a passkey credential of an account. */
export async function saveCredential(kv: ConsoleKv, credential: StoredCredential): Promise<void> {
  await kv.put(credentialName(credential.credentialId), JSON.stringify(credential));
}

/** The stored credential with this id, or null. */
export async function readCredential(kv: ConsoleKv, credentialId: string): Promise<StoredCredential | null> {
  const text = await kv.get(credentialName(credentialId));
  return text === null ? null : (JSON.parse(text) as StoredCredential);
}

/**
 * Starts a session for an account.
 * @returns the session id (for the signed cookie; only its SHA-256 is stored) and its expiry
 */
export async function createSession(kv: ConsoleKv, accountId: string, now = new Date()): Promise<{ sessionId: string; expiresAt: Date }> {
  const sessionId = randomBase62(32);
  const expiresAt = new Date(now.getTime() + SESSION_TTL_SECONDS * 1000);
  const session: Session = { accountId, expiresAt: expiresAt.toISOString() };
  await kv.put(SESSION_PREFIX + (await hashKey(sessionId)), JSON.stringify(session), { expirationTtl: ttlUntil(expiresAt, now) });
  return { sessionId, expiresAt };
}

/** The session and its account when the session exists, has not expired and the account is active; else null. */
export async function readSession(
  kv: ConsoleKv,
  sessionId: string,
  now = new Date(),
): Promise<{ session: Session; account: Account } | null> {
  const text = await kv.get(SESSION_PREFIX + (await hashKey(sessionId)));
  if (text === null) return null;
  const session = JSON.parse(text) as Session;
  if (Date.parse(session.expiresAt) <= now.getTime()) return null;
  const account = await readAccount(kv, session.accountId);
  if (!account || account.revokedAt !== null) return null;
  return { session, account };
}

/** Ends a session server side. */
export async function endSession(kv: Pick<ConsoleStore, 'delete'>, sessionId: string): Promise<void> {
  await kv.delete(SESSION_PREFIX + (await hashKey(sessionId)));
}

/** Stores a pending WebAuthn challenge under a fresh id; @returns the id (for a short-lived cookie). */
export async function saveChallenge(
  kv: ConsoleKv,
  challenge: { challenge: string; purpose: 'register' | 'login'; webauthnUserId?: string },
): Promise<string> {
  const id = randomBase62(32);
  await kv.put(`challenge:${await hashKey(id)}`, JSON.stringify(challenge), { expirationTtl: CHALLENGE_TTL_SECONDS });
  return id;
}

/** Takes (reads and deletes) a pending challenge: each can be answered once. @returns null when unknown */
export async function takeChallenge(
  kv: ConsoleStore,
  id: string,
): Promise<{ challenge: string; purpose: 'register' | 'login'; webauthnUserId?: string } | null> {
  const name = `challenge:${await hashKey(id)}`;
  const text = await kv.get(name);
  if (text === null) return null;
  await kv.delete(name);
  return JSON.parse(text);
}

/** Name of the atomic record of an account's active keys. */
const accountKeysRecord = (accountId: string) => `account-keys:${accountId}`;

/** How long a key reserved in an account's atomic record is trusted without being seen in KV, ms (KV's propagation, with room). */
const RESERVATION_SETTLE_MS = 5 * 60_000;

/** The detail of the 400 of an account at its key cap. */
const KEY_CAP_DETAIL = `An account may hold at most ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys; revoke one first.`;

/**
 * Mints a key for an account: `calc` always; `fund` only for a fund the account was invited to. The key cap
 * holds under concurrency: the new key is reserved in the account's atomic record, which admits at most
 * {@link MAX_ACTIVE_KEYS_PER_ACCOUNT} (first seeded from the account's active keys in KV); a key refused
 * there is deleted before anyone saw it. A record at the cap is checked against KV once: keys revoked
 * outside the console (the operator CLI) for longer than KV takes to propagate are released from it.
 * @returns the key (to show once) and its record
 * @throws {ApiError} 403 `insufficient_scope` for a fund the account may not read; 400 `invalid_request` over
 *   {@link MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys
 */
export async function mintAccountKey(
  kv: ConsoleStore,
  apiKeys: ApiKeyStore,
  atomic: AtomicNamespace,
  account: Account,
  options: { scope: KeyScope; fundId?: string; label: string; now?: Date },
): Promise<{ key: string; record: KeyRecord }> {
  let fundId: string | null = null;
  if (options.scope === 'fund') {
    fundId = options.fundId ?? account.fundIds[0] ?? null;
    if (fundId === null || !account.fundIds.includes(fundId)) {
      throw new ApiError('insufficient_scope', 'This account may mint fund keys only for funds it was invited to.');
    }
  }
  // As KV sees it: refuses at once without touching the atomic record, and seeds a record never written.
  const active = (await listAccountKeys(kv, apiKeys, account.accountId)).filter((k) => k.revokedAt === null).map((k) => k.keyId);
  if (active.length >= MAX_ACTIVE_KEYS_PER_ACCOUNT) throw new ApiError('invalid_request', KEY_CAP_DETAIL);
  const now = options.now ?? new Date();
  const minted = await createKey(apiKeys, { scope: options.scope, fundId, accountId: account.accountId, label: options.label, now });
  const hash = await hashKey(minted.key);
  const record = accountKeysRecord(account.accountId);
  const keyId = minted.record.keyId;
  let reservedHere = false;
  try {
    const at = { seed: active, now: now.getTime() };
    let reserved = await reserve(atomic, record, keyId, MAX_ACTIVE_KEYS_PER_ACCOUNT, at);
    if (!reserved.ok) {
      const gone = await inactiveMembers(kv, apiKeys, account.accountId, reserved.members, now.getTime());
      if (gone.length > 0) {
        await release(atomic, record, gone);
        reserved = await reserve(atomic, record, keyId, MAX_ACTIVE_KEYS_PER_ACCOUNT, at);
      }
    }
    if (!reserved.ok) throw new ApiError('invalid_request', KEY_CAP_DETAIL);
    reservedHere = true;
    await kv.put(accountKeyName(account.accountId, keyId), JSON.stringify({ hash }), { metadata: { hash } });
    return minted;
  } catch (err) {
    await undoMint(apiKeys, atomic, record, hash, reservedHere ? keyId : null);
    throw err;
  }
}

/**
 * Takes back a key whose mint did not complete (refused at the cap, or a step failed: the atomic record or a
 * KV write), before anyone saw it: its record is deleted from `API_KEYS` and its reservation released, so no
 * key is left that the account's index does not list. Best effort: a step that fails here too is skipped
 * (the key, never shown, is then still listed by `npm run keys -- list` with its account, and revocable
 * there), and the mint's own error is what the caller throws.
 */
async function undoMint(
  apiKeys: ApiKeyStore,
  atomic: AtomicNamespace,
  record: string,
  hash: string,
  reserved: string | null,
): Promise<void> {
  await apiKeys.delete(hash).catch(() => undefined);
  if (reserved !== null) await release(atomic, record, [reserved]).catch(() => undefined);
}

/**
 * The members of an account's key record that KV shows revoked or gone, among those reserved longer than
 * KV takes to propagate (a key reserved just now may not be visible here yet).
 */
async function inactiveMembers(
  kv: ConsoleKv,
  apiKeys: ApiKeyStore,
  accountId: string,
  members: Record<string, number>,
  now: number,
): Promise<string[]> {
  const gone: string[] = [];
  for (const [keyId, reservedAt] of Object.entries(members)) {
    if (now - reservedAt < RESERVATION_SETTLE_MS) continue;
    const index = await kv.get(accountKeyName(accountId, keyId));
    const hash = index === null ? null : (JSON.parse(index) as { hash?: string }).hash;
    const text = hash ? await apiKeys.get(hash) : null;
    if (text === null || (JSON.parse(text) as KeyRecord).revokedAt !== null) gone.push(keyId);
  }
  return gone;
}

async function indexHash(kv: ConsoleKv, accountId: string, keyId: string): Promise<string> {
  const text = await kv.get(accountKeyName(accountId, keyId));
  if (text === null) throw new ApiError('not_found', 'This account has no such key.');
  return (JSON.parse(text) as { hash: string }).hash;
}

/** The account's keys, newest first, with their last noted use. */
export async function listAccountKeys(kv: ConsoleStore, apiKeys: ApiKeyStore, accountId: string): Promise<AccountKey[]> {
  const out: AccountKey[] = [];
  for (const entry of await listAll(kv, `account-key:${accountId}:`)) {
    const hash =
      (entry.metadata as { hash?: string } | undefined)?.hash ?? (JSON.parse((await kv.get(entry.name)) ?? '{}') as { hash?: string }).hash;
    if (!hash) continue;
    const text = await apiKeys.get(hash);
    if (text === null) continue;
    const record = JSON.parse(text) as KeyRecord;
    out.push({ ...record, lastUsedAt: await kv.get(keyUseName(record.keyId)) });
  }
  return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/**
 * Revokes one key of an account, and releases it from the account's key cap.
 * @throws {ApiError} 404 `not_found` when the account has no key with that id
 */
export async function revokeAccountKey(
  kv: ConsoleStore,
  apiKeys: ApiKeyStore,
  atomic: AtomicNamespace,
  accountId: string,
  keyId: string,
  now = new Date(),
): Promise<KeyRecord> {
  const hash = await indexHash(kv, accountId, keyId);
  const text = await apiKeys.get(hash);
  if (text === null) throw new ApiError('not_found', 'This account has no such key.');
  const revoked = await revokeRecord(apiKeys, hash, JSON.parse(text) as KeyRecord, now);
  await release(atomic, accountKeysRecord(accountId), [keyId]);
  return revoked;
}
