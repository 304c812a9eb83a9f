/**
 * What every developer-console request passes before its route (docs/console.md): hono's `secure-headers`
 * (a Content-Security-Policy with no inline script and `frame-ancestors 'none'`, nosniff,
 * `Referrer-Policy: no-referrer`), the console's Host guard and configuration (lib/console/config.ts), the
 * session from its signed cookie, `Cache-Control: no-store` on the answer, and for the JSON API under
 * `/api/` the body cap and the CSRF guard. Mounted first by the console app (lib/console/app.tsx).
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { getSignedCookie } from 'hono/cookie';
import { csrf } from 'hono/csrf';
import { HTTPException } from 'hono/http-exception';
import { secureHeaders } from 'hono/secure-headers';
import { limitBody } from '../body.ts';
import { ApiError, PayloadTooLargeError } from '../errors.ts';
import { constantTimeEqual } from '../keys.ts';
import type { Clock } from '../rate-limit.ts';
import { readSession } from './accounts.ts';
import { consoleHostCheck, consoleOriginCheck, consoleSettings } from './config.ts';
import { csrfToken, type ConsoleEnv } from './session.ts';
import { oauthFormAction } from './consent.tsx';

/** Name of the session cookie (`__Host-` prefixed when the cookie is Secure). */
export const SESSION_COOKIE = 'fe_console_session';
/** Largest body a console endpoint accepts, bytes (a passkey response is a few KiB). */
export const CONSOLE_MAX_BODY_BYTES = 64 * 1024;

/** 403 `csrf_failed`: a state-changing request without the console's Origin or the session's CSRF token. */
export class CsrfError extends ApiError {
  constructor() {
    super('csrf_failed', 'The request did not come from the developer console page; reload it and try again.');
    this.name = 'CsrfError';
  }
}

/**
 * The console's CSRF guard for `POST /api/*`: hono's `csrf` (form posts from other origins), the request's
 * `Origin` equal to the console's (or, without an `Origin`, `Sec-Fetch-Site: same-origin`), and, with a
 * session, `X-CSRF-Token` equal to the session's token.
 * @throws {CsrfError} 403 `csrf_failed`
 */
function csrfGuard(): MiddlewareHandler<ConsoleEnv> {
  return async (c, next) => {
    const config = c.get('consoleConfig');
    const formCheck = csrf({ origin: config.origin });
    try {
      await formCheck(c, async () => {});
    } catch (err) {
      if (err instanceof HTTPException) throw new CsrfError();
      throw err;
    }
    if (!consoleOriginCheck({ origin: c.req.header('origin'), secFetchSite: c.req.header('sec-fetch-site') }, config))
      throw new CsrfError();
    const session = c.get('session');
    if (session) {
      const sent = c.req.header('x-csrf-token') ?? '';
      if (!constantTimeEqual(sent, await csrfToken(config.sessionSecret, session.sessionId))) throw new CsrfError();
    }
    await next();
  };
}

/**
 * What every console request passes first: security headers, the Host check and configuration, the session
 * from its cookie (and `Cache-Control: no-store` on the answer), then for `/api/*` the body cap and the CSRF
 * guard.
 */
export function useConsolePipeline(app: Hono<ConsoleEnv>, clock: Clock): void {
  app.use(
    '*',
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        connectSrc: ["'self'"],
        // The OAuth consent form redirects to the client (lib/console/consent.tsx): its origin is allowed there.
        formAction: ["'self'", (c) => oauthFormAction(c)],
        baseUri: ["'none'"],
        frameAncestors: ["'none'"],
      },
      referrerPolicy: 'no-referrer',
      xFrameOptions: 'DENY',
      crossOriginOpenerPolicy: 'same-origin',
      permissionsPolicy: { camera: [], microphone: [], geolocation: [] },
    }),
  );

  app.use('*', async (c, next) => {
    const settings = consoleSettings(c.env);
    c.set('consoleSettings', settings);
    const decision = consoleHostCheck(new URL(c.req.url), settings);
    if (!decision.ok) {
      c.header('Cache-Control', 'no-store');
      return c.redirect(decision.redirect, 308);
    }
    const config = decision.config;
    c.set('consoleConfig', config);
    const signed = await getSignedCookie(c, config.sessionSecret, SESSION_COOKIE, config.secureCookies ? 'host' : undefined);
    const found = typeof signed === 'string' ? await readSession(c.env.CONSOLE, signed, clock()) : null;
    c.set('session', found ? { sessionId: signed as string, account: found.account } : null);
    await next();
    c.res.headers.set('Cache-Control', 'no-store');
  });

  app.use(
    '/api/*',
    limitBody(CONSOLE_MAX_BODY_BYTES, () => new PayloadTooLargeError('A developer console request body may be at most 64 KiB.')),
  );
  app.use('/api/*', csrfGuard());
}
