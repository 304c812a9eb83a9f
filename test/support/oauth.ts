/**
 * Helpers of the OAuth tests through the app: an `OAUTH_KV` in memory that answers `get(…, { type: 'json' })`
 * as KV does, PKCE pairs, and the steps of the authorization code flow (registration, the console's consent
 * page, the token endpoint).
 */
import { generateSignedCookie } from 'hono/cookie';
import type { Hono } from 'hono';
import { createAccount, createSession, saveAccount } from '../../lib/console/accounts.ts';
import { csrfToken, SESSION_COOKIE } from '../../lib/console/app.tsx';
import { MemoryKv, fakeEnv } from './fakes.ts';

/**
 * `OAUTH_KV` in memory: values as text, or parsed with `{ type: 'json' }`; a value put with `expirationTtl`
 * is gone once that many seconds have passed on `Date.now()` (as KV expires it; the library relies on it for
 * the 10-minute life of an authorization code).
 */
export class JsonKv extends MemoryKv {
  readonly expiresAt = new Map<string, number>();
  override async put(key: string, value: string, options: { metadata?: unknown; expirationTtl?: number } = {}): Promise<void> {
    await super.put(key, value, options);
    if (options.expirationTtl !== undefined) this.expiresAt.set(key, Date.now() + options.expirationTtl * 1000);
    else this.expiresAt.delete(key);
  }
  override async get(key: any, options?: { type?: string } | string): Promise<any> {
    if (Array.isArray(key)) return super.get(key);
    const expires = this.expiresAt.get(key);
    if (expires !== undefined && Date.now() >= expires) this.data.delete(key);
    const text = await super.get(key as string);
    const type = typeof options === 'string' ? options : options?.type;
    return text !== null && type === 'json' ? JSON.parse(text) : text;
  }
}

export const ORIGIN = 'http://localhost:8787';
/** The fund MCP server's resource when addressed as 127.0.0.1 (what `npm run dev` prints). */
export const MCP_URL = 'http://127.0.0.1:8787/api/mcp';
export const REDIRECT_URI = 'http://127.0.0.1:9999/callback';
export const SECRET = 'oauth-test-secret-'.padEnd(40, 'x');

/** Fresh bindings, with `OAUTH_KV`. */
export function oauthEnv(overrides: Parameters<typeof fakeEnv>[0] = {}) {
  const f = fakeEnv({ CONSOLE_SESSION_SECRET: SECRET, ...overrides });
  const OAUTH_KV = new JsonKv();
  const env = { ...(f.env as object), OAUTH_KV } as unknown as typeof f.env;
  return { ...f, env, OAUTH_KV };
}

/** A PKCE verifier and its S256 challenge (RFC 7636 §4). */
export async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const b64url = (bytes: Uint8Array) =>
    btoa(String.fromCharCode(...bytes))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = b64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  return { verifier, challenge };
}

/** A console account (with the served fund unless `calcOnly`) and its signed-in session cookie. */
export async function developer(CONSOLE: MemoryKv, options: { calcOnly?: boolean } = {}) {
  let account = await createAccount(CONSOLE, 'handle');
  if (!options.calcOnly) {
    account = { ...account, fundIds: ['sample-fund'] };
    await saveAccount(CONSOLE, account);
  }
  const { sessionId } = await createSession(CONSOLE, account.accountId);
  const cookie = (await generateSignedCookie(SESSION_COOKIE, sessionId, SECRET)).split(';')[0]!;
  return { account, sessionId, cookie, csrf: await csrfToken(SECRET, sessionId) };
}

type App = Hono<any>;
type Env = ReturnType<typeof oauthEnv>['env'];

/** Registers a public client (RFC 7591). @returns its `client_id` */
export async function register(app: App, env: Env, body: Record<string, unknown> = {}): Promise<string> {
  const res = await app.request(
    `${ORIGIN}/oauth/register`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT_URI], client_name: 'Test Client', token_endpoint_auth_method: 'none', ...body }),
    },
    env,
  );
  if (res.status !== 201) throw new Error(`registration: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { client_id: string }).client_id;
}

/** The authorization URL of a request (parameters overridable; `null` drops one). */
export function authorizeUrl(clientId: string, challenge: string, params: Record<string, string | null> = {}): string {
  const url = new URL(`${ORIGIN}/developers/console/oauth/authorize`);
  const all: Record<string, string | null> = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'state-123',
    scope: 'fund:read',
    resource: MCP_URL,
    ...params,
  };
  for (const [k, v] of Object.entries(all)) if (v !== null) url.searchParams.set(k, v);
  return url.toString();
}

/** Opens the consent page signed in. @returns the response, its HTML, the form's handle and the binding cookie */
export async function openConsent(app: App, env: Env, url: string, session: { cookie: string }) {
  const res = await app.request(url, { headers: { cookie: session.cookie } }, env);
  const html = await res.text();
  const handle = /name="handle" value="([^"]+)"/.exec(html)?.[1];
  const setCookies = (res.headers as unknown as { getSetCookie(): string[] }).getSetCookie();
  const binding = setCookies.map((c) => c.split(';')[0]!).filter((c) => c.startsWith('__Host-oauth-'));
  return { res, html, handle, binding };
}

/** Posts the consent form. */
export async function decide(
  app: App,
  env: Env,
  url: string,
  session: { cookie: string; csrf: string },
  handle: string,
  binding: string[],
  decision: 'approve' | 'deny',
) {
  const body = new URLSearchParams({ handle, csrf: session.csrf, decision });
  return app.request(
    url,
    {
      method: 'POST',
      headers: { cookie: [session.cookie, ...binding].join('; '), 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
      body,
    },
    env,
  );
}

/** Posts to the token endpoint (form-encoded). */
export async function token(app: App, env: Env, params: Record<string, string>): Promise<Response> {
  return app.request(
    `${ORIGIN}/oauth/token`,
    { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params) },
    env,
  );
}

/** Registration, consent (approved) and the code: everything up to the token request. */
export async function codeFor(app: App, env: Env, session: Awaited<ReturnType<typeof developer>>) {
  const clientId = await register(app, env);
  const { verifier, challenge } = await pkce();
  const url = authorizeUrl(clientId, challenge);
  const page = await openConsent(app, env, url, session);
  const res = await decide(app, env, url, session, page.handle!, page.binding, 'approve');
  const location = new URL(res.headers.get('location') ?? 'http://invalid/');
  return { clientId, verifier, code: location.searchParams.get('code'), location, res };
}

/** What a code exchange needs: the client, the PKCE verifier and the code (`codeFor` returns them). */
export type CodeGrant = { clientId: string; verifier: string; code: string | null };

/**
 * Exchanges an authorization code for tokens at the token endpoint (RFC 6749 §4.1.3 with the PKCE verifier of
 * RFC 7636 §4.5), for the fund MCP server's resource (RFC 8707); `over` replaces or adds parameters.
 */
export function exchangeCode(app: App, env: Env, grant: CodeGrant, over: Record<string, string> = {}): Promise<Response> {
  return token(app, env, {
    grant_type: 'authorization_code',
    code: grant.code!,
    redirect_uri: REDIRECT_URI,
    client_id: grant.clientId,
    code_verifier: grant.verifier,
    resource: MCP_URL,
    ...over,
  });
}

/** The token endpoint's answer to a code or refresh grant (RFC 6749 §5.1). */
export type TokenBody = { access_token: string; refresh_token: string; token_type: string; expires_in: number; scope: string };

/**
 * A signed-in developer's tokens after a full code flow (registration, approved consent, code exchange) on
 * fresh bindings (`overrides` as `oauthEnv` takes them). @throws when the exchange is not a 200
 * @returns the bindings, the session, the client and the token body
 */
export async function codeFlowTokens(app: App, overrides: Parameters<typeof oauthEnv>[0] = {}) {
  const f = oauthEnv(overrides);
  const session = await developer(f.CONSOLE);
  const grant = await codeFor(app, f.env, session);
  const res = await exchangeCode(app, f.env, grant);
  if (res.status !== 200) throw new Error(`code exchange: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as TokenBody;
  return { ...f, session, clientId: grant.clientId, body };
}

/** The console's page of the applications an account has authorized, signed in. @returns its HTML */
export async function applicationsPage(app: App, env: Env, session: { cookie: string }): Promise<string> {
  return (await app.request(`${ORIGIN}/developers/console/oauth/applications`, { headers: { cookie: session.cookie } }, env)).text();
}

/** The first grant the applications page lists (its revoke form's `grant`). @throws when it lists none */
export function firstGrant(page: string): string {
  const grant = /name="grant" value="([^"]+)"/.exec(page)?.[1];
  if (grant === undefined) throw new Error('the applications page lists no grant');
  return grant;
}

/** Posts the applications page's revoke form for `grant`, with `csrf` as the form's token. */
export async function revokeInConsole(app: App, env: Env, session: { cookie: string }, grant: string, csrf: string): Promise<Response> {
  return app.request(
    `${ORIGIN}/developers/console/oauth/applications/revoke`,
    {
      method: 'POST',
      headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant, csrf }),
    },
    env,
  );
}

/**
 * The client ID metadata document a conforming public client publishes at `clientId` (its `client_id` is
 * that URL, its one redirect URI {@link REDIRECT_URI}); `overrides` replace or add members.
 */
export function clientMetadataDocument(clientId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    client_id: clientId,
    client_name: 'Metadata Client',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...overrides,
  };
}

/**
 * {@link exchangeCode} over HTTP, against a running Worker at `base` (workerd tests): the code for tokens,
 * with the PKCE verifier, the resource left to the grant.
 */
export function exchangeCodeAt(base: string, grant: { clientId: string; code: string; verifier: string }): Promise<Response> {
  return fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: REDIRECT_URI,
      client_id: grant.clientId,
      code_verifier: grant.verifier,
    }),
  });
}
