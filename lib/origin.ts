/**
 * The DNS-rebinding guard of the MCP servers (and of any browser-facing surface that reuses
 * {@link hostOriginGuard}): which `Host` a request may address and which browser `Origin` may send it.
 *
 * A DNS-rebinding page at `http://evil.example` whose name is re-pointed at 127.0.0.1 reaches a local
 * service with `Host: evil.example` and `Origin: http://evil.example`. Comparing the `Origin` with an origin
 * built from the request's own `Host` therefore proves nothing; this module never does. Instead:
 *
 * - **Local** (no `PUBLIC_ORIGIN`, or a loopback one such as `http://127.0.0.1:8787`, as under `npm run dev`):
 *   only a loopback `Host` is served (`localhost`, `127.0.0.1`, `[::1]`, any port); any other is refused
 *   with 421 Misdirected Request (RFC 9110 §15.5.20: this server does not answer for that name). A deployed
 *   Worker without `PUBLIC_ORIGIN` is in this mode too, and so fails closed: every guarded request is 421
 *   until `PUBLIC_ORIGIN` names the origin it is served at.
 * - **Public** (`PUBLIC_ORIGIN` is a non-loopback origin): the `Host` is not checked (the platform routes
 *   only the Worker's own hostnames to it).
 * - **Origin**, when present, must be `PUBLIC_ORIGIN`, listed in `MCP_ALLOWED_ORIGINS` (`*`: any), or, when
 *   local, any loopback origin; otherwise 403 `origin_not_allowed`. Clients that send no `Origin` (every
 *   non-browser MCP client) are served.
 *
 * Documented in docs/mcp.md#host-origin-and-dns-rebinding, docs/configuration.md#deploy and wrangler.toml `[vars]`.
 */
import type { MiddlewareHandler } from 'hono';
import { configOf } from './config.ts';
import type { AppEnv, Env } from './env.ts';
import { MisdirectedRequestError, OriginNotAllowedError } from './errors.ts';

/**
 * A loopback `Host` header value: `localhost`, `127.0.0.1` or `[::1]`, optionally with a port, any letter
 * case. Linear: alternatives of fixed words, then at most five digits.
 */
const LOOPBACK_HOST = /^(?:localhost|127\.0\.0\.1|\[::1\])(?::\d{1,5})?$/i;

/** A loopback origin: `http` or `https`, a loopback host, an optional port, nothing else. Linear. */
const LOOPBACK_ORIGIN = /^https?:\/\/(?:localhost|127\.0\.0\.1|\[::1\])(?::\d{1,5})?$/i;

/** True for a `Host` header value naming this machine: `localhost`, `127.0.0.1`, `[::1]`, any port. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOST.test(host);
}

/** True for an `Origin` on this machine: `http(s)://` + `localhost`, `127.0.0.1` or `[::1]`, any port. */
export function isLoopbackOrigin(origin: string): boolean {
  return LOOPBACK_ORIGIN.test(origin);
}

/** What {@link originPolicy} reads from the Worker's bindings. */
export type OriginSettings = Pick<Env, 'PUBLIC_ORIGIN' | 'MCP_ALLOWED_ORIGINS'>;

/** The guard's reading of the configuration. */
export interface OriginPolicy {
  /** `PUBLIC_ORIGIN` as a serialized origin; `null` when unset or empty. */
  publicOrigin: string | null;
  /** Served locally: no `PUBLIC_ORIGIN` or a loopback one. Only loopback `Host` values are served. */
  local: boolean;
  /** Browser origins allowed besides the public one (`MCP_ALLOWED_ORIGINS`, trimmed), or `*` for any. */
  allowed: ReadonlySet<string> | '*';
}

/**
 * Reads the guard's configuration from the parsed config (lib/config.ts), so `PUBLIC_ORIGIN` and
 * `MCP_ALLOWED_ORIGINS` are validated in one place.
 * @param env `PUBLIC_ORIGIN` (an origin such as `https://fund-edge.example.com`; empty means unset) and
 *   `MCP_ALLOWED_ORIGINS` (comma-separated origins, or `*`)
 * @throws {ConfigInvalidError} when either is malformed (answered 500 and logged as `config_invalid`)
 */
export function originPolicy(env: OriginSettings): OriginPolicy {
  const config = configOf(env);
  const publicOrigin = config.publicOrigin ?? null;
  return {
    publicOrigin,
    local: publicOrigin === null || isLoopbackOrigin(publicOrigin),
    allowed: config.mcpAllowedOrigins === '*' ? '*' : new Set(config.mcpAllowedOrigins),
  };
}

/**
 * True when a browser `Origin` may call: none sent, the public origin, allow-listed, or (local) loopback.
 * @param origin the `Origin` header, `undefined` when absent (`null` as sent by an opaque origin is refused)
 */
export function originAllowed(policy: OriginPolicy, origin: string | undefined): boolean {
  if (origin === undefined) return true;
  if (policy.allowed === '*' || policy.allowed.has(origin)) return true;
  if (policy.publicOrigin !== null && origin === policy.publicOrigin) return true;
  return policy.local && isLoopbackOrigin(origin);
}

/** True when a request addressed to `host` may be served: any host when public, a loopback one when local. */
export function hostAllowed(policy: OriginPolicy, host: string): boolean {
  return !policy.local || isLoopbackHost(host);
}

/**
 * Checks a request's `Host` and `Origin` against the configuration.
 * @param host the `Host` header (the request URL's host when the header is absent)
 * @param origin the `Origin` header, `undefined` when absent
 * @throws {MisdirectedRequestError} 421: a non-loopback `Host` while served locally
 * @throws {ConfigInvalidError} when `PUBLIC_ORIGIN` or `MCP_ALLOWED_ORIGINS` is malformed
 * @throws {OriginNotAllowedError} 403: an `Origin` that is neither the public one, allow-listed, nor (locally)
 *   loopback
 */
export function checkHostAndOrigin(env: OriginSettings, host: string, origin: string | undefined): void {
  const policy = originPolicy(env);
  if (!hostAllowed(policy, host)) {
    throw new MisdirectedRequestError(
      'Served locally, this service answers only requests addressed to localhost, 127.0.0.1 or [::1]; a deployment sets PUBLIC_ORIGIN.',
    );
  }
  if (!originAllowed(policy, origin)) throw new OriginNotAllowedError();
}

/** The `Host` a request is addressed to: its `Host` header, else its URL's host. */
export function requestHost(request: Request): string {
  return request.headers.get('host') ?? new URL(request.url).host;
}

/**
 * Hono middleware running {@link checkHostAndOrigin} on every request it is mounted on; the errors it throws
 * are rendered as problem+json by the app's error handler.
 */
export const hostOriginGuard: MiddlewareHandler<AppEnv> = async (c, next) => {
  checkHostAndOrigin(c.env, requestHost(c.req.raw), c.req.header('origin'));
  await next();
};

/**
 * The origin the service presents itself at in absolute URLs (home page, llms.txt, search_docs results,
 * the OpenAPI `servers`, MCP `serverInfo.websiteUrl`): `PUBLIC_ORIGIN` when configured, else the request's
 * own origin (local development, where the guarded surfaces answer loopback hosts only).
 */
export function publicOrigin(c: { env?: OriginSettings; req: { url: string } }): string {
  return (c.env ? originPolicy(c.env).publicOrigin : null) ?? new URL(c.req.url).origin;
}
