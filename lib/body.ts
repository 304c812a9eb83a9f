/**
 * Reading request bodies, in one place: the size cap in front of every route ({@link limitBody}), bounded
 * reads ({@link readBoundedBody}, for the OAuth endpoints' smaller caps), and a body the client never
 * finished. A client that hangs up mid-body makes the runtime's body stream fail ("Network connection
 * lost."); that is the client's doing, so it becomes {@link IncompleteBodyError} (400, not logged) here,
 * where the body is read, rather than an `unexpected_error` 500 wherever the read happened to be awaited.
 * Every read is one pass over the bytes (linear in the body).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { ApiError } from './errors.ts';

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

/** The `Content-Length` of a request without `Transfer-Encoding`, or null when the body's length is not declared. */
function declaredLength(request: Request): number | null {
  if (request.headers.has('transfer-encoding')) return null;
  const header = request.headers.get('content-length');
  return header === null ? null : Number.parseInt(header, 10);
}

/**
 * Reads a body stream to its end, at most `maxBytes`.
 * @returns the bytes, or null once more than `maxBytes` arrived (the stream is cancelled)
 * @throws {IncompleteBodyError} when the stream fails (the client went away)
 */
async function readAtMost(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array | null> {
  const reader = body.getReader();
  let size = 0;
  let buffer = new Uint8Array(0);
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch {
      throw new IncompleteBodyError();
    }
    if (chunk.done) return buffer.subarray(0, size);
    const offset = size;
    size += chunk.value.length;
    if (size > maxBytes) {
      reader.cancel().catch(() => undefined);
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
 * Middleware capping request bodies at `maxBytes`: a declared `Content-Length` over it is refused before any
 * byte is read; a body of undeclared length (chunked) is read here, counted, and handed on as bytes. The
 * handlers read declared-length bodies themselves, through {@link requestText} or {@link readBoundedBody}.
 * @param tooLarge the error to throw over the cap (413)
 * @throws {IncompleteBodyError} 400 when an undeclared-length body ends early
 */
export function limitBody(maxBytes: number, tooLarge: () => ApiError): MiddlewareHandler {
  return async (c, next) => {
    const body = c.req.raw.body;
    if (!body) return next();
    const declared = declaredLength(c.req.raw);
    if (declared !== null) {
      if (declared > maxBytes) throw tooLarge();
      return next();
    }
    const bytes = await readAtMost(body, maxBytes);
    if (bytes === null) throw tooLarge();
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
 * reading).
 * @param tooLarge the error to throw over the cap (413)
 * @throws {IncompleteBodyError} 400 when the body ends early
 */
export async function readBoundedBody(request: Request, maxBytes: number, tooLarge: () => ApiError): Promise<Uint8Array> {
  const declared = declaredLength(request);
  if (declared !== null && declared > maxBytes) throw tooLarge();
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
