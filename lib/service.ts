/**
 * The service's HTTP application (Hono): the request pipeline every endpoint goes through, and the route table
 * mounted on it.
 * With lib/registry.ts and lib/worker.ts it is the composition root (docs/architecture.md): it hands each
 * endpoint the catalog of declarations and build outputs, and the authentication step's dependencies
 * (the developer console's accounts), so that no feature imports another's internals or the generated files.
 *
 * Order: request id, security headers and CORS headers, all set on the final answer (and `Cache-Control:
 * private, no-store` on every fund-data answer) → configuration (lib/config.ts; malformed: 500) → CORS
 * preflight (answered 204 without auth; no CORS on the developer console, which is same-origin only) → body cap (1 MiB, 413) → the documentation pages (`/`,
 * `/docs`, `/llms.txt`, `/llms-full.txt`: lib/site/pages.ts) → route dispatch by method (405 with `Allow`)
 * → the endpoint's handler; the developer console (lib/console/app.tsx) is mounted at
 * `/developers/console`. Unknown paths are 404 pointing at the docs. Every error, thrown anywhere, is
 * logged when it must be (lib/log.ts) and rendered once by {@link problemResponse}.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';
import { cors } from 'hono/cors';
import type { AppEnv } from './env.ts';
import { MethodNotAllowedError, NotFoundError, PayloadTooLargeError, problemOf, problemResponse } from './errors.ts';
import { configOf, type OriginList } from './config.ts';
import { logContextOf, logFailure } from './log.ts';
import { MAX_BODY_BYTES, allowedMethods, runOperation, type Catalog, type Method, type RequestContext, type Route } from './endpoint.ts';
import { systemClock, type Clock } from './rate-limit.ts';
import { CATALOG, CONSOLE_CLIENT, SITE_CONTENT } from './registry.ts';
import { mountSite } from './site/pages.ts';
import { mountOAuth } from './oauth/routes.ts';
import { accessTokenVerifier } from './oauth/resource.ts';
import { limitBody } from './body.ts';
import { consoleAccounts } from './console/standing.ts';

/** True for the paths of fund data: the REST endpoints under `/api/v1/fund` and the fund MCP server. */
export function isFundDataPath(path: string): boolean {
  return path === '/api/v1/fund' || path.startsWith('/api/v1/fund/') || path === '/api/mcp' || path === '/api/mcp/';
}
import { CONSOLE_PATH, consoleApp } from './console/app.tsx';

/** Request headers a browser may send (docs/api.md#conventions). */
export const CORS_ALLOW_HEADERS = ['authorization', 'content-type', 'accept', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];
/** Response headers a browser may read (docs/api.md#conventions). */
export const CORS_EXPOSE_HEADERS = ['x-request-id', 'ratelimit', 'ratelimit-policy', 'retry-after', 'www-authenticate', 'mcp-session-id'];

const CORS_EXPOSE_HEADER_VALUE = CORS_EXPOSE_HEADERS.join(',');

/** The `Access-Control-Allow-Origin` for a request's `Origin` (`''` when none): `*`, the origin itself when listed, or null. */
function allowedOrigin(allowed: OriginList, origin: string): string | null {
  return allowed === '*' ? '*' : allowed.includes(origin) ? origin : null;
}

/**
 * The final response's headers, to be changed: a response whose headers are immutable (one from `fetch`, or
 * `Response.redirect`) is replaced by a copy first.
 */
function mutableHeaders(c: Context<AppEnv>): Headers {
  try {
    c.res.headers.set('X-Content-Type-Options', 'nosniff');
  } catch {
    const copy = new Response(c.res.body, c.res);
    // Unset first: hono's setter would otherwise merge the old headers into the copy once more.
    c.res = undefined as unknown as Response;
    c.res = copy;
  }
  return c.res.headers;
}

/** Detail of the 404 of a path the service does not serve. */
export const UNKNOWN_PATH_DETAIL =
  'No resource exists at this path. GET /api/v1/ lists every API operation with its URL; the home page is /, the API reference /docs.';

/**
 * The detail of a 404: a path that is a route but for a trailing slash names the route (paths are matched
 * exactly, so a route's path followed by `/` is not the route); any other path gets
 * {@link UNKNOWN_PATH_DETAIL}. Only a declared route's path is ever written back, never the request's.
 */
export function notFoundDetail(path: string, routes: readonly Route[]): string {
  if (path.length > 1 && path.endsWith('/')) {
    const route = routes.find((r) => r.path === path.slice(0, -1));
    if (route) return `No resource exists at this path: the route is ${route.path}, without the trailing slash.`;
  }
  return UNKNOWN_PATH_DETAIL;
}

/**
 * The authentication step's dependencies in a Worker environment (lib/auth.ts): the key store, and the
 * developer console's accounts, so a console key counts at its account's plan and stops with its account.
 */
export const consoleAccess: RequestContext['access'] = (env) => ({ keys: env.API_KEYS, accounts: consoleAccounts(env.CONSOLE) });

/** This service's OAuth access tokens, verified for a request against its console accounts (lib/oauth/resource.ts). */
export const consoleTokens: RequestContext['tokens'] = (c) => accessTokenVerifier(c, consoleAccounts(c.env.CONSOLE));

/**
 * Every answer's own headers, set once on the final response: request id, nosniff, `private, no-store` on
 * fund data, and CORS (but on a preflight, answered by the pipeline, and on the console, which is
 * same-origin only). Set here rather than by hono's CORS middleware, which made an empty response before the
 * handler ran and so copied every answer twice (its headers merged in, then `Vary` appended): a tenth of a
 * light request.
 */
const answerHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  const requestId = crypto.randomUUID();
  c.set('requestId', requestId);
  await next();
  const headers = mutableHeaders(c);
  headers.set('X-Request-Id', requestId);
  headers.set('X-Content-Type-Options', 'nosniff');
  // Fund data, errors included (and the fund MCP server's JSON-RPC errors), is never stored by a cache.
  if (isFundDataPath(c.req.path) && !headers.get('Cache-Control')?.startsWith('private, no-store')) {
    headers.set('Cache-Control', 'private, no-store');
  }
  // No configuration (it is malformed: a 500): no CORS headers, as no CORS step ran.
  const config = c.get('config') as AppEnv['Variables']['config'] | undefined;
  if (config && c.req.method !== 'OPTIONS' && !c.req.path.startsWith(CONSOLE_PATH)) {
    const origin = allowedOrigin(config.corsOrigins, c.req.header('origin') ?? '');
    if (origin) headers.set('Access-Control-Allow-Origin', origin);
    headers.set('Access-Control-Expose-Headers', CORS_EXPOSE_HEADER_VALUE);
    headers.append('Vary', 'Origin');
  }
};

/**
 * Mounts each route at its path: its operations by method (HEAD as GET), each through its route group's
 * steps (credential, scope, quota) and then its handler; 405 with `Allow` for another method.
 */
function mountRoutes(app: Hono<AppEnv>, routes: readonly Route[], ctx: RequestContext): void {
  for (const route of routes) {
    const allow = allowedMethods(route);
    app.all(route.path, async (c) => {
      const method = c.req.method === 'HEAD' ? 'GET' : (c.req.method as Method);
      const operation = route.endpoint.methods[method];
      if (!operation) throw new MethodNotAllowedError(allow);
      return runOperation(operation, c, ctx);
    });
  }
}

/**
 * Builds the app.
 * @param options.clock the time source (tests inject one to cross a UTC midnight)
 * @param options.routes the route table (defaults to every endpoint under `functions/`, from the catalog)
 * @param options.catalog the declarations and build outputs handed to every endpoint (default: lib/registry.ts)
 */
export function createApp(options: { clock?: Clock; routes?: readonly Route[]; catalog?: Catalog } = {}): Hono<AppEnv> {
  const clock = options.clock ?? systemClock;
  const catalog = options.routes ? { ...(options.catalog ?? CATALOG), routes: options.routes } : (options.catalog ?? CATALOG);
  const routes = catalog.routes;
  const ctx: RequestContext = { clock, catalog, access: consoleAccess, tokens: consoleTokens };
  // TrieRouter: the default router compiles one regular expression of every route on an isolate's first
  // request (a fifth to a third of a first request's CPU in the bench's cold cases); a trie is built as the
  // routes are added and matches paths strictly, as the default does (`/api/mcp/` is not `/api/mcp`;
  // LinearRouter, tried first, matched a trailing slash too).
  const app = new Hono<AppEnv>({ router: new TrieRouter() });

  app.use('*', answerHeaders);

  // The configuration, parsed once per env object; a malformed one fails every request (500, logged).
  app.use('*', async (c, next) => {
    c.set('config', configOf(c.env));
    await next();
  });

  // CORS preflights (204 without auth); the other answers get their CORS headers above.
  const preflight = cors({
    origin: (origin, c) => allowedOrigin(c.get('config').corsOrigins, origin),
    allowMethods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
    allowHeaders: CORS_ALLOW_HEADERS,
    exposeHeaders: CORS_EXPOSE_HEADERS,
    maxAge: 86_400,
  });
  // The developer console is same-origin only (cookies): no CORS there.
  app.use('*', (c, next) => (c.req.method === 'OPTIONS' && !c.req.path.startsWith(CONSOLE_PATH) ? preflight(c, next) : next()));

  app.use(
    '*',
    limitBody(MAX_BODY_BYTES, () => new PayloadTooLargeError(`The request body may be at most ${MAX_BODY_BYTES / 1024 / 1024} MiB.`)),
  );

  mountSite(app, SITE_CONTENT);
  // OAuth 2.1 for the fund MCP server: discovery documents, token, registration (lib/oauth/routes.ts).
  mountOAuth(app);

  mountRoutes(app, routes, ctx);

  app.route(CONSOLE_PATH, consoleApp({ clock, client: CONSOLE_CLIENT, catalog }));

  // A wrong path is where a newcomer looks for the docs: point at them.
  app.notFound((c) => problemResponse(new NotFoundError(notFoundDetail(c.req.path, routes)), c.get('requestId')));
  app.onError((err, c) => {
    const requestId = c.get('requestId');
    logFailure(err, problemOf(err, requestId).error.status, logContextOf(c));
    return problemResponse(err, requestId);
  });
  return app;
}
