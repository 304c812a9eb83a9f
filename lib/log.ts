/**
 * Structured error logging: one JSON line per failure an operator must see, on `console.error`, which
 * Workers Logs (`[observability]` in wrangler.toml) and `wrangler tail` collect (docs/logging.md).
 *
 * Logged: every error that is not an `ApiError` (answered 500 `internal_error`), every redaction failure
 * (500 `redaction_failed`), an invalid configuration (`config_invalid`), and every other 5xx answer. Not
 * logged: the 4xx answers a client caused.
 *
 * A line never holds a key, an investor's identity, a request body, a query string, or a dependency's
 * message (which may quote SQL or a value): errors appear by name and code; messages only of the service's
 * own typed errors, whose texts are fixed or built from field names.
 */
import type { Context } from 'hono';
import { ApiError, RedactionFailedError } from './errors.ts';
import { ConfigInvalidError } from './config.ts';
import type { AppEnv } from './env.ts';

/** Where the failure happened. `route` is the URL path (never the query string). */
export interface LogContext {
  requestId: string;
  method: string;
  route: string;
}

/**
 * The {@link LogContext} of a request: its id, method and URL path (without the query string), the segment
 * after a retired invitation path (`/invite/<token>`) replaced by `[token]`.
 */
export function logContextOf(c: Context<AppEnv>): LogContext {
  const route = new URL(c.req.url).pathname.replace(/(\/invite\/)[^/]*/, '$1[token]');
  return { requestId: c.get('requestId'), method: c.req.method, route };
}

/** One error of a cause chain: its name, and its message only when the error is one of ours. */
interface LoggedError {
  name: string;
  code?: string;
  message?: string;
}

/** True for the service's own typed errors, whose messages are safe to log. */
function isOwn(err: unknown): err is ApiError | ConfigInvalidError {
  return err instanceof ApiError || err instanceof ConfigInvalidError;
}

function describe(err: unknown): LoggedError {
  if (!(err instanceof Error)) return { name: typeof err };
  const out: LoggedError = { name: err.name };
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^[A-Za-z0-9_.:-]{1,64}$/.test(code)) out.code = code;
  if (isOwn(err)) out.message = err.message;
  return out;
}

/** True when `err`, answered with `status`, is logged (see the module comment). */
export function shouldLog(err: unknown, status: number): boolean {
  return !(err instanceof ApiError) || status >= 500;
}

/**
 * The log record of a failure.
 * @returns `{ level, event, requestId, method, route, status, error, causes?, issues? }`; `event` is
 *   `config_invalid`, `redaction_failed`, `unexpected_error` (not an ApiError) or the problem code of
 *   another 5xx
 */
export function errorRecord(err: unknown, status: number, at: LogContext): Record<string, unknown> {
  const event =
    err instanceof ConfigInvalidError
      ? 'config_invalid'
      : err instanceof RedactionFailedError
        ? 'redaction_failed'
        : err instanceof ApiError
          ? err.code
          : 'unexpected_error';
  const record: Record<string, unknown> = {
    level: 'error',
    event,
    requestId: at.requestId,
    method: at.method,
    route: at.route.slice(0, 200),
    status,
    error: describe(err),
  };
  const causes: LoggedError[] = [];
  let cause = err instanceof Error ? err.cause : undefined;
  for (let depth = 0; cause !== undefined && depth < 5; depth++) {
    causes.push(describe(cause));
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  if (causes.length) record.causes = causes;
  if (err instanceof ConfigInvalidError) record.issues = err.issues;
  if (err instanceof RedactionFailedError && err.reason) record.reason = err.reason;
  return record;
}

/**
 * Logs a failure once, as one JSON line, when {@link shouldLog} says so.
 * @param err what was thrown
 * @param status the HTTP status it is answered with (500 for anything not an ApiError)
 * @param at the request
 */
export function logFailure(err: unknown, status: number, at: LogContext): void {
  if (shouldLog(err, status)) console.error(JSON.stringify(errorRecord(err, status, at)));
}

/**
 * Logs a deployment fault found outside any request's error path, as one JSON line
 * `{ level: 'error', event, ...detail }` (e.g. `fund_asset_unusable`: an embedded fund's build-time asset is
 * missing or from another build, lib/fund/embedded-store.ts). `detail` must hold no secret or personal data.
 */
export function logFault(event: string, detail: Record<string, string | number>): void {
  console.error(JSON.stringify({ level: 'error', event, ...detail }));
}
