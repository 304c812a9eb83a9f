/**
 * Typed API errors and their one rendering as RFC 9457 `application/problem+json` (docs/api.md#errors).
 *
 * Every failure the service answers is thrown as an {@link ApiError} subclass and rendered by
 * {@link problemResponse}; anything else that escapes a handler becomes a generic 500 `internal_error`.
 * Problem bodies never carry a stack trace, a dependency's message, SQL, a key or a submitted value:
 * the `detail` strings below are fixed texts or texts built only from field names and rules.
 */

/** Machine-readable problem codes of docs/api.md#errors; `type` is `/problems/<code>`. */
export type ProblemCode =
  | 'invalid_request'
  | 'malformed_json'
  | 'unauthorized'
  | 'insufficient_scope'
  | 'invalid_key'
  | 'not_found'
  | 'method_not_allowed'
  | 'not_usable'
  | 'request_timeout'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'internal_error'
  | 'redaction_failed'
  | 'upstream_unavailable'
  | 'origin_not_allowed'
  | 'misdirected_request'
  | 'csrf_failed'
  | 'invitation_unusable'
  | 'not_configured';

/** One failing field: `pointer` is an RFC 6901 JSON pointer such as `/body/horizonYears`; `detail` names the rule. */
export interface FieldError {
  pointer: string;
  detail: string;
}

/** The problem+json body (RFC 9457 members plus `code`, `requestId` and optional `errors`). */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  requestId: string;
  errors?: FieldError[];
}

/** Status and title of every problem code; the single table the renderer and the OpenAPI document read. */
export const PROBLEMS: Record<ProblemCode, { status: number; title: string }> = {
  invalid_request: { status: 400, title: 'Invalid request' },
  malformed_json: { status: 400, title: 'Malformed JSON' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  insufficient_scope: { status: 403, title: 'Insufficient scope' },
  invalid_key: { status: 403, title: 'Key not accepted' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  not_usable: { status: 409, title: 'NAV run not usable' },
  request_timeout: { status: 408, title: 'Request timeout' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  rate_limited: { status: 429, title: 'Too many requests' },
  internal_error: { status: 500, title: 'Internal error' },
  redaction_failed: { status: 500, title: 'Redaction failed' },
  upstream_unavailable: { status: 503, title: 'Upstream unavailable' },
  origin_not_allowed: { status: 403, title: 'Origin not allowed' },
  misdirected_request: { status: 421, title: 'Misdirected request' },
  csrf_failed: { status: 403, title: 'CSRF check failed' },
  invitation_unusable: { status: 410, title: 'Invitation unusable' },
  not_configured: { status: 503, title: 'Not configured' },
};

/**
 * Base of every error the service answers on purpose.
 * @param code  docs/api.md#errors code; fixes status and title
 * @param detail a client-safe sentence (never a submitted value or an internal message)
 * @param headers extra response headers (`Allow`, `Retry-After`, `WWW-Authenticate`, ...)
 */
export class ApiError extends Error {
  readonly code: ProblemCode;
  readonly status: number;
  readonly detail: string;
  /** Failing fields; see {@link ApiError.locateFields}. */
  errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;
  #fieldsLocated = false;

  constructor(code: ProblemCode, detail: string, options: { errors?: FieldError[]; headers?: Record<string, string> } = {}) {
    super(detail);
    this.name = 'ApiError';
    this.code = code;
    this.status = PROBLEMS[code].status;
    this.detail = detail;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }

  /**
   * Puts the field pointers of an error thrown by core code, which are relative to the input
   * (`/positionsCsv`), under where the input came from (`/arguments/positionsCsv`). Applied once; called by
   * `atLocation` in lib/validation.ts at the edge.
   */
  locateFields(location: string): void {
    if (this.#fieldsLocated || !this.errors) return;
    this.errors = this.errors.map((e) => ({ ...e, pointer: `/${location}${e.pointer}` }));
    this.#fieldsLocated = true;
  }
}

/** 400 `invalid_request`: one entry per failing field, by JSON pointer, naming the rule only. */
export class ValidationError extends ApiError {
  constructor(errors: FieldError[], detail = 'The request failed validation; see errors[].') {
    super('invalid_request', detail, { errors });
    this.name = 'ValidationError';
  }
}

/** 400 `malformed_json`: the body is not JSON, or not a JSON object. */
export class MalformedJsonError extends ApiError {
  constructor(detail = 'The request body must be a JSON object.') {
    super('malformed_json', detail);
    this.name = 'MalformedJsonError';
  }
}

/**
 * 401 `unauthorized` with `WWW-Authenticate: Bearer realm="fund-data"`, adding `error="invalid_token"`
 * when a credential was presented (RFC 6750 §3).
 */
export class UnauthorizedError extends ApiError {
  constructor(detail: string, tokenPresented: boolean) {
    const challenge = tokenPresented ? 'Bearer realm="fund-data", error="invalid_token"' : 'Bearer realm="fund-data"';
    super('unauthorized', detail, { headers: { 'WWW-Authenticate': challenge } });
    this.name = 'UnauthorizedError';
  }
}

/** 404 `not_found`. */
export class NotFoundError extends ApiError {
  constructor(detail = 'No resource exists at this path.') {
    super('not_found', detail);
    this.name = 'NotFoundError';
  }
}

/** 405 `method_not_allowed` with the `Allow` header listing the path's methods. */
export class MethodNotAllowedError extends ApiError {
  constructor(allow: readonly string[]) {
    super('method_not_allowed', `This path accepts ${allow.join(', ')}.`, {
      headers: { Allow: allow.join(', ') },
    });
    this.name = 'MethodNotAllowedError';
  }
}

/** 413 `payload_too_large`: body over the cap, or a CSV over its row cap. */
export class PayloadTooLargeError extends ApiError {
  constructor(detail: string, errors?: FieldError[]) {
    super('payload_too_large', detail, errors ? { errors } : {});
    this.name = 'PayloadTooLargeError';
  }
}

/** 415 `unsupported_media_type`: a body that is not `application/json`. */
export class UnsupportedMediaTypeError extends ApiError {
  constructor() {
    super('unsupported_media_type', 'Send the body as application/json.');
    this.name = 'UnsupportedMediaTypeError';
  }
}

/** 429 `rate_limited` with `Retry-After` in seconds (RFC 9110 §10.2.3). */
export class RateLimitedError extends ApiError {
  constructor(detail: string, retryAfterSeconds: number) {
    super('rate_limited', detail, { headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) } });
    this.name = 'RateLimitedError';
  }
}

/** 403 `insufficient_scope`: the key is valid but may not read this (another fund's key; the demo key on the fund MCP server). */
export class InsufficientScopeError extends ApiError {
  constructor(detail: string) {
    super('insufficient_scope', detail, {
      headers: { 'WWW-Authenticate': 'Bearer realm="fund-data", error="insufficient_scope"' },
    });
    this.name = 'InsufficientScopeError';
  }
}

/** 409 `not_usable`: the NAV run asked for exists but is not complete and reconciled. */
export class NotUsableError extends ApiError {
  constructor(detail: string) {
    super('not_usable', detail);
    this.name = 'NotUsableError';
  }
}

/**
 * 500 `redaction_failed`: a fund-data response could not be proven clean (a field outside the allow-list,
 * a PII or secret shape in the body, a store row it should not have returned). Fixed detail, no data.
 */
export class RedactionFailedError extends ApiError {
  /** Which check failed, for the operator's log only (never sent): see {@link RedactionFailureReason}. */
  readonly reason: RedactionFailureReason | undefined;
  constructor(reason?: RedactionFailureReason) {
    super('redaction_failed', 'The response could not be verified as safe to send, so none of it was sent.');
    this.name = 'RedactionFailedError';
    this.reason = reason;
  }
}

/**
 * Why a redaction failed: the body broke its allow-list schema, the scan found a forbidden shape (e-mail,
 * tax id, IBAN, key) or an identity value the store returned, or a store row was not of its allowed shape.
 */
export type RedactionFailureReason = 'allow_list' | 'forbidden_shape' | 'identity_value' | 'store_row';

/**
 * 503 `upstream_unavailable`: the fund database could not be reached, dropped the connection, or did not
 * answer within its time budget. Fixed detail (never the driver's message); `Retry-After` in seconds.
 */
/**
 * 500 `internal_error` with a fixed detail: this deployment may not serve fund data from its database,
 * because its configuration is incomplete (`DATABASE_URL` without the `INVESTOR_REF_KEY` secret). The
 * detail does not say what is missing; the log line does.
 */
export class FundDataNotConfiguredError extends ApiError {
  constructor() {
    super('internal_error', 'Fund data is unavailable: this deployment is not fully configured.');
    this.name = 'FundDataNotConfiguredError';
  }
}

export class UpstreamUnavailableError extends ApiError {
  constructor(retryAfterSeconds = 5) {
    super('upstream_unavailable', 'The fund database is unavailable right now; retry shortly.', {
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
    this.name = 'UpstreamUnavailableError';
  }
}

/**
 * 403 `origin_not_allowed`: an MCP request from a browser Origin that is neither the configured
 * `PUBLIC_ORIGIN`, allow-listed (`MCP_ALLOWED_ORIGINS`), nor, when served locally, a loopback origin; the
 * DNS-rebinding guard of the MCP Streamable HTTP transport (`lib/origin.ts`).
 */
export class OriginNotAllowedError extends ApiError {
  constructor() {
    super('origin_not_allowed', 'Requests from this Origin are not accepted by the MCP servers.');
    this.name = 'OriginNotAllowedError';
  }
}

/**
 * 421 `misdirected_request` (RFC 9110 §15.5.20): the request is addressed to a `Host` this service does not
 * answer for: served locally, anything but `localhost`, `127.0.0.1` or `[::1]` (a DNS-rebinding guard of
 * the MCP servers, `lib/origin.ts`). Fixed detail; never the `Host` sent.
 */
export class MisdirectedRequestError extends ApiError {
  constructor(detail: string) {
    super('misdirected_request', detail);
    this.name = 'MisdirectedRequestError';
  }
}

/** The `type` URI of a problem code (relative, resolved against the service's base URL). */
export function problemType(code: ProblemCode): string {
  return `/problems/${code}`;
}

/**
 * The problem+json body of any thrown value: an {@link ApiError} keeps its code, detail and errors; anything
 * else becomes 500 `internal_error` with a fixed detail, so no dependency's message or stack can leak.
 * Used by {@link problemResponse} and by the MCP servers, whose tool errors carry the same body as text.
 * @returns the body and the error it was rendered from (whose `headers` a response should carry)
 */
export function problemOf(err: unknown, requestId: string): { body: ProblemBody; error: ApiError } {
  const error = err instanceof ApiError ? err : new ApiError('internal_error', 'The service failed to answer this request.');
  const body: ProblemBody = {
    type: problemType(error.code),
    title: PROBLEMS[error.code].title,
    status: error.status,
    detail: error.detail,
    code: error.code,
    requestId,
  };
  if (error.errors?.length) body.errors = error.errors.map((e) => ({ pointer: maskKeyShapes(e.pointer), detail: e.detail }));
  return { body, error };
}

/** An API key's shape, `svc_dk_` and the letters and digits after it, in any case (as lib/redaction.ts scans for). */
const KEY_SHAPE = /svc_dk_[0-9A-Za-z]*/gi;

/**
 * A pointer as it may be answered: every key shape in it (a field or query parameter a client named after a
 * key) replaced by `[redacted]`, as fund data masks one. Linear in the text (one pass, no backtracking).
 */
export function maskKeyShapes(text: string): string {
  return text.replace(KEY_SHAPE, '[redacted]');
}

/**
 * Renders any thrown value as a problem+json `Response` (see {@link problemOf}), with the error's headers.
 * @param err what was thrown
 * @param requestId the request's id, repeated in the body (the pipeline sets the `X-Request-Id` header on
 *   every response, this one included)
 */
export function problemResponse(err: unknown, requestId: string): Response {
  const { body, error } = problemOf(err, requestId);
  const headers = new Headers(error.headers);
  headers.set('Content-Type', 'application/problem+json');
  headers.set('Cache-Control', 'private, no-store');
  return new Response(JSON.stringify(body), { status: error.status, headers });
}
