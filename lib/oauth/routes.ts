/**
 * The OAuth routes outside the developer console (docs/oauth.md): RFC 9728 protected resource metadata of
 * the fund MCP server (at its path), and the library's authorization server endpoints: RFC 8414
 * metadata, the token endpoint (which also revokes, RFC 7009) and dynamic client registration (RFC 7591).
 * The authorization page is the console's (lib/console/consent.tsx). Served locally to loopback hosts only
 * (421 otherwise, the DNS-rebinding guard of lib/origin.ts), like the MCP servers.
 *
 * What this module adds in front of the library (docs/oauth.md#bounds):
 * - Bounds, checked before the library reads a byte: a body of at most {@link OAUTH_MAX_BODY_BYTES} (413), a
 *   token or revocation form of at most {@link OAUTH_MAX_FORM_FIELDS} fields (400; the library's form
 *   parsing is quadratic in the number of fields: 80,000 fields held the isolate 20 s), and a registration of
 *   bounded shape ({@link registrationIssues}, 400), all problem+json, in time linear in the body.
 * - Client registrations capped per client network and UTC day (429), in an atomic count (lib/atomic.ts).
 * - Token requests capped per client network ({@link OAUTH_TOKEN_BURST_LIMIT} a minute, 429), before the body
 *   is read.
 * - Refresh-token reuse detection (RFC 9700 §4.14.2, OAuth 2.1 §4.3.1): once the library has authenticated
 *   the client and matched the refresh token to its grant, the token is spent in the grant's atomic record
 *   (lib/oauth/refresh.ts); one presented a second time revokes the grant (the library keeps the previous
 *   refresh token valid, on purpose, to recover a lost response). A made-up token touches no record.
 * - Requests on another loopback name (`127.0.0.1`, `[::1]`) are served as the issuer's (`localhost`), and
 *   the library's bodiless refusals (404, 405) become problem+json.
 */
import type { Context, Hono } from 'hono';
import type { AppEnv } from '../env.ts';
import { giveBack, take } from '../atomic.ts';
import { readBoundedBody, readBoundedForm } from '../body.ts';
import {
  MalformedJsonError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  ValidationError,
  type FieldError,
} from '../errors.ts';
import {
  OAUTH_CLIENT_NAME_MAX_CHARS,
  OAUTH_MAX_BODY_BYTES,
  OAUTH_MAX_FORM_FIELDS,
  OAUTH_REDIRECT_URIS_MAX,
  OAUTH_REGISTRATION_MAX_MEMBERS,
  OAUTH_REGISTRATION_MAX_STRING,
  OAUTH_REGISTRATIONS_PER_NETWORK_PER_DAY,
  OAUTH_TOKEN_BURST_LIMIT,
} from '../limits.ts';
import { originPolicy, checkHostAndOrigin, requestHost } from '../origin.ts';
import { BURST_PERIOD_SECONDS, burstHeaders, clientNetwork, secondsToUtcMidnight } from '../rate-limit.ts';
import { pointerToken } from '../validation.ts';
import { metadataUrlRefusal } from './cimd.ts';
import {
  AUTHORIZATION_SERVER_WELL_KNOWN,
  MCP_RESOURCE_PATH,
  PROTECTED_RESOURCE_WELL_KNOWN,
  REGISTER_PATH,
  TOKEN_PATH,
  authorizationServer,
  issuerOf,
  oauthLifetimes,
  protectedResourceMetadata,
} from './provider.ts';
import { LIBRARY_TOKEN_MISMATCH, REFRESH_REUSE_DESCRIPTION, refreshEnv, settleRefresh, staleTokenReused } from './refresh.ts';

export { REFRESH_CONTESTED_DESCRIPTION, REFRESH_REUSE_DESCRIPTION } from './refresh.ts';

/** The request's execution context, or a stand-in where there is none (the app driven by `app.request`). */
function executionContext(c: Context<AppEnv>): ExecutionContext {
  try {
    return c.executionCtx as unknown as ExecutionContext;
  } catch {
    return { waitUntil: () => {}, passThroughOnException: () => {}, props: {} } as unknown as ExecutionContext;
  }
}

/** The 413 of an OAuth request body over {@link OAUTH_MAX_BODY_BYTES}. */
export function oauthBodyTooLarge(): PayloadTooLargeError {
  return new PayloadTooLargeError(`An OAuth request body may be at most ${OAUTH_MAX_BODY_BYTES / 1024} KiB.`);
}

/**
 * Why a client registration is refused before the library reads it, one entry per member: more than
 * {@link OAUTH_REGISTRATION_MAX_MEMBERS} members; a `client_name` (or a localized `client_name#…`) over
 * {@link OAUTH_CLIENT_NAME_MAX_CHARS} characters; more than {@link OAUTH_REDIRECT_URIS_MAX} `redirect_uris`;
 * another array over {@link OAUTH_REGISTRATION_MAX_MEMBERS} items; a string, or an array's string, over
 * {@link OAUTH_REGISTRATION_MAX_STRING} characters. The library checks the metadata's meaning after this.
 * @param metadata the parsed registration object
 * @returns field errors under `/body` (empty when within bounds)
 */
export function registrationIssues(metadata: Record<string, unknown>): FieldError[] {
  const issues: FieldError[] = [];
  const at = (name: string) => `/body/${pointerToken(name)}`;
  const members = Object.keys(metadata);
  if (members.length > OAUTH_REGISTRATION_MAX_MEMBERS) {
    return [{ pointer: '/body', detail: `may have at most ${OAUTH_REGISTRATION_MAX_MEMBERS} members` }];
  }
  for (const name of members) {
    const value = metadata[name];
    const maxString =
      name === 'client_name' || name.startsWith('client_name#') ? OAUTH_CLIENT_NAME_MAX_CHARS : OAUTH_REGISTRATION_MAX_STRING;
    if (typeof value === 'string' && value.length > maxString) issues.push({ pointer: at(name), detail: `length must be ≤ ${maxString}` });
    if (Array.isArray(value)) {
      const maxItems = name === 'redirect_uris' ? OAUTH_REDIRECT_URIS_MAX : OAUTH_REGISTRATION_MAX_MEMBERS;
      if (value.length > maxItems) issues.push({ pointer: at(name), detail: `item count must be ≤ ${maxItems}` });
      else if (value.some((item) => typeof item === 'string' && item.length > OAUTH_REGISTRATION_MAX_STRING)) {
        issues.push({ pointer: at(name), detail: `each item's length must be ≤ ${OAUTH_REGISTRATION_MAX_STRING}` });
      }
    }
  }
  return issues;
}

/** A refresh token's parts (`<userId>:<grantId>:<secret>`, the library's format), or null for another shape. */
function refreshTokenParts(token: string | null): { userId: string; grantId: string } | null {
  const parts = token?.split(':');
  if (parts?.length !== 3 || !parts.every((p) => /^[A-Za-z0-9_-]{1,128}$/.test(p))) return null;
  return { userId: parts[0]!, grantId: parts[1]! };
}

/** An RFC 6749 §5.2 error answer, as the library words its own. */
function oauthError(error: string, description: string): Response {
  return new Response(JSON.stringify({ error, error_description: description }), {
    status: 400,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', Pragma: 'no-cache' },
  });
}

/**
 * Counts one token request of the client's network against the `CONSOLE_BURST` binding, under an action of
 * its own ({@link OAUTH_TOKEN_BURST_LIMIT} per {@link BURST_PERIOD_SECONDS} s).
 * @throws {RateLimitedError} 429 with `Retry-After` and the burst policy's headers
 */
async function tokenBurst(c: Context<AppEnv>): Promise<void> {
  const { success } = await c.env.CONSOLE_BURST.limit({ key: `oauth-token:${clientNetwork(c.req.header('cf-connecting-ip'))}` });
  if (success) return;
  const err = new RateLimitedError('Too many token requests from this network in a short time; slow down.', BURST_PERIOD_SECONDS);
  Object.assign(err.headers, burstHeaders(OAUTH_TOKEN_BURST_LIMIT));
  throw err;
}

/** Whether the library refused a refresh token as not matching its (existing) grant. */
async function tokenMismatch(answer: Response): Promise<boolean> {
  if (answer.status !== 400) return false;
  try {
    const body = (await answer.clone().json()) as { error?: unknown; error_description?: unknown };
    return body.error === 'invalid_grant' && body.error_description === LIBRARY_TOKEN_MISMATCH;
  } catch {
    return false;
  }
}

/**
 * A token request through the library. A `refresh_token` grant's token is checked for reuse inside the
 * library's refresh, once the client authenticated and the grant was found (lib/oauth/refresh.ts); here the
 * library is handed that request's own `env`, and the spent token is settled with the library's answer: spent
 * for good when the exchange succeeded, given back when it did not. If the token was presented again during
 * the exchange, the grant is revoked and the new tokens are revoked with it, not answered. A token the
 * library refuses as no longer its grant's (rotated two or more times since) is looked up in the grant's
 * record without writing: spent there before, it is a reuse too, and the grant is revoked.
 */
async function tokenRequest(c: Context<AppEnv>, request: Request, form: URLSearchParams): Promise<Response> {
  const server = await authorizationServer(c);
  const presented = form.get('grant_type') === 'refresh_token' ? form.get('refresh_token') : null;
  const parts = refreshTokenParts(presented);
  if (!parts) return server.fetch(request, c.env, executionContext(c));
  // The record may be forgotten once the grant has expired: at most the refresh lifetime from now.
  const until = Date.now() + (oauthLifetimes(c.env).refreshTokenTTL + 86_400) * 1000;
  const env = refreshEnv(c.env, presented!, until);
  let answer: Response;
  try {
    answer = await server.fetch(request, env, executionContext(c));
  } catch (err) {
    await settleRefresh(env, false);
    throw err;
  }
  if (
    (await settleRefresh(env, answer.ok)) ||
    ((await tokenMismatch(answer)) && (await staleTokenReused(c.env, presented!, parts.userId, parts.grantId)))
  ) {
    await server.getOAuthApi(c.env).revokeGrant(parts.grantId, parts.userId);
    return oauthError('invalid_grant', REFRESH_REUSE_DESCRIPTION);
  }
  return answer;
}

/**
 * A client registration through the library, within bounds and the per-network daily cap.
 * @throws {MalformedJsonError} 400 for a body that is not a JSON object
 * @throws {ValidationError} 400 for metadata out of bounds ({@link registrationIssues})
 * @throws {RateLimitedError} 429 once the network registered its daily number of clients
 */
async function registration(c: Context<AppEnv>, request: Request, bytes: Uint8Array): Promise<Response> {
  let metadata: unknown;
  try {
    metadata = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new MalformedJsonError('The registration must be a JSON object (RFC 7591).');
  }
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw new MalformedJsonError('The registration must be a JSON object (RFC 7591).');
  }
  const issues = registrationIssues(metadata as Record<string, unknown>);
  if (issues.length > 0) throw new ValidationError(issues, 'The registration is out of bounds; see errors[].');
  const now = new Date();
  const counter = `oauth-registrations:${clientNetwork(c.req.header('cf-connecting-ip'))}:${now.toISOString().slice(0, 10)}`;
  const untilMidnight = secondsToUtcMidnight(now);
  const { ok } = await take(c.env.ATOMIC, counter, OAUTH_REGISTRATIONS_PER_NETWORK_PER_DAY, now.getTime() + (untilMidnight + 3600) * 1000);
  if (!ok) {
    throw new RateLimitedError(
      `This network registered ${OAUTH_REGISTRATIONS_PER_NETWORK_PER_DAY} OAuth clients today; register again after 00:00 UTC.`,
      untilMidnight,
    );
  }
  const answer = await (await authorizationServer(c)).fetch(request, c.env, executionContext(c));
  if (!answer.ok) await giveBack(c.env.ATOMIC, counter);
  return answer;
}

/**
 * The library's answer for an endpoint, the request bounded first. The library is handed a copy of the
 * request on the issuer's origin (a local request to `127.0.0.1` is the issuer's, `localhost`, to it) with
 * the body already read here.
 */
async function authorizationServerAnswer(c: Context<AppEnv>, path: string): Promise<Response> {
  const incoming = c.req.raw;
  const url = new URL(c.req.url);
  const target = new URL(`${url.pathname}${url.search}`, issuerOf(c)).toString();
  if (incoming.method !== 'POST' || path === AUTHORIZATION_SERVER_WELL_KNOWN) {
    return (await authorizationServer(c)).fetch(new Request(target, incoming), c.env, executionContext(c));
  }
  if (path === TOKEN_PATH) await tokenBurst(c);
  // The body is sent on as read: its framing headers describe the original.
  const headers = new Headers(incoming.headers);
  headers.delete('content-length');
  headers.delete('transfer-encoding');
  const form = (incoming.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase() === 'application/x-www-form-urlencoded';
  if (path === TOKEN_PATH && form) {
    const { text, form: fields } = await readBoundedForm(incoming, OAUTH_MAX_BODY_BYTES, OAUTH_MAX_FORM_FIELDS, oauthBodyTooLarge);
    // A client id naming a metadata document on an address that is not public is never fetched (lib/oauth/cimd.ts).
    const refused = metadataUrlRefusal(fields.get('client_id') ?? '');
    if (refused) return oauthError('invalid_client', refused);
    return tokenRequest(c, new Request(target, { method: 'POST', headers, body: text }), fields);
  }
  const bytes = await readBoundedBody(incoming, OAUTH_MAX_BODY_BYTES, oauthBodyTooLarge);
  const request = new Request(target, { method: 'POST', headers, body: bytes });
  // The library parses a registration as JSON whatever its Content-Type: so is it bounded here.
  if (path === REGISTER_PATH) return registration(c, request, bytes);
  return (await authorizationServer(c)).fetch(request, c.env, executionContext(c));
}

/** Mounts the routes on the app (before the route table). */
export function mountOAuth(app: Hono<AppEnv>): void {
  // At the resource's path only (RFC 9728 §3.1). No path-less copy: it would describe `/api/mcp` at the URL of
  // the origin's own document, and clients of the public server that look there were sent to the fund
  // server's OAuth (docs/oauth.md#roles-and-names).
  app.get(`${PROTECTED_RESOURCE_WELL_KNOWN}${MCP_RESOURCE_PATH}`, (c) => {
    checkHostAndOrigin(c.env, requestHost(c.req.raw), undefined);
    // Deployed, the document is the same for every request; locally it names the request's loopback host.
    const cache = originPolicy(c.env).publicOrigin ? 'public, max-age=300' : 'no-store';
    return c.json(protectedResourceMetadata(c), 200, { 'Cache-Control': cache });
  });
  for (const path of [AUTHORIZATION_SERVER_WELL_KNOWN, TOKEN_PATH, REGISTER_PATH]) {
    app.all(path, async (c) => {
      checkHostAndOrigin(c.env, requestHost(c.req.raw), undefined);
      const res = await authorizationServerAnswer(c, path);
      // The library answers some refusals without a body: they get the service's problem+json.
      if (res.status === 405 && !res.headers.get('content-type')) {
        throw new MethodNotAllowedError((res.headers.get('allow') ?? 'GET, HEAD').split(/,\s*/).filter((m) => m !== 'OPTIONS'));
      }
      if (res.status === 404 && !res.headers.get('content-type')) throw new NotFoundError('No OAuth endpoint answers at this URL.');
      const out = new Response(res.body, res);
      if (path !== AUTHORIZATION_SERVER_WELL_KNOWN) out.headers.set('Cache-Control', 'no-store');
      return out;
    });
  }
}
