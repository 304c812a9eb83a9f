/**
 * The Worker's bindings (wrangler.toml) and the per-request values the pipeline shares through Hono's context.
 */

/** Bindings of the Worker. */
export interface Env {
  /** SHA-256(key) → key record (contract §2). */
  API_KEYS: KVNamespace;
  /** Daily calculator quota counters `calc:<caller>:<YYYY-MM-DD>` (contract §3). */
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
  /** Secret keying investor pseudonyms (`investorRef`); a fixed default without it. */
  INVESTOR_REF_KEY?: string;
  /** Comma-separated allowed CORS origins, or `*`. */
  CORS_ORIGINS?: string;
  /**
   * Comma-separated browser Origins the MCP servers accept besides the service's own (`*`: any). A request
   * with another `Origin` header gets 403; requests without one (every non-browser client) are served.
   */
  MCP_ALLOWED_ORIGINS?: string;
  /** Developer console: accounts, passkey credentials, sessions, invitations and key indexes (lib/console/). */
  CONSOLE: KVNamespace;
  /** Burst guard of the console's sign-up, sign-in and minting: per client network and action. */
  CONSOLE_BURST: RateLimit;
  /**
   * The service's public origin, e.g. `https://fund-edge.example.com`. The console's passkeys use its host
   * name as relying-party id and its origin as the expected origin; unset, only loopback requests are served.
   */
  PUBLIC_ORIGIN?: string;
  /** Optional link to the API documentation shown in the developer console's header. */
  DOCS_URL?: string;
  /** Secret signing console session cookies (a Worker secret; required unless running on loopback). */
  CONSOLE_SESSION_SECRET?: string;
}

/** Values set on the Hono context by the pipeline. */
export interface Variables {
  requestId: string;
}

/** Hono's environment type for this app. */
export interface AppEnv {
  Bindings: Env;
  Variables: Variables;
}
