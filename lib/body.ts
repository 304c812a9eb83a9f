/**
 * Reading request bodies, in one place: the size cap and time budget in front of every route
 * ({@link limitBody}), bounded reads ({@link readBoundedBody}, for the OAuth endpoints' smaller caps), and a
 * body the client never finished. Every body is read here once, within its cap and
 * {@link BODY_READ_TIMEOUT_MS} from its first read (408 past it: a client that sends a byte at a time holds
 * no request open longer), and handed on as bytes. A body refused for its size has the rest of it read and
 * dropped, up to {@link REFUSED_BODY_DRAIN_BYTES} and {@link REFUSED_BODY_DRAIN_MS}, and its read cancelled
 * (awaited) before the refusal is answered: nothing reads the request after its answer (workerd logs that as
 * an uncaught `Can't read from request stream after response has been sent`), and the connection, its body
 * consumed, serves the client's next request. A client that hangs up mid-body makes the runtime's body
 * stream fail ("Network connection lost."); that is the client's doing, so it becomes
 * {@link IncompleteBodyError} (400, not logged) here rather than an `unexpected_error` 500. Every read is one
 * pass over the bytes (linear in the body).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { ApiError } from './errors.ts';
import { BODY_READ_TIMEOUT_MS, REFUSED_BODY_DRAIN_BYTES, REFUSED_BODY_DRAIN_MS } from './limits.ts';

/**
 * 400 `invalid_request`: the request body ended before it was complete (the client hung up or its connection
 * broke). A 4xx, so not logged (lib/log.ts); nobody is left to read the answer.
 */
export class IncompleteBodyError extends ApiError {
  constructor() {
    super('invalid_request', 'The request body ended before it was complete.');
    this.name = 'IncompleteBodyError';
  }
}

/** 408 `request_timeout`: the body did not arrive within {@link BODY_READ_TIMEOUT_MS}. Not logged (a 4xx). */
export class BodyTimeoutError extends ApiError {
  constructor() {
    super('request_timeout', `The request body must arrive within ${BODY_READ_TIMEOUT_MS / 1000} s.`);
    this.name = 'BodyTimeoutError';
  }
}

/** The `Content-Length` of a request without `Transfer-Encoding`, or null when the body's length is not declared. */
function declaredLength(request: Request): number | null {
  if (request.headers.has('transfer-encoding')) return null;
  const header = request.headers.get('content-length');
  return header === null ? null : Number.parseInt(header, 10);
}

/** A read of the body, or `'late'` once `deadline` (ms since the epoch) has passed; the timer is cleared either way. */
async function readBefore(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  deadline: number,
): Promise<ReadableStreamReadResult<Uint8Array> | 'late'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([reader.read(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads and drops the rest of a refused body, up to {@link REFUSED_BODY_DRAIN_BYTES} and
 * {@link REFUSED_BODY_DRAIN_MS}, then cancels the read unless the body ended; waits for the cancel.
 */
async function dropRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  const deadline = Date.now() + REFUSED_BODY_DRAIN_MS;
  let dropped = 0;
  try {
    while (dropped <= REFUSED_BODY_DRAIN_BYTES) {
      const chunk = await readBefore(reader, deadline);
      if (chunk === 'late') break;
      if (chunk.done) return;
      dropped += chunk.value.length;
    }
  } catch {
    return; // the client went away: nothing is left to read
  }
  await reader.cancel().catch(() => undefined);
}

/**
 * Reads a body stream to its end, at most `maxBytes`, within {@link BODY_READ_TIMEOUT_MS}.
 * @returns the bytes, or null once more than `maxBytes` arrived (the rest is dropped, {@link dropRest})
 * @throws {IncompleteBodyError} when the stream fails (the client went away)
 * @throws {BodyTimeoutError} when the body is not complete in time (the read is cancelled)
 */
async function readAtMost(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array | null> {
  const reader = body.getReader();
  const deadline = Date.now() + BODY_READ_TIMEOUT_MS;
  let size = 0;
  let buffer = new Uint8Array(0);
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array> | 'late';
    try {
      chunk = await readBefore(reader, deadline);
    } catch {
      throw new IncompleteBodyError();
    }
    if (chunk === 'late') {
      await reader.cancel().catch(() => undefined);
      throw new BodyTimeoutError();
    }
    if (chunk.done) return buffer.subarray(0, size);
    const offset = size;
    size += chunk.value.length;
    if (size > maxBytes) {
      await dropRest(reader);
      return null;
    }
    if (size > buffer.length) {
      const grown = new Uint8Array(Math.min(maxBytes, Math.max(size, buffer.length * 2)));
      grown.set(buffer.subarray(0, offset));
      buffer = grown;
    }
    buffer.set(chunk.value, offset);
  }
}

/**
 * Middleware capping request bodies at `maxBytes` and {@link BODY_READ_TIMEOUT_MS}: a declared
 * `Content-Length` over the cap is refused before any byte is kept (the rest dropped, {@link dropRest}); every
 * other body is read here, counted, and handed on as bytes.
 * @param tooLarge the error to throw over the cap (413)
 * @throws {IncompleteBodyError} 400 when a body ends early
 * @throws {BodyTimeoutError} 408 when a body is not complete in time
 */
export function limitBody(maxBytes: number, tooLarge: () => ApiError): MiddlewareHandler {
  return async (c, next) => {
    const body = c.req.raw.body;
    if (!body) return next();
    const declared = declaredLength(c.req.raw);
    if (declared !== null && declared > maxBytes) {
      await dropRest(body.getReader());
      throw tooLarge();
    }
    const bytes = await readAtMost(body, maxBytes);
    if (bytes === null) throw tooLarge();
    // A GET or HEAD may carry a body on the wire, but not into a new Request (the Fetch standard throws a
    // TypeError, a 500): no route reads one, so it is read within the cap, as above, and dropped.
    const method = c.req.raw.method;
    if (method === 'GET' || method === 'HEAD') return next();
    c.req.raw = new Request(c.req.raw, { body: bytes });
    return next();
  };
}

/**
 * The request body as text (UTF-8), once.
 * @throws {IncompleteBodyError} 400 when the body ends early
 */
export async function requestText(c: Context): Promise<string> {
  try {
    return await c.req.text();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new IncompleteBodyError();
  }
}

/**
 * The request body as bytes, refusing more than `maxBytes` (by `Content-Length` before reading, else while
 * reading), within {@link BODY_READ_TIMEOUT_MS}.
 * @param tooLarge the error to throw over the cap (413)
 * @throws {IncompleteBodyError} 400 when the body ends early
 * @throws {BodyTimeoutError} 408 when the body is not complete in time
 */
export async function readBoundedBody(request: Request, maxBytes: number, tooLarge: () => ApiError): Promise<Uint8Array> {
  const declared = declaredLength(request);
  if (declared !== null && declared > maxBytes) {
    if (request.body) await dropRest(request.body.getReader());
    throw tooLarge();
  }
  if (!request.body) return new Uint8Array(0);
  const bytes = await readAtMost(request.body, maxBytes);
  if (bytes === null) throw tooLarge();
  return bytes;
}

/**
 * How many fields an `application/x-www-form-urlencoded` body holds, as URLSearchParams reads it (non-empty
 * `&`-separated segments), in one pass.
 */
export function formFieldCount(text: string): number {
  let count = 0;
  let start = 0;
  for (;;) {
    const end = text.indexOf('&', start);
    if ((end === -1 ? text.length : end) > start) count++;
    if (end === -1) return count;
    start = end + 1;
  }
}

/**
 * A form body read within bounds, before anything parses it: at most `maxBytes` and `maxFields` fields.
 * @returns the body's text and its fields
 * @throws {ApiError} `tooLarge()` (413) over `maxBytes`; 400 `invalid_request` over `maxFields`
 * @throws {IncompleteBodyError} 400 when the body ends early
 */
export async function readBoundedForm(
  request: Request,
  maxBytes: number,
  maxFields: number,
  tooLarge: () => ApiError,
): Promise<{ text: string; form: URLSearchParams }> {
  const text = new TextDecoder().decode(await readBoundedBody(request, maxBytes, tooLarge));
  if (formFieldCount(text) > maxFields) throw new ApiError('invalid_request', `The form may have at most ${maxFields} fields.`);
  return { text, form: new URLSearchParams(text) };
}
