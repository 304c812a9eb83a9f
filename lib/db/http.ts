/**
 * One-shot reads over SQL-over-HTTP, Neon's protocol (what `@neondatabase/serverless`'s `neon()` sends):
 * each statement is one `POST /sql` on its own, with no connection to make, hold or close, and none of the
 * driver's code (its WebSocket, Postgres wire protocol, Buffer and EventEmitter shims). A fresh isolate's first
 * database request spends most of its CPU in that code (docs/configuration.md#statements-and-round-trips-per-request-hyperdrive).
 * Locally the project's proxy (scripts/pg-ws-proxy.ts) answers the same protocol in front of PostgreSQL.
 *
 * The protocol, as the driver (1.x) speaks it: a JSON body `{ queries: [{ query, params }] }` (a batch: one
 * transaction), headers `Neon-Connection-String` (the `postgresql://` URL), `Neon-Raw-Text-Output: true`
 * (every value as Postgres's text form), `Neon-Array-Mode: true` (rows as arrays), and for a batch
 * `Neon-Batch-Read-Only` / `Neon-Batch-Isolation-Level`. 200 answers `{ results: [{ fields: [{ name,
 * dataTypeID }], rows }] }`; 400 a Postgres error `{ message, code, ... }`; any other status is the
 * service's own failure.
 *
 * Guarantees, as operator/db/session.ts's: every statement runs under the time budget (the request is aborted
 * at it: {@link UpstreamUnavailableError}), and the server holds it to the same budget (`SET LOCAL
 * statement_timeout` first in the same batch, so in the same transaction and round trip); a failure of
 * the database as a service (unreachable, dropped, late, SQLSTATE classes 08/53/57/58) is a 503 and never
 * carries the driver's or the server's message; a fault of the statement itself is a plain 500 whose cause
 * (for logs) is the server's error.
 */
import { ApiError, UpstreamUnavailableError } from '../errors.ts';
import { isUnavailable, QUERY_TIMEOUT_MS, type Database } from './sql.ts';

/** Where and how to send statements. */
export interface HttpDatabaseConfig {
  /** `postgres://user:password@host:port/db` (a Worker secret in production). */
  url: string;
  /**
   * The SQL-over-HTTP endpoint: for Neon `https://api.<the host without its first label>/sql` (what the
   * driver derives, {@link neonHttpEndpoint}); locally the proxy's `http://127.0.0.1:<port>/sql`.
   */
  endpoint: string;
  timeoutMs?: number;
  /** The fetch to send with (tests); the global one by default. */
  fetch?: typeof fetch;
}

/**
 * The endpoint for a database URL: the local proxy's when one is configured (`DATABASE_WS_PROXY`,
 * `host:port/path`: the same server answers `POST /sql`), else Neon's for the URL's host, as the driver
 * derives it (`ep-x.region.aws.neon.tech` → `https://api.region.aws.neon.tech/sql`).
 */
export function neonHttpEndpoint(url: string, localProxy?: string): string {
  if (localProxy) return `http://${localProxy.split('/')[0]}/sql`;
  return `https://${new URL(url).hostname.replace(/^[^.]+\./, 'api.')}/sql`;
}

/** A server's error as the protocol answers it (400): Postgres's fields, `code` the SQLSTATE. */
export class SqlOverHttpError extends Error {
  readonly code: string | undefined;
  constructor(body: { message?: unknown; code?: unknown }) {
    super(typeof body.message === 'string' ? body.message : 'A database statement failed.');
    this.name = 'SqlOverHttpError';
    this.code = typeof body.code === 'string' ? body.code : undefined;
  }
}

/**
 * Parsers of Postgres's text output by type OID, as `pg-types` (the driver's) parses them by default for the
 * types they share: booleans, 16- and 32-bit integers, oids and floats as numbers, `json`/`jsonb` parsed.
 * Every other type stays its text form (`int8` and `numeric` as the driver also leaves them; dates and
 * timestamps, which the driver would make `Date`s, are text here: the service reads none).
 */
const PARSERS: Record<number, (text: string) => unknown> = {
  16: (t) => t === 't' || t === 'true',
  21: Number,
  23: Number,
  26: Number,
  700: Number,
  701: Number,
  114: JSON.parse,
  3802: JSON.parse,
};

/**
 * A parameter's text form as the driver's `prepareValue` (from `pg`) makes it: null stays null, a Date
 * its ISO form, an array a Postgres array literal (elements quoted, `"` and `\` escaped), another object
 * its JSON, anything else its string.
 */
export function encodeParam(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return arrayLiteral(value);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** `{"a","b\"c",NULL,{"nested"}}`: linear in the array's text. */
function arrayLiteral(values: readonly unknown[]): string {
  const parts = values.map((v) => {
    if (v === null || v === undefined) return 'NULL';
    if (Array.isArray(v)) return arrayLiteral(v);
    const text = encodeParam(v) as string;
    return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  });
  return `{${parts.join(',')}}`;
}

/** One statement's result as the protocol sends it. */
interface WireResult {
  fields: { name: string; dataTypeID: number }[];
  rows: (string | null)[][];
}

/** Rows as objects keyed by column name, each value parsed by its type ({@link PARSERS}). */
export function rowsOf(result: WireResult): Record<string, unknown>[] {
  const parsers = result.fields.map((f) => PARSERS[f.dataTypeID]);
  const names = result.fields.map((f) => f.name);
  return result.rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) {
      const v = row[i] ?? null;
      const parse = parsers[i];
      out[names[i]!] = v === null || !parse ? v : parse(v);
    }
    return out;
  });
}

/**
 * A database for one request's one-shot reads: each `query` is one HTTP round trip (a read-only batch of
 * `SET LOCAL statement_timeout` and the statement). Nothing is held between statements, so statements do
 * not share a session (no transaction across them: use operator/db/session.ts's `openDatabase` for that).
 * @throws from `query`: {@link UpstreamUnavailableError} 503; any other database error as a plain 500
 */
export function openHttpDatabase(config: HttpDatabaseConfig): Database {
  const timeoutMs = config.timeoutMs ?? QUERY_TIMEOUT_MS;
  const send = config.fetch ?? fetch;
  const url = config.url.replace(/^postgres:/, 'postgresql:');
  const headers = {
    'Content-Type': 'application/json',
    'Neon-Connection-String': url,
    'Neon-Raw-Text-Output': 'true',
    'Neon-Array-Mode': 'true',
    'Neon-Batch-Read-Only': 'true',
  };
  // An integer of milliseconds, so the statement is a constant: never a parameter's text.
  const budget = { query: `SET LOCAL statement_timeout = ${Math.max(1, Math.floor(timeoutMs))}`, params: [] };
  let roundTrips = 0;
  return {
    get roundTrips() {
      return roundTrips;
    },
    release: async () => {},
    async query<R>(text: string, params: readonly unknown[] = []) {
      roundTrips++;
      try {
        const body = JSON.stringify({ queries: [budget, { query: text, params: params.map(encodeParam) }] });
        // The runtime's own timer (no timer object of ours to clear): aborts the request at the budget.
        const signal = AbortSignal.timeout(timeoutMs);
        const res = await send(config.endpoint, { method: 'POST', headers, body, signal });
        if (res.status === 400) throw new SqlOverHttpError((await res.json()) as { message?: unknown; code?: unknown });
        if (!res.ok) {
          await res.body?.cancel();
          throw new UpstreamUnavailableError();
        }
        const answer = (await res.json()) as { results?: WireResult[] };
        const result = answer.results?.[1];
        if (!result || !Array.isArray(result.fields) || !Array.isArray(result.rows)) throw new UpstreamUnavailableError();
        return { rows: rowsOf(result) as R[] };
      } catch (err) {
        if (err instanceof ApiError || isUnavailable(err)) throw err instanceof ApiError ? err : new UpstreamUnavailableError();
        throw new Error('A database statement failed.', { cause: err });
      }
    },
  };
}
