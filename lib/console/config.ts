/**
 * The developer console's configuration, read in one place: where it is served (relying-party id and
 * origin for passkeys, cookie security) and the session secret (docs/console.md). Its path and the plans are
 * lib/identity.ts's, which the other surfaces share.
 */
import { configOf } from '../config.ts';
import { ApiError } from '../errors.ts';
import { isLoopbackHost } from '../origin.ts';

/** The console's view of the request's deployment. */
export interface ConsoleConfig {
  /** WebAuthn relying-party id: a host name, never an IP address. */
  rpId: string;
  /** The origin passkey ceremonies and state-changing requests must come from, e.g. `http://localhost:8787`. */
  origin: string;
  /** True when served on loopback without `PUBLIC_ORIGIN` (local development). */
  local: boolean;
  /** Whether cookies carry `Secure` (all but loopback http). */
  secureCookies: boolean;
  /** The session-signing secret. */
  sessionSecret: string;
}

/** The console's answer to a request on the wrong host: 403 or a redirect to the canonical one. */
export type HostDecision = { ok: true; config: ConsoleConfig } | { ok: false; redirect: string };

let isolateSecret: string | undefined;

/** 503 `not_configured`: the console is deployed without the settings it needs (fail closed). */
export class ConsoleNotConfiguredError extends ApiError {
  constructor(detail: string) {
    super('not_configured', detail);
    this.name = 'ConsoleNotConfiguredError';
  }
}

/** 403 `origin_not_allowed` for a request to the console on a host it does not serve. */
export class ConsoleHostError extends ApiError {
  constructor() {
    super('origin_not_allowed', 'The developer console is not served on this host.');
    this.name = 'ConsoleHostError';
  }
}

/** The console's settings from the Worker's environment (wrangler.toml `[vars]` and secrets). */
export interface ConsoleSettings {
  /** `PUBLIC_ORIGIN`, parsed: the service's public origin, or null when unset (local development). */
  publicOrigin: URL | null;
  /** `CONSOLE_SESSION_SECRET`, or null when unset or blank. */
  sessionSecret: string | null;
  /** `DOCS_URL`: a link to the API documentation for the page header, or null. */
  docsUrl: string | null;
}

/**
 * Reads the console's settings: `PUBLIC_ORIGIN` (validated with every other variable by lib/config.ts),
 * `CONSOLE_SESSION_SECRET` and `DOCS_URL`. The one place the console reads its configuration.
 * @throws {ConfigInvalidError} when `PUBLIC_ORIGIN` is not an origin (answered 500, logged `config_invalid`)
 */
export function consoleSettings(env: { PUBLIC_ORIGIN?: string; CONSOLE_SESSION_SECRET?: string; DOCS_URL?: string }): ConsoleSettings {
  const configured = configOf(env).publicOrigin;
  return {
    publicOrigin: configured ? new URL(configured) : null,
    sessionSecret: env.CONSOLE_SESSION_SECRET?.trim() || null,
    docsUrl: env.DOCS_URL || null,
  };
}

/**
 * The console's Host check (its DNS-rebinding guard, with the loopback rule of lib/origin.ts) and
 * configuration for one request.
 * With `PUBLIC_ORIGIN` set, the request's host must be that origin's host. Without it, only loopback hosts
 * are served (local development): `localhost:<port>` as is, `127.0.0.1` and `[::1]` redirected to
 * `localhost` with the same port, path and query, because WebAuthn refuses an IP address as relying-party id.
 * @param url the request URL (its host is the `Host` header)
 * @param settings from {@link consoleSettings}
 * @throws {ConsoleHostError} 403 for any other host
 * @throws {ConsoleNotConfiguredError} 503 when deployed (`PUBLIC_ORIGIN` set) without a session secret
 */
export function consoleHostCheck(url: URL, settings: ConsoleSettings): HostDecision {
  const { publicOrigin, sessionSecret } = settings;
  if (publicOrigin) {
    if (url.host !== publicOrigin.host) throw new ConsoleHostError();
    if (!sessionSecret)
      throw new ConsoleNotConfiguredError(
        'The developer console needs the CONSOLE_SESSION_SECRET secret; it is unavailable until it is set.',
      );
    return {
      ok: true,
      config: {
        rpId: publicOrigin.hostname,
        origin: publicOrigin.origin,
        local: false,
        secureCookies: publicOrigin.protocol === 'https:',
        sessionSecret,
      },
    };
  }
  if (!isLoopbackHost(url.host)) throw new ConsoleHostError();
  if (url.hostname !== 'localhost') {
    const to = new URL(url);
    to.hostname = 'localhost';
    return { ok: false, redirect: to.toString() };
  }
  // Local development without a secret: one random secret per isolate (sessions end when wrangler restarts).
  isolateSecret ??= [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, '0')).join('');
  return {
    ok: true,
    config: {
      rpId: 'localhost',
      origin: url.origin,
      local: true,
      secureCookies: url.protocol === 'https:',
      sessionSecret: sessionSecret ?? isolateSecret,
    },
  };
}

/**
 * The console's Origin check for a state-changing request: its `Origin` is the console's origin, or, when
 * the browser sent no `Origin` (Chromium under `Referrer-Policy: no-referrer` on a same-origin fetch),
 * `Sec-Fetch-Site` is `same-origin` (a header pages cannot set).
 */
export function consoleOriginCheck(
  headers: { origin: string | undefined; secFetchSite: string | undefined },
  config: ConsoleConfig,
): boolean {
  return headers.origin === undefined ? headers.secFetchSite === 'same-origin' : headers.origin === config.origin;
}
