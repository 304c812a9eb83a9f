/**
 * Neon's SQL-over-HTTP protocol in front of a plain PostgreSQL server, for local development and tests:
 * what Neon's endpoint answers in production, so that lib/db/http.ts (and the driver's `neon()`) reach a
 * local server exactly as they reach Neon. Served by scripts/pg-ws-proxy.ts on `POST /sql`.
 *
 * What it implements, read from `@neondatabase/serverless` 1.x (what the driver sends and expects):
 * - the request: `Neon-Connection-String` (a `postgres(ql)://` URL, which must name the proxy's target:
 *   else 403), a JSON body `{ query, params }` (one statement) or `{ queries: [{ query, params }] }` (a
 *   batch, run in one transaction: `Neon-Batch-Isolation-Level` `Serializable` | `ReadUncommitted` |
 *   `ReadCommitted` | `RepeatableRead`, `Neon-Batch-Read-Only` and `Neon-Batch-Deferrable` `true`);
 *   params are text or null, sent as untyped parameters;
 * - the answer: 200 with `{ fields: [{ name, dataTypeID, ... }], rows, command, rowCount, rowAsArray }`
 *   per statement (`{ results: [...] }` for a batch), every value in Postgres's text form, rows as arrays
 *   (`Neon-Raw-Text-Output` and `Neon-Array-Mode`, the only modes the driver sends); 400 with the
 *   server's error fields (`message`, `code`, `severity`, `detail`, `hint`, `position`, ...) when a
 *   statement fails; 502 text when the server cannot be reached or the connection fails.
 * Each request is one connection, opened for it and closed after it, as the endpoint's are.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import pg from 'pg';

/** The statement forms of the protocol's body. */
interface Statement {
  query: string;
  params?: (string | null)[];
}

/** The batch isolation levels the protocol names, as SQL. */
const ISOLATION: Record<string, string> = {
  Serializable: 'SERIALIZABLE',
  ReadUncommitted: 'READ UNCOMMITTED',
  ReadCommitted: 'READ COMMITTED',
  RepeatableRead: 'REPEATABLE READ',
};

/** The error fields the driver copies from a 400 answer onto its error (`pg`'s names). */
const ERROR_FIELDS = [
  'severity',
  'code',
  'detail',
  'hint',
  'position',
  'internalPosition',
  'internalQuery',
  'where',
  'schema',
  'table',
  'column',
  'dataType',
  'constraint',
  'file',
  'line',
  'routine',
] as const;

/** Every value as the server's text: no parsing in the proxy. */
const RAW_TYPES = { getTypeParser: () => (value: string) => value };

/** Largest request body accepted (the driver sends one statement or batch of them). */
const MAX_BODY = 16 * 1024 * 1024;

/**
 * Answers one `POST /sql`.
 * @param allowed whether the connection string's `host`/`port` name the proxy's target
 * @param track registers the request's connection, so that a test can drop it (returns the untrack)
 */
export async function answerSqlOverHttp(
  req: IncomingMessage,
  res: ServerResponse,
  target: { host: string; port: number },
  allowed: (host: string, port: number) => boolean,
  track: (drop: () => void) => () => void,
): Promise<void> {
  const send = (status: number, body: unknown) => {
    if (res.headersSent || res.destroyed) return;
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': typeof body === 'string' ? 'text/plain' : 'application/json' }).end(text);
  };
  const connection = req.headers['neon-connection-string'];
  let url: URL;
  try {
    url = new URL(String(connection));
    if (!/^postgres(ql)?:$/.test(url.protocol)) throw new Error('scheme');
  } catch {
    return send(400, { message: 'Neon-Connection-String must be a postgres:// URL.' });
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowed(host, url.port ? Number(url.port) : 5432)) return send(403, 'This proxy serves only its own target.');

  let body: { query?: string; params?: Statement['params']; queries?: Statement[] };
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY) return send(413, 'Request body too large.');
      chunks.push(chunk);
    }
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return send(400, { message: 'The body must be JSON.' });
  }
  const batch = Array.isArray(body.queries);
  const statements: Statement[] = batch ? body.queries! : [{ query: String(body.query), params: body.params }];

  const client = new pg.Client({
    host: target.host,
    port: target.port,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: decodeURIComponent(url.pathname.slice(1)),
    application_name: url.searchParams.get('application_name') ?? undefined,
    types: RAW_TYPES,
  });
  client.on('error', () => {});
  let dropped = false;
  /** Closes both sides at once: the client's socket and the server connection (whose statement ends with it). */
  const drop = () => {
    dropped = true;
    res.destroy();
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    void client.end().catch(() => {});
  };
  const untrack = track(drop);
  // A client that goes away (its time budget) takes its statement with it, as the endpoint's connection would.
  res.on('close', () => {
    if (!res.writableFinished) {
      drop();
      untrack();
    }
  });
  try {
    await client.connect();
  } catch {
    untrack();
    return send(502, 'Could not connect to the database.');
  }
  try {
    if (batch) {
      const level = ISOLATION[String(req.headers['neon-batch-isolation-level'])];
      const readOnly = req.headers['neon-batch-read-only'] === 'true';
      const deferrable = req.headers['neon-batch-deferrable'] === 'true';
      await client.query(
        ['BEGIN', level && `ISOLATION LEVEL ${level}`, readOnly && 'READ ONLY', deferrable && 'DEFERRABLE'].filter(Boolean).join(' '),
      );
    }
    const results = [];
    for (const s of statements) {
      const r = await client.query({ text: s.query, values: s.params ?? [], rowMode: 'array' });
      results.push({
        fields: r.fields.map((f) => ({ ...f })),
        command: r.command,
        rowCount: r.rowCount,
        rows: r.rows,
        rowAsArray: true,
      });
    }
    if (batch) await client.query('COMMIT');
    send(200, batch ? { results } : results[0]);
  } catch (err) {
    if (dropped) return;
    const e = err as Record<string, unknown> & { message?: string };
    if (typeof e.code !== 'string') return send(502, 'The database connection failed.');
    const answer: Record<string, unknown> = { message: e.message };
    for (const f of ERROR_FIELDS) if (e[f] !== undefined) answer[f] = e[f];
    send(400, answer);
  } finally {
    untrack();
    await client.end().catch(() => {});
  }
}
