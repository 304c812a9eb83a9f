/**
 * The Worker's bindings (wrangler.toml) and the per-request values the pipeline shares through Hono's context.
 * Read variables through `configOf` (lib/config.ts), which parses and checks them.
 */
import type { Config, ConfigVars } from './config.ts';

/** Bindings of the Worker. */
export interface Env extends ConfigVars {
  /** SHA-256(key) → key record (docs/api.md#keys-and-scopes). */
  API_KEYS: KVNamespace;
  /** Daily calculator quota counters `calc:<caller>:<YYYY-MM-DD>` (docs/api.md#limits). */
  RATE_LIMITS: KVNamespace;
  /** Burst guard: 60 calculator calls per 60 s per caller. */
  CALC_BURST: RateLimit;
  /** Burst guard: 120 fund-data requests per 60 s per key (the demo key: per client network). */
  FUND_BURST: RateLimit;
  /** The fund this deployment serves to real keys (keys of other funds get 403). */
  FUND_ID?: string;
  /**
   * The fund database, `postgres://...` (a Worker secret). Set: real keys read Postgres through
   * `@neondatabase/serverless`; unset: the embedded store. The demo key never reaches it.
   */
  DATABASE_URL?: string;
  /** Local development only: the WebSocket proxy in front of a plain PostgreSQL (`127.0.0.1:5488/v1`). */
  DATABASE_WS_PROXY?: string;
  /**
   * Secret keying investor pseudonyms (`investorRef`); required with `DATABASE_URL` (fund data from the
   * database is refused without it); the embedded data uses a fixed public key.
   */
  INVESTOR_REF_KEY?: string;
  /** Comma-separated allowed CORS origins, or `*`. */
  CORS_ORIGINS?: string;
  /**
   * The origin the service is published at, e.g. `https://fund-edge.example.com` (no path). Unset, empty or
   * a loopback origin: the service runs locally and its MCP servers answer only loopback `Host` values (421
   * otherwise), so a deployed Worker without it fails closed. The MCP servers accept it as a browser
   * `Origin` (see `lib/origin.ts`).
   */
  PUBLIC_ORIGIN?: string;
  /**
   * Comma-separated browser Origins the MCP servers accept besides `PUBLIC_ORIGIN` (and, locally, any
   * loopback origin); `*`: any. A request with another `Origin` header gets 403; requests without one
   * (every non-browser client) are served.
   */
  MCP_ALLOWED_ORIGINS?: string;
  /** The static assets of `public/` (wrangler `[assets]`): Swagger UI, the design notes, the search index. */
  ASSETS?: Fetcher;
  /** Developer console: accounts, passkey credentials, sessions, invitations and key indexes (lib/console/). */
  CONSOLE: KVNamespace;
  /** Burst guard of the console's sign-up, sign-in and minting: per client network and action. */
  CONSOLE_BURST: RateLimit;
  /** Optional link to the API documentation shown in the developer console's header. */
  DOCS_URL?: string;
  /** Secret signing console session cookies (a Worker secret; required unless running on loopback). */
  CONSOLE_SESSION_SECRET?: string;
  /** OAuth clients, grants and tokens of the fund MCP server's authorization server (hashed; lib/oauth/). */
  OAUTH_KV: KVNamespace;
  /**
   * The atomic records (lib/atomic.ts): single-use invitations, the per-account key cap, daily sign-up and
   * registration caps, refresh-token reuse detection. A Durable Object namespace.
   */
  ATOMIC: DurableObjectNamespace;
  /** Access token lifetime, seconds (60..86,400; default 3,600). */
  OAUTH_ACCESS_TOKEN_TTL?: string;
  /** Refresh token (grant) lifetime, seconds (60..31,536,000; default 30 days). */
  OAUTH_REFRESH_TOKEN_TTL?: string;
}

/** Values set on the Hono context by the pipeline. */
export interface Variables {
  requestId: string;
  /** The parsed configuration (lib/config.ts); set before any route runs. */
  config: Config;
}

/** Hono's environment type for this app. */
export interface AppEnv {
  Bindings: Env;
  Variables: Variables;
}
