/**
 * The Hono application: the request pipeline every endpoint goes through, and the route table mounted on it.
 *
 * Order: request id and security headers → CORS (preflight answered 204 without auth; not on the developer
 * console) → body cap (1 MiB, 413) → route dispatch by method (405 with `Allow`) → the endpoint's handler;
 * the developer console (lib/console/app.tsx) is mounted at `/developers/console`. Unknown paths are 404.
 * Every error, thrown anywhere, is rendered once by {@link problemResponse}.
 */
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { bodyLimit } from 'hono/body-limit';
import type { AppEnv } from './env.ts';
import { MethodNotAllowedError, NotFoundError, PayloadTooLargeError, problemResponse } from './errors.ts';
import { MAX_BODY_BYTES, allowedMethods, type Method, type Route } from './endpoint.ts';
import { systemClock, type Clock } from './rate-limit.ts';
import { ROUTES } from './routes.ts';
import { CONSOLE_PATH, consoleApp } from './console/app.tsx';

/** Request headers a browser may send (contract §0). */
export const CORS_ALLOW_HEADERS = ['authorization', 'content-type', 'accept', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];
/** Response headers a browser may read (contract §0). */
export const CORS_EXPOSE_HEADERS = ['x-request-id', 'ratelimit', 'ratelimit-policy', 'retry-after', 'www-authenticate', 'mcp-session-id'];

/**
 * Builds the app.
 * @param options.clock the time source (tests inject one to cross a UTC midnight)
 * @param options.routes the route table (defaults to every endpoint under `functions/`)
 */
export function createApp(options: { clock?: Clock; routes?: readonly Route[] } = {}): Hono<AppEnv> {
  const clock = options.clock ?? systemClock;
  const routes = options.routes ?? ROUTES;
  const app = new Hono<AppEnv>();

  app.use('*', async (c, next) => {
    const requestId = crypto.randomUUID();
    c.set('requestId', requestId);
    await next();
    c.res.headers.set('X-Request-Id', requestId);
    c.res.headers.set('X-Content-Type-Options', 'nosniff');
  });

  const corsMiddleware = cors({
    origin: (origin, c) => {
      const allowed = (c.env?.CORS_ORIGINS ?? '*').split(',').map((o: string) => o.trim());
      return allowed.includes('*') ? '*' : allowed.includes(origin) ? origin : null;
    },
    allowMethods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
    allowHeaders: CORS_ALLOW_HEADERS,
    exposeHeaders: CORS_EXPOSE_HEADERS,
    maxAge: 86_400,
  });
  // The developer console is same-origin only (cookies): no CORS there.
  app.use('*', (c, next) => (c.req.path.startsWith(CONSOLE_PATH) ? next() : corsMiddleware(c, next)));

  app.use(
    '*',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new PayloadTooLargeError('The request body may be at most 1 MiB.');
      },
    }),
  );

  for (const route of routes) {
    const allow = allowedMethods(route);
    app.all(route.path, async (c) => {
      const method = c.req.method === 'HEAD' ? 'GET' : (c.req.method as Method);
      const operation = route.endpoint.methods[method];
      if (!operation) throw new MethodNotAllowedError(allow);
      return operation.handle(c, { clock, routes });
    });
  }

  app.route(CONSOLE_PATH, consoleApp({ clock }));

  app.notFound((c) => problemResponse(new NotFoundError(), c.get('requestId')));
  app.onError((err, c) => problemResponse(err, c.get('requestId')));
  return app;
}
