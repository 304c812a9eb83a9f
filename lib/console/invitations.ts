/**
 * The operator's invitations (docs/console.md): a one-time link that lets whoever redeems it first mint
 * `fund` keys for one fund (and, when it says so, puts the account on the `paid` plan). Stored in the
 * `CONSOLE` KV namespace as `invitation:<sha256(token)>`, kept a day past its expiry; only the token's
 * SHA-256 is stored, never the token. Who redeemed it is decided in its atomic record of the same name
 * (lib/atomic.ts): the first claim wins, however many arrive at once (docs/atomic.md).
 */
import { ApiError } from '../errors.ts';
import { claim, type AtomicNamespace } from '../atomic.ts';
import { hashKey, randomBase62 } from '../keys.ts';
import type { AccountPlan } from '../identity.ts';
import { saveAccount, ttlUntil } from './accounts.ts';
import type { Account, ConsoleKv } from './standing.ts';

/** An operator's invitation: whoever redeems it first may mint `fund` keys for `fundId`. */
export interface Invitation {
  fundId: string;
  /** The plan the redeeming account is set to (`free` leaves the account's plan as it is). */
  plan: AccountPlan;
  createdAt: string;
  expiresAt: string;
  /** RFC 3339 UTC once redeemed, with the account that did. */
  usedAt: string | null;
  usedBy: string | null;
}

/** Default lifetime of an invitation, seconds (7 days). */
export const DEFAULT_INVITATION_TTL_SECONDS = 7 * 86_400;

/** 410 `invitation_unusable`: unknown, expired or already used (one answer for all three). */
export class InvitationUnusableError extends ApiError {
  constructor() {
    super(
      'invitation_unusable',
      'This invitation link is not valid: it has expired or has already been used. Ask the fund operator for a new one.',
    );
    this.name = 'InvitationUnusableError';
  }
}

/**
 * Creates an invitation (operator).
 * @returns the one-time token (for the link; only its SHA-256 is stored) and the invitation
 */
export async function createInvitation(
  kv: ConsoleKv,
  options: { fundId: string; plan?: AccountPlan; ttlSeconds?: number; now?: Date },
): Promise<{ token: string; invitation: Invitation }> {
  const now = options.now ?? new Date();
  const token = randomBase62(32);
  const expiresAt = new Date(now.getTime() + (options.ttlSeconds ?? DEFAULT_INVITATION_TTL_SECONDS) * 1000);
  const invitation: Invitation = {
    fundId: options.fundId,
    plan: options.plan ?? 'free',
    createdAt: now.toISOString(),
    expiresAt: expiresAt.toISOString(),
    usedAt: null,
    usedBy: null,
  };
  await kv.put(`invitation:${await hashKey(token)}`, JSON.stringify(invitation), { expirationTtl: ttlUntil(expiresAt, now) + 86_400 });
  return { token, invitation };
}

/**
 * The invitation a token names, when it can still be redeemed.
 * @throws {InvitationUnusableError} 410 when it is unknown, expired or used
 */
export async function usableInvitation(kv: ConsoleKv, token: string, now = new Date()): Promise<Invitation> {
  if (!/^[0-9A-Za-z]{32}$/.test(token)) throw new InvitationUnusableError();
  const text = await kv.get(`invitation:${await hashKey(token)}`);
  const invitation = text === null ? null : (JSON.parse(text) as Invitation);
  if (!invitation || invitation.usedAt !== null || Date.parse(invitation.expiresAt) <= now.getTime()) throw new InvitationUnusableError();
  return invitation;
}

/** Name of the atomic record of an invitation, by the SHA-256 of its token. */
const invitationRecord = (tokenHash: string) => `invitation:${tokenHash}`;

/**
 * Redeems an invitation for an account: claims it in its atomic record (the first account to claim it wins,
 * whatever happens at once elsewhere), marks it used in KV, and grants the account the fund (and the `paid`
 * plan when the invitation carries it). The same account claiming again (a retry) is let through.
 * @returns the updated account
 * @throws {InvitationUnusableError} 410 when the invitation is unknown, expired, or used (by KV, or claimed
 *   by another account)
 */
export async function redeemInvitation(
  kv: ConsoleKv,
  atomic: AtomicNamespace,
  token: string,
  account: Account,
  now = new Date(),
): Promise<Account> {
  const invitation = await usableInvitation(kv, token, now);
  const hash = await hashKey(token);
  const expiresAt = new Date(invitation.expiresAt);
  const winner = await claim(atomic, invitationRecord(hash), account.accountId, expiresAt.getTime() + 86_400_000);
  if (winner !== account.accountId) throw new InvitationUnusableError();
  const used: Invitation = { ...invitation, usedAt: now.toISOString(), usedBy: account.accountId };
  await kv.put(`invitation:${hash}`, JSON.stringify(used), { expirationTtl: ttlUntil(expiresAt, now) + 86_400 });
  const updated: Account = {
    ...account,
    fundIds: account.fundIds.includes(invitation.fundId) ? account.fundIds : [...account.fundIds, invitation.fundId],
    plan: invitation.plan === 'paid' ? 'paid' : account.plan,
  };
  await saveAccount(kv, updated);
  return updated;
}
