/**
 * Every limit of the service, in one place: the code enforces these, the OpenAPI document states them, and
 * a test holds docs/api.md#limits and wrangler.toml's `[[ratelimits]]` to them
 * (test/security/limits.test.ts). The modules that enforce them re-export them under their old homes.
 */

/** The largest request body accepted, bytes (1 MiB); larger is 413 `payload_too_large`. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Data rows a CSV input may hold (header excluded); more is 413. */
export const MAX_CSV_ROWS = 10_000;
/** Anonymous daily calculator quota per caller (caller = `CF-Connecting-IP`, IPv6 by /64). */
export const ANONYMOUS_DAILY_CALC_LIMIT = 500;
/** A key's daily calculator quota when minted without `--daily-calc-limit`. */
export const DEFAULT_KEY_DAILY_CALC_LIMIT = 10_000;
/** Window of the daily policy in the `RateLimit-Policy` header, seconds. */
export const DAILY_WINDOW_SECONDS = 86_400;
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
