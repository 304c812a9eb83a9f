/**
 * The one authentication step of the API (docs/api.md#keys-and-scopes): the REST calculators, the fund-data
 * endpoints and both MCP servers call {@link authenticate} with the request's `Authorization` header, and
 * only here is that header read as `Bearer <token>`.
 *
 * What it needs from elsewhere arrives by parameter, as an {@link Access}: the key store, the developer
 * console's accounts (whether a console key's account is active, and its plan's limit) and, for the
 * surfaces that accept them (the fund-data endpoints and the fund MCP server), a verifier of OAuth access
 * tokens (lib/oauth/resource.ts). The composition root (lib/service.ts) builds both and hands them to every
 * endpoint in its request context.
 */
import { UnauthorizedError } from './errors.ts';
import { KEY_PATTERN, KEY_PREFIX, verifyKey, type AccountDirectory, type KeyValueStore, type Principal } from './keys.ts';

/** The one OAuth scope: read the served fund's data, over REST and the fund MCP server (docs/oauth.md). */
export const FUND_READ_SCOPE = 'fund:read';

/** What authenticating a request reads through. */
export interface Access {
  /** The `API_KEYS` namespace: SHA-256(key) → key record. */
  keys: KeyValueStore;
  /** The developer console's accounts; without them a console key is refused (fail closed). */
  accounts?: AccountDirectory;
  /**
   * This service's OAuth access tokens, on the surfaces that take them (the fund-data endpoints and the fund
   * MCP server): a bearer value that is not an API key and has an access token's shape is verified by it.
   * Absent elsewhere, and for any other value, such a value is a malformed key.
   */
  token?: TokenVerifier;
}

/** Verifies the service's OAuth access tokens (lib/oauth/resource.ts), handed to {@link authenticate} in {@link Access}. */
export interface TokenVerifier {
  /** True for a value of an access token's shape (only such a value is looked up as a token). Linear in its length. */
  shape(token: string): boolean;
  /**
   * The token's principal: a `fund` principal of its account.
   * @throws {ApiError} 401 / 403 refusals of the token
   */
  verify(token: string): Promise<Principal>;
}

/** The pattern of a bearer credential (RFC 6750 §2.1): the scheme, case-insensitive, then one token. */
const BEARER = /^Bearer +(\S+)\s*$/i;

/**
 * The bearer token of an `Authorization` header value.
 * @returns null when no header (or a blank one) was sent
 * @throws {UnauthorizedError} 401 for a header that is not `Bearer <token>` (another scheme carries no bearer
 *   token: RFC 6750 §3.1 says to answer it without an error code)
 */
export function bearerToken(header: string | undefined | null): string | null {
  if (header === undefined || header === null || header.trim() === '') return null;
  const match = BEARER.exec(header);
  if (!match) throw new UnauthorizedError('Send the key as "Authorization: Bearer svc_dk_...".', /^Bearer\b/i.test(header));
  return match[1]!;
}

/**
 * What an `Authorization` header presents, read without verifying it: nothing; a header that is not
 * `Bearer <token>` (`scheme`); a `Bearer` key (`svc_dk_…`, `wellFormed` when it has a key's shape,
 * lib/keys.ts `KEY_PATTERN`); or another `Bearer` token. The MCP servers word their refusals by it
 * (lib/mcp/refusals.ts): a credential that was sent and is wrong gets a sentence about that credential,
 * never an OAuth challenge.
 */
export type Presented = { kind: 'none' } | { kind: 'scheme' } | { kind: 'key'; wellFormed: boolean } | { kind: 'token'; token: string };

/** What the `Authorization` header presents ({@link Presented}); reads the header only. */
export function presentedCredential(header: string | undefined | null): Presented {
  let token: string | null;
  try {
    token = bearerToken(header);
  } catch {
    return { kind: 'scheme' };
  }
  if (token === null) return { kind: 'none' };
  if (token.startsWith(KEY_PREFIX)) return { kind: 'key', wellFormed: KEY_PATTERN.test(token) };
  return { kind: 'token', token };
}

/**
 * Who a request is, from its `Authorization` header: nobody, the demo key, a stored key (with its console
 * account's standing), or, where `access.token` is given, an access token's account.
 * @returns null when no credential was sent
 * @throws {UnauthorizedError} 401 for a malformed header, a malformed, unknown or revoked key, a key of a
 *   revoked account, or a token `access.token` refuses
 * @throws {ApiError} whatever else `access.token` refuses with (403 for a token without the scope)
 */
export async function authenticate(header: string | undefined | null, access: Access): Promise<Principal | null> {
  const token = bearerToken(header);
  if (token === null) return null;
  if (access.token && !token.startsWith(KEY_PREFIX) && access.token.shape(token)) return access.token.verify(token);
  return verifyKey(token, access.keys, access.accounts);
}
