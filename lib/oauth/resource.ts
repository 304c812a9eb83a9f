/**
 * The fund MCP server as an OAuth 2.1 resource server (RFC 9728, RFC 6750; docs/oauth.md): who an access
 * token this service issued (lib/oauth/provider.ts) is, for the authentication step of `/api/mcp` (lib/auth.ts,
 * which also takes API keys, `svc_dk_...`), and the challenges of its refusals.
 *
 * A refusal that OAuth can fix (no credential; an access token that is not valid here or lacks `fund:read`)
 * carries `WWW-Authenticate: Bearer` with `resource_metadata` (the URL of the server's RFC 9728 document,
 * which names this service as its authorization server), `scope` (`fund:read`), and for a presented token
 * `error` and an `error_description` saying what is missing ({@link withDiscovery}). Which refusals those are
 * is decided with the API keys' in lib/mcp/refusals.ts. No refusal tells whether an account, a key or a
 * grant exists: an unknown, expired, revoked or other-resource token, and a token of a revoked account, all
 * get the one `invalid_token` sentence.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../env.ts';
import { ApiError, InsufficientScopeError, UnauthorizedError } from '../errors.ts';
import type { AccountDirectory, Principal } from '../keys.ts';
import type { TokenVerifier } from '../auth.ts';
import { FUND_READ_SCOPE, resourceMetadataUrl, validateAccessToken } from './provider.ts';

/** Detail of the 401 without any credential. */
export const NO_CREDENTIAL_DETAIL =
  'The fund MCP server needs authorization: connect with OAuth (this server publishes its authorization metadata) or send "Authorization: Bearer svc_dk_..." with a fund key.';
/** Detail of the 401 of an access token that is not (or no longer) valid here. */
export const INVALID_TOKEN_DETAIL = 'The access token is not valid here (expired, revoked, or issued for another server); authorize again.';
/** Detail of the 403 of a token whose grant lacks the scope. */
export const TOKEN_SCOPE_DETAIL = `The access token does not carry the "${FUND_READ_SCOPE}" scope; authorize again and approve reading this fund's data.`;
/** Detail of the 403 of a token whose account has no access to the served fund. */
export const ACCOUNT_NO_FUND_DETAIL =
  "This account has no access to this fund's data (calculator accounts do not); the fund's operator grants it by invitation.";

/**
 * True for a bearer token of the shape this service's access tokens have (the library's
 * `<user>:<grant>:<secret>`, three non-empty parts without white space): only such a token is looked up as an
 * access token, and refused with a challenge. Any other value the fund server is sent is a key problem
 * (lib/mcp/refusals.ts), which OAuth does not fix. Linear in the token's length.
 */
export function isAccessTokenShape(token: string): boolean {
  const parts = token.split(':');
  return parts.length === 3 && parts.every((part) => part.length > 0 && !/\s/.test(part));
}

/** A header parameter value as an RFC 9110 quoted-string (our own fixed sentences; `"` and `\` escaped). */
function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, (ch) => `\\${ch}`)}"`;
}

/**
 * The same refusal, its `WWW-Authenticate` challenge naming the protected resource metadata, the scope, and
 * (for a presented credential, RFC 6750 §3) its `error` with `error_description`.
 * @param err a 401 `unauthorized` or 403 `insufficient_scope` refusal
 */
export function withDiscovery(c: Context<AppEnv>, err: ApiError): ApiError {
  const sent = err.headers['WWW-Authenticate'] ?? '';
  const code = /error="([a-z_]+)"/.exec(sent)?.[1];
  const params = [`realm="fund-data"`, `resource_metadata=${quoted(resourceMetadataUrl(c))}`, `scope="${FUND_READ_SCOPE}"`];
  if (code) params.push(`error="${code}"`, `error_description=${quoted(err.detail)}`);
  return new ApiError(err.code, err.detail, {
    ...(err.errors ? { errors: err.errors } : {}),
    headers: { ...err.headers, 'WWW-Authenticate': `Bearer ${params.join(', ')}` },
  });
}

/**
 * The verifier of this service's OAuth access tokens for the authentication step of the fund-data endpoints
 * and the fund MCP server (lib/auth.ts `Access.token`, through {@link accessTokenVerifier}): an access token
 * becomes a `fund` principal of its account, so the fund scope checks of lib/fund/source.ts and the fund-data
 * burst limit apply to it unchanged. Its audience must be this deployment's fund resource ({@link
 * validateAccessToken}): a token issued for another deployment, or locally another loopback name, is refused.
 * @param accounts the developer console's accounts (the token's account must be active and hold the fund)
 * @returns a verifier that throws {@link UnauthorizedError} 401 (unknown, expired, revoked, other resource, a
 *   revoked account) or {@link InsufficientScopeError} 403 (no `fund:read`), to which the caller adds the
 *   discovery challenge with {@link withDiscovery}, or a 403 `insufficient_scope` without a challenge (an
 *   account without the served fund)
 */
export function accessTokens(c: Context<AppEnv>, accounts: AccountDirectory | undefined): (token: string) => Promise<Principal> {
  return async (token) => {
    const validated = await validateAccessToken(c, token);
    const account = validated && accounts ? await accounts.activeAccount(validated.props.accountId) : null;
    if (!validated || !account) throw new UnauthorizedError(INVALID_TOKEN_DETAIL, true);
    if (!validated.scope.includes(FUND_READ_SCOPE)) throw new InsufficientScopeError(TOKEN_SCOPE_DETAIL);
    const fundId = c.get('config').fundId;
    // Authorizing again cannot give the account the fund: no challenge (lib/mcp/refusals.ts).
    if (!account.fundIds.includes(fundId)) throw new ApiError('insufficient_scope', ACCOUNT_NO_FUND_DETAIL);
    return {
      kind: 'key',
      record: {
        // Not a stored key: the fund-data burst limit counts per account and client.
        keyId: `oauth_${account.accountId}_${validated.clientId}`,
        prefix: 'oauth',
        scope: 'fund',
        fundId,
        dailyCalcLimit: 0,
        accountId: account.accountId,
        label: 'OAuth access token',
        createdAt: new Date(0).toISOString(),
        revokedAt: null,
      },
      account: { accountId: account.accountId, dailyCalcLimit: account.dailyCalcLimit },
    };
  };
}

/**
 * The access-token verifier of a request (lib/auth.ts {@link TokenVerifier}): values of an access token's
 * shape ({@link isAccessTokenShape}) are verified by {@link accessTokens}; any other value stays a key problem.
 * @param accounts the developer console's accounts
 */
export function accessTokenVerifier(c: Context<AppEnv>, accounts: AccountDirectory | undefined): TokenVerifier {
  return { shape: isAccessTokenShape, verify: accessTokens(c, accounts) };
}
