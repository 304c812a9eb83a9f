/**
 * The fuzzer's HTTP client: `node:http` rather than `fetch`, because the fuzzer must send what `fetch` will
 * not (a `Host` of its choosing, the same header twice, a body on any method, bytes that are not UTF-8), and
 * it must measure each answer against a time cap.
 */
import http from 'node:http';

/** One request as the fuzzer sends it. Header names may repeat (each pair is sent as its own line). */
export interface FuzzRequest {
  method: string;
  /** Path and query string, e.g. a fund endpoint's path and `?days=0x10`. */
  path: string;
  headers: [string, string][];
  /** The body as bytes (a string is sent as UTF-8). */
  body?: string | Uint8Array;
}

/** What came back: status, headers (lower-case names, repeated ones joined with `, `), body text, time taken. */
export interface FuzzAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Wall-clock milliseconds from sending to the last byte. */
  ms: number;
}

/** Thrown when no complete answer arrived within the time cap (the hang detector). */
export class FuzzTimeoutError extends Error {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`no complete answer within ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
    this.name = 'FuzzTimeoutError';
  }
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

/**
 * Sends `req` to `base` (`http://127.0.0.1:<port>`).
 * @param timeoutMs the per-request time cap; past it the socket is destroyed
 * @throws {FuzzTimeoutError} no complete answer within `timeoutMs`
 * @throws {Error} the connection failed or was reset (the oracle reports it as a failure)
 */
export function send(base: string, req: FuzzRequest, timeoutMs: number): Promise<FuzzAnswer> {
  const url = new URL(base);
  const grouped = new Map<string, { name: string; values: string[] }>();
  for (const [name, value] of req.headers) {
    const key = name.toLowerCase();
    const entry = grouped.get(key) ?? { name, values: [] };
    entry.values.push(value);
    grouped.set(key, entry);
  }
  const body = typeof req.body === 'string' ? Buffer.from(req.body, 'utf8') : req.body ? Buffer.from(req.body) : undefined;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = http.request({
      host: url.hostname,
      port: url.port,
      method: req.method,
      path: req.path,
      agent,
      setHost: !grouped.has('host'),
    });
    for (const { name, values } of grouped.values()) outgoing.setHeader(name, values.length === 1 ? values[0]! : values);
    if (body && !grouped.has('content-length')) outgoing.setHeader('content-length', body.byteLength);
    const timer = setTimeout(() => {
      outgoing.destroy(new FuzzTimeoutError(timeoutMs));
    }, timeoutMs);
    outgoing.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    outgoing.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      res.on('end', () => {
        clearTimeout(timer);
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started });
      });
    });
    outgoing.end(body);
  });
}

/** Closes the kept-alive sockets (so that a process can exit). */
export function closeConnections(): void {
  agent.destroy();
}
