/**
 * What key authentication reads from the console namespace: whether a key's account is active (and its
 * plan), and the note of a key's last use. Kept apart from the rest of the console so that authenticating a
 * key loads nothing else.
 */
import type { AccountDirectory } from '../keys.ts';
import { planDailyCalcLimit, type AccountPlan } from '../identity.ts';

/** A developer-console account as stored under `account:<accountId>` in the `CONSOLE` namespace. */
export interface Account {
  /** `acct_` + 16 base62 characters. */
  accountId: string;
  plan: AccountPlan;
  /** Funds whose `fund` keys the account may mint (from accepted invitations). */
  fundIds: string[];
  /** The WebAuthn user handle, base64url of 32 random bytes (no personal data). */
  webauthnUserId: string;
  /** RFC 3339 UTC. */
  createdAt: string;
  /** RFC 3339 UTC, or null while active. A revoked account's keys all fail authentication. */
  revokedAt: string | null;
}

/** The KV operations the console namespace is used through (a subset of `KVNamespace`). */
export interface ConsoleKv {
  get(name: string): Promise<string | null>;
  put(name: string, value: string, options?: { metadata?: unknown; expirationTtl?: number }): Promise<void>;
}

/** KV name of an account. */
export const accountName = (accountId: string) => `account:${accountId}`;
/** KV name of the last-use note of a key. */
export const keyUseName = (keyId: string) => `keyuse:${keyId}`;

/** The account, or null when there is none by that id. */
export async function readAccount(kv: Pick<ConsoleKv, 'get'>, accountId: string): Promise<Account | null> {
  const text = await kv.get(accountName(accountId));
  return text === null ? null : (JSON.parse(text) as Account);
}

/** The account when it exists and is not revoked, else null (one KV read). */
export async function activeAccount(kv: Pick<ConsoleKv, 'get'>, accountId: string): Promise<Account | null> {
  const account = await readAccount(kv, accountId);
  return account && account.revokedAt === null ? account : null;
}

/**
 * The console's accounts as key verification sees them (lib/keys.ts {@link AccountDirectory}): an active
 * account with its plan's calculator limit and its funds, and the note of a key's use. The composition root
 * hands it to the authentication step, so the key store never imports the console.
 */
export function consoleAccounts(kv: ConsoleKv): AccountDirectory {
  return {
    async activeAccount(accountId) {
      const account = await activeAccount(kv, accountId);
      return account && { accountId: account.accountId, dailyCalcLimit: planDailyCalcLimit(account.plan), fundIds: account.fundIds };
    },
    noteKeyUse: (keyId) => noteKeyUse(kv, keyId),
  };
}

/** Interval between two notes of one key's use by one isolate, ms. */
export const KEY_USE_NOTE_INTERVAL_MS = 3_600_000;
const notedAt = new Map<string, number>();

/**
 * Notes that a key was used (`keyuse:<keyId>` → RFC 3339 time, kept 400 days), at most once an hour per key
 * and isolate, so API calls do not each cost a KV write. "Last used" is therefore accurate to about an hour.
 * A failed write is ignored (it is only a note).
 */
export async function noteKeyUse(kv: Pick<ConsoleKv, 'put'>, keyId: string, now = new Date()): Promise<void> {
  const last = notedAt.get(keyId);
  if (last !== undefined && now.getTime() - last < KEY_USE_NOTE_INTERVAL_MS) return;
  notedAt.set(keyId, now.getTime());
  if (notedAt.size > 10_000) notedAt.delete(notedAt.keys().next().value!);
  try {
    await kv.put(keyUseName(keyId), now.toISOString(), { expirationTtl: 400 * 86_400 });
  } catch {
    // Over KV's write rate: the note is skipped.
  }
}
