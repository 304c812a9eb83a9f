/**
 * Every limit of the service, in one place: the code enforces these, the OpenAPI document states them, and
 * a test holds docs/api.md#limits and wrangler.toml's `[[ratelimits]]` to them
 * (test/security/limits.test.ts). The modules that enforce them re-export them under their old homes.
 */

/** The largest request body accepted, bytes (1 MiB); larger is 413 `payload_too_large`. */
export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * The time a request body may take to arrive, milliseconds, counted from the first read of it: a body still
 * incomplete after it is refused 408 `request_timeout` (a client sending a byte at a time holds no request
 * open longer). A 1 MiB body at 64 KiB/s arrives within it.
 */
export const BODY_READ_TIMEOUT_MS = 20_000;
/**
 * After a body is refused for its size, what of the rest is still read and dropped (bytes, and milliseconds),
 * so that the connection it came on stays usable for the next request; past either bound the read is
 * cancelled (the connection then closes).
 */
export const REFUSED_BODY_DRAIN_BYTES = 4 * 1024 * 1024;
export const REFUSED_BODY_DRAIN_MS = 2_000;
/** Data rows a CSV input may hold (header excluded); more is 413. */
export const MAX_CSV_ROWS = 10_000;
/** Anonymous daily calculator quota per caller (caller = `CF-Connecting-IP`, IPv6 by /64). */
export const ANONYMOUS_DAILY_CALC_LIMIT = 500;
/** A key's daily calculator quota when minted without `--daily-calc-limit`. */
export const DEFAULT_KEY_DAILY_CALC_LIMIT = 10_000;
/** Window of the daily policy in the `RateLimit-Policy` header, seconds. */
export const DAILY_WINDOW_SECONDS = 86_400;
/**
 * Days of calculator calls the developer console charts per account (docs/console.md#how-it-works): an account's
 * daily counters are kept this many days past their day (other callers' expire an hour after midnight).
 */
export const USAGE_HISTORY_DAYS = 30;
/** Calculator calls the `CALC_BURST` binding allows per period and caller (wrangler.toml `[[ratelimits]]`). */
export const BURST_LIMIT = 60;
/** Period of both burst bindings, seconds (wrangler.toml `[[ratelimits]]`). */
export const BURST_PERIOD_SECONDS = 60;
/** Fund-data requests the `FUND_BURST` binding allows per period and key (wrangler.toml `[[ratelimits]]`). */
export const FUND_BURST_LIMIT = 120;
/**
 * The longest an MCP server may take to complete a JSON answer, milliseconds. Past it the request answers
 * 500 `internal_error` (logged) instead of hanging until the runtime ends it: a response the SDK never
 * completes is a defect of ours, never a wait worth keeping a client on.
 */
export const MCP_ANSWER_TIMEOUT_MS = 10_000;

/**
 * Largest body of a request to an OAuth endpoint (token, revocation, client registration, the consent
 * form), bytes (16 KiB); larger is 413 before the OAuth library reads a byte of it (docs/oauth.md#bounds).
 */
export const OAUTH_MAX_BODY_BYTES = 16 * 1024;
/**
 * Fields a form posted to an OAuth endpoint may have (a token request has at most eight); more is 400 before
 * the OAuth library parses it, whose parsing is quadratic in the number of fields.
 */
export const OAUTH_MAX_FORM_FIELDS = 32;
/** Members a client registration (RFC 7591) may have, and items in each of its arrays. */
export const OAUTH_REGISTRATION_MAX_MEMBERS = 32;
/** Redirect URIs a registration may list. */
export const OAUTH_REDIRECT_URIS_MAX = 10;
/** Characters of each redirect URI, and of any other string of a registration but its name. */
export const OAUTH_REGISTRATION_MAX_STRING = 2000;
/** Characters of a registered client's name (shown on the consent page). */
export const OAUTH_CLIENT_NAME_MAX_CHARS = 200;
/**
 * Token endpoint requests (`/oauth/token`: code exchanges, refreshes, revocations) per client network per
 * {@link BURST_PERIOD_SECONDS}; 429 beyond. Counted by the `CONSOLE_BURST` binding (wrangler.toml), under an
 * action of its own, so it is that binding's limit; nothing a refused request sends reaches the OAuth library
 * or the atomic records.
 */
export const OAUTH_TOKEN_BURST_LIMIT = 20;
/** Client registrations per client network per UTC day (an atomic count; 429 beyond). */
export const OAUTH_REGISTRATIONS_PER_NETWORK_PER_DAY = 30;
/** Developer-console sign-ups (accounts created) per client network per UTC day (an atomic count; 429 beyond). */
export const SIGNUPS_PER_NETWORK_PER_DAY = 5;
/**
 * The `tools/call`s of one MCP request (a JSON-RPC batch holds up to 100) that run at once; the others wait
 * for a slot, in order. It bounds what one request holds in memory and CPU at a time; the answer is the
 * same array either way.
 */
export const MCP_BATCH_CONCURRENCY = 4;
