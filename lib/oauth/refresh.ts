/**
 * Refresh-token reuse detection (RFC 9700 §4.14.2, OAuth 2.1 §4.3.1; docs/oauth.md#refresh-tokens), run
 * inside the OAuth library's refresh, through its `tokenExchangeCallback`: the library calls it only once
 * it has authenticated the client, found the grant, and matched the presented refresh token to the grant's
 * current or previous one. So the atomic store (lib/atomic.ts) is touched only for a real grant of a client
 * that authenticated: a made-up token, an unknown client or a wrong secret costs no Durable Object request
 * and leaves no record.
 *
 * The callback is handed the request's `env`, not the request: the token endpoint (lib/oauth/routes.ts)
 * calls the library with an `env` of its own for each refresh ({@link refreshEnv}), which carries the
 * presented token to the callback here. It is plain data of that one request (the isolate rule).
 */
import type { TokenExchangeCallbackOptions } from '@cloudflare/workers-oauth-provider';
import type { Env } from '../env.ts';
import { checkSpent, settle, spend } from '../atomic.ts';
import { hashKey } from '../keys.ts';

/** What the token endpoint answers a refresh token that was used before, or of a grant revoked for that. */
export const REFRESH_REUSE_DESCRIPTION =
  'This refresh token was already used, so the grant is revoked (RFC 9700 §4.14.2); authorize again.';

/** What the token endpoint answers a refresh token presented while another request is exchanging it. */
export const REFRESH_CONTESTED_DESCRIPTION =
  'This refresh token was presented again while it was being exchanged, so the grant is revoked (RFC 9700 §4.14.2); authorize again.';

/** One refresh request's state: the token presented, and the grant record once the token was spent in it. */
interface RefreshState {
  /** The refresh token as presented. */
  presented: string;
  /** When the grant's record may be forgotten, ms since the epoch. */
  until: number;
  /** Set by {@link refreshTokenCheck} once the token was spent fresh: the record and the token's hash. */
  spent?: { record: string; token: string };
}

/** The state of each refresh under way, by the `env` its request handed the library. */
const refreshes = new WeakMap<object, RefreshState>();

/**
 * An `env` for one refresh request: the Worker's bindings (by prototype), carrying the presented token
 * to {@link refreshTokenCheck}.
 * @param until when the grant's atomic record may be forgotten (ms since the epoch)
 */
export function refreshEnv(env: Env, presented: string, until: number): Env {
  const own = Object.create(env) as Env;
  refreshes.set(own, { presented, until });
  return own;
}

/**
 * Settles the spent token of a refresh once the library answered (lib/atomic.ts `settle`): spent for good
 * when the exchange succeeded, given back when it did not (a refusal after the check, such as an expiry at
 * that moment, is no use of the token).
 * @returns whether the grant was revoked meanwhile (the token was presented again during the exchange):
 *   the new tokens must then be revoked and not answered
 */
export async function settleRefresh(env: Env, exchanged: boolean): Promise<boolean> {
  const spent = refreshes.get(env)?.spent;
  if (!spent) return false;
  return settle(env.ATOMIC, spent.record, spent.token, exchanged);
}

/**
 * The library's `tokenExchangeCallback`: for a refresh, spends the presented token in its grant's atomic
 * record (`grant:<userId>:<grantId>`). New, the exchange goes on; used before, or presented again while
 * its first exchange runs, or of a grant revoked for that, the callback throws the library's `invalid_grant`,
 * with which the library revokes the grant and its tokens and answers 400. Other grant types pass.
 * @throws {OAuthError} `invalid_grant` for a reuse; `invalid_request` for a refresh that did not come
 *   through the token endpoint's {@link refreshEnv} (fails closed)
 */
export async function refreshTokenCheck(options: TokenExchangeCallbackOptions<Env>): Promise<void> {
  if (String(options.grantType) !== 'refresh_token') return;
  const { OAuthError } = await import('@cloudflare/workers-oauth-provider');
  const state = refreshes.get(options.env);
  if (!state) throw new OAuthError('invalid_request', { description: 'Send the refresh as a form to the token endpoint.' });
  const record = `grant:${options.userId}:${options.grantId}`;
  const token = await hashKey(state.presented);
  const spent = await spend(options.env.ATOMIC, record, token, state.until);
  if (spent === 'fresh') {
    state.spent = { record, token };
    return;
  }
  throw new OAuthError('invalid_grant', {
    description: spent === 'contested' ? REFRESH_CONTESTED_DESCRIPTION : REFRESH_REUSE_DESCRIPTION,
  });
}

/**
 * What the library answers a refresh token that does not match its grant's current or previous one (the
 * grant exists: an unknown grant is "Grant not found"), as `error_description` with `invalid_grant`.
 */
export const LIBRARY_TOKEN_MISMATCH = 'Invalid refresh token';

/**
 * For a refresh the library refused as not matching its grant (which exists, and whose client
 * authenticated): whether the token is one the grant exchanged before, two or more rotations ago (the
 * library keeps only the previous one). The grant's record, if it has one, is asked without writing
 * (lib/atomic.ts `checkSpent`): a made-up token of a grant leaves no record.
 * @returns true when the token was spent before (the record is now revoked) or the grant was revoked for a
 *   reuse: the grant must be revoked and the request answered as a reuse
 */
export async function staleTokenReused(env: Env, presented: string, userId: string, grantId: string): Promise<boolean> {
  return (await checkSpent(env.ATOMIC, `grant:${userId}:${grantId}`, await hashKey(presented))) !== 'unknown';
}
