/**
 * The service as its own OAuth 2.1 authorization server for the fund MCP server (docs/oauth.md), on
 * `@cloudflare/workers-oauth-provider`'s `OAuthAuthorizationServer` (pinned: its option and helper names are
 * used directly). The library serves authorization server metadata (RFC 8414), dynamic client registration
 * (RFC 7591), the token endpoint (authorization code with PKCE S256 only, refresh with rotation) and
 * revocation (RFC 7009, at the token endpoint), stores clients, grants and tokens hashed in the `OAUTH_KV`
 * namespace, and binds every token to one resource (RFC 8707). This module only decides the names:
 *
 * - issuer: `PUBLIC_ORIGIN`; locally (no `PUBLIC_ORIGIN`), `http://localhost:<port>` whatever loopback host
 *   the request used, because the authorization page is the developer console's, whose passkeys refuse an
 *   IP address (lib/console/config.ts).
 * - resource: `<origin>/api/mcp`, `<origin>` being {@link publicOrigin} (locally the request's loopback
 *   origin, so `http://127.0.0.1:8787/api/mcp` and `http://localhost:8787/api/mcp` are two resources, and a
 *   token for one is refused at the other).
 * - scope: {@link FUND_READ_SCOPE}, "read this fund's data".
 *
 * The library's instances are fixed to their issuer and resources at construction: one per issuer is kept
 * per isolate (a deployment has one; local development one per port). The library is imported on first use,
 * so an isolate serving no OAuth request never evaluates it (Worker startup CPU).
 */
import type { Context } from 'hono';
import type { OAuthAuthorizationServer, ValidatedAccessToken } from '@cloudflare/workers-oauth-provider';
import type { AppEnv, Env } from '../env.ts';
import { configOf } from '../config.ts';
import { originPolicy, publicOrigin } from '../origin.ts';
import { refreshTokenCheck } from './refresh.ts';
import { guardMetadataFetch } from './cimd.ts';
import { FUND_READ_SCOPE } from '../auth.ts';

/** The one scope: read the served fund's data (the fund MCP server and the REST fund endpoints), lib/auth.ts. */
export { FUND_READ_SCOPE } from '../auth.ts';
/** Path of the fund MCP server, the one protected resource. */
export const MCP_RESOURCE_PATH = '/api/mcp';
/** Where the authorization page is: the developer console's. */
export const AUTHORIZE_PATH = '/developers/console/oauth/authorize';
/** The token endpoint (also revocation, RFC 7009). */
export const TOKEN_PATH = '/oauth/token';
/** Dynamic client registration (RFC 7591). */
export const REGISTER_PATH = '/oauth/register';
/** RFC 9728 protected resource metadata, path-less (the document of the fund MCP server is under it + `/api/mcp`). */
export const PROTECTED_RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';
/** RFC 8414 authorization server metadata. */
export const AUTHORIZATION_SERVER_WELL_KNOWN = '/.well-known/oauth-authorization-server';

export { DEFAULT_ACCESS_TOKEN_TTL, DEFAULT_REFRESH_TOKEN_TTL } from '../config.ts';

/** What an access token of this service carries, encrypted in its grant: the developer-console account. */
export interface FundTokenProps {
  /** The console account that approved the grant (`acct_...`). */
  accountId: string;
}

/** Token lifetimes, seconds. */
export interface OAuthLifetimes {
  accessTokenTTL: number;
  refreshTokenTTL: number;
}

/**
 * Token lifetimes, as lib/config.ts parsed `OAUTH_ACCESS_TOKEN_TTL` and `OAUTH_REFRESH_TOKEN_TTL` with every
 * other variable (a malformed one fails every request of the service, not only OAuth's).
 * @throws {ConfigInvalidError} for a malformed configuration (answered 500, logged `config_invalid`)
 */
export function oauthLifetimes(env: Env): OAuthLifetimes {
  const config = configOf(env);
  return { accessTokenTTL: config.oauthAccessTokenTtl, refreshTokenTTL: config.oauthRefreshTokenTtl };
}

/** The authorization server's issuer for a request: `PUBLIC_ORIGIN`, or locally the request's origin on `localhost`. */
export function issuerOf(c: { env: Env; req: { url: string } }): string {
  const configured = originPolicy(c.env).publicOrigin;
  if (configured) return configured;
  const url = new URL(c.req.url);
  return `${url.protocol}//localhost${url.port ? `:${url.port}` : ''}`;
}

/** The canonical resource identifier of the fund MCP server for a request (RFC 8707 / RFC 9728). */
export function resourceOf(c: { env: Env; req: { url: string } }): string {
  return `${publicOrigin(c)}${MCP_RESOURCE_PATH}`;
}

/** Every resource an issuer serves: its own origin's, and locally the other loopback spellings of it. */
function resourcesOf(issuer: string, local: boolean): string[] {
  if (!local) return [`${issuer}${MCP_RESOURCE_PATH}`];
  const url = new URL(issuer);
  const port = url.port ? `:${url.port}` : '';
  return ['localhost', '127.0.0.1', '[::1]'].map((host) => `${url.protocol}//${host}${port}${MCP_RESOURCE_PATH}`);
}

/** Built servers by issuer and lifetimes: plain objects, each built by the request that needed it (none awaits another's). */
const servers = new Map<string, OAuthAuthorizationServer<Env>>();

/**
 * The authorization server of a request's issuer (built once per issuer, lifetimes and isolate).
 * @throws {ConfigInvalidError} for malformed token lifetimes
 */
export async function authorizationServer(c: { env: Env; req: { url: string } }): Promise<OAuthAuthorizationServer<Env>> {
  // The library's metadata document fetch follows no redirect (lib/oauth/cimd.ts); before any library call.
  guardMetadataFetch();
  const issuer = issuerOf(c);
  const lifetimes = oauthLifetimes(c.env);
  const cacheKey = `${issuer} ${lifetimes.accessTokenTTL} ${lifetimes.refreshTokenTTL}`;
  let server = servers.get(cacheKey);
  if (!server) {
    const local = originPolicy(c.env).publicOrigin === null;
    const resources = resourcesOf(issuer, local);
    const { OAuthAuthorizationServer } = await import('@cloudflare/workers-oauth-provider');
    server = new OAuthAuthorizationServer<Env>({
      issuer,
      resources,
      authorizeEndpoint: AUTHORIZE_PATH,
      tokenEndpoint: TOKEN_PATH,
      clientRegistrationEndpoint: REGISTER_PATH,
      scopesSupported: [FUND_READ_SCOPE],
      accessTokenTTL: lifetimes.accessTokenTTL,
      refreshTokenTTL: lifetimes.refreshTokenTTL,
      // Client ID Metadata Documents: a client identified by the https URL of its document needs no
      // registration (dynamic registration stays, the fallback). The library bounds the fetch; the runtime's
      // global_fetch_strictly_public flag (wrangler.toml) keeps it to public addresses, and lib/oauth/cimd.ts
      // refuses a URL written with an address or name that is not public before it is fetched, and makes the
      // fetch follow no redirect (guardMetadataFetch, above).
      clientIdMetadataDocumentEnabled: true,
      // Refresh-token reuse detection, once the library has authenticated the client and found the grant.
      tokenExchangeCallback: refreshTokenCheck,
    });
    if (servers.size >= 16) servers.delete(servers.keys().next().value!);
    servers.set(cacheKey, server);
  }
  return server;
}

/**
 * Validates an access token for the fund MCP server at the request's resource.
 * @returns the token's account, scopes and client, or null for a token that is unknown, expired, revoked or
 *   issued for another resource (one answer, so nothing tells them apart)
 */
export async function validateAccessToken(c: Context<AppEnv>, token: string): Promise<ValidatedAccessToken<FundTokenProps> | null> {
  return (await authorizationServer(c)).validateToken<FundTokenProps>(resourceOf(c), token, c.env);
}

/** The RFC 9728 document of the fund MCP server for a request. */
export function protectedResourceMetadata(c: { env: Env; req: { url: string } }): Record<string, unknown> {
  return {
    resource: resourceOf(c),
    authorization_servers: [issuerOf(c)],
    scopes_supported: [FUND_READ_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'fund-edge fund data (MCP)',
  };
}

/** URL of the fund MCP server's protected resource metadata (RFC 9728 §3.1: the well-known prefix, then the path). */
export function resourceMetadataUrl(c: { env: Env; req: { url: string } }): string {
  return `${publicOrigin(c)}${PROTECTED_RESOURCE_WELL_KNOWN}${MCP_RESOURCE_PATH}`;
}
