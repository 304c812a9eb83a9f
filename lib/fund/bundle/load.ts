/**
 * `npm run fund -- import`: a validated bundle into the database, in one transaction (docs/import.md#modes).
 *
 * 1. Connect (node-postgres over TCP: the local server, or Neon's connection string with `sslmode=require`),
 *    `BEGIN`, and take a transaction-scoped advisory lock per fund, so two imports of one fund queue.
 * 2. Validate the whole bundle (lib/fund/bundle/validate.ts) before writing anything, spooling each valid
 *    row of the bulk files as COPY text (lib/fund/bundle/spool.ts). Any error: roll back.
 * 3. Plan. `replace`: the fund's rows are deleted (the foreign keys cascade) and the bundle's written.
 *    `append` (the default): runs newer than the latest stored one are new, with their rows. Anything the
 *    bundle holds up to that date is compared with what is stored (small tables row by row, bulk tables
 *    per date by digest); the same is nothing to do, a difference is a restatement, refused unless
 *    `allowRestatement` (then listed with old and new figures, and the stored rows of those dates replaced).
 *    An expense that was accrued and is now paid is a settlement, not a restatement.
 * 4. Write: small tables by `INSERT ... SELECT FROM json_to_recordset ... ON CONFLICT DO UPDATE`, bulk tables
 *    by `COPY ... FROM STDIN` (text format) streamed from the spool: the bundle is read once. `COMMIT`.
 *
 * Interrupted anywhere (SIGINT through `signal`, a dropped connection, a constraint the validation did not
 * know), the transaction is never committed and the server discards it: the database stays as it was.
 */
import { once } from 'node:events';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { ColumnMap } from './csv.ts';
import { BUNDLE_FILES, type BundleFile, bundleFile } from './format.ts';
import { textOf } from './export.ts';
import { Spool } from './spool.ts';
import { type Cell, type RunCells, type RunFigures, type Validation, bundleBytes, validateBundle } from './validate.ts';
import { FUND_KEY } from '../tables.ts';

/** How an import writes. */
export type ImportMode = 'append' | 'replace';

/** Options of {@link importBundle}. */
export interface ImportOptions {
  dir: string;
  fundId: string;
  mode: ImportMode;
  allowRestatement: boolean;
  /** Validate and plan, write nothing (the transaction is rolled back). Without `url`, validation only. */
  dryRun: boolean;
  map?: ColumnMap;
  maxErrors?: number;
  /** `postgres://...`; absent: a dry run validates the bundle only. */
  url?: string;
  /** Aborting drops the connection: the server rolls the transaction back. */
  signal?: AbortSignal;
  onProgress?: (p: Progress) => void;
}

/** Where an import is. */
export interface Progress {
  phase: 'validate' | 'write';
  /** File being read. */
  file: string;
  /** Bytes read (validate) or rows written (write) so far, and the total. */
  done: number;
  total: number;
  /** Rows so far, for the rows/s figure. */
  rows: number;
}

/** A stored run a bundle changes, with both sets of figures, and which tables change on its date. */
export interface Restatement {
  navDate: string;
  old: RunFigures | null;
  new: RunFigures | null;
  tables: string[];
}

/** A changed row of a small table (reference data or an expense). Personal keys are shown as the bundle's line. */
export interface ChangedRow {
  file: string;
  line: number;
  key: string | null;
  columns: string[];
}

/** What an import found and did. */
export interface ImportResult {
  validation: Validation;
  /** The latest stored run before the import (append), or null. */
  storedThrough: string | null;
  /** New runs the import writes (or would, in a dry run). */
  newRuns: string[];
  restatements: Restatement[];
  changedRows: ChangedRow[];
  settledExpenses: number;
  /** Rows written per table (empty for a dry run or a refused import). */
  written: Record<string, number>;
  /** What happened, for the exit code. */
  outcome: 'invalid' | 'refused' | 'dry-run' | 'no-op' | 'imported';
}

/** A stored run's figures as the report lists them. */
function storedRun(row: Cell[]): RunFigures {
  const [navDate, status, shadowNav, adminNav, reconStatus, netFlows] = row as RunCells;
  return { navDate, status, shadowNav, adminNav, reconStatus, netFlows, differenceBps: null, line: 0 };
}

/**
 * The connection string node-postgres is given: `sslmode=require` (Neon's connection strings) becomes
 * `sslmode=verify-full`, which is what node-postgres does with it anyway (TLS, the server's certificate
 * verified), without the deprecation warning it prints for `require`. Other URLs are unchanged.
 */
export function pgConnectionString(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.searchParams.get('sslmode') !== 'require' || parsed.searchParams.has('uselibpqcompat')) return url;
  parsed.searchParams.set('sslmode', 'verify-full');
  return parsed.toString();
}

/** Connects with node-postgres over TCP (TLS when the URL asks for it: {@link pgConnectionString}). */
export async function connectPg(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: pgConnectionString(url), application_name: 'fund-edge import' });
  client.on('error', () => {}); // a dropped connection fails the running query; nothing else to do here
  await client.connect();
  return client;
}

const keyOf = (spec: BundleFile, cells: readonly Cell[]) =>
  spec.key.map((k) => cells[spec.columns.findIndex((c) => c.name === k)]).join('\u0000');

/** Stored rows of a small table, canonical text in the file's column order. */
async function storedRows(client: pg.Client, spec: BundleFile, fundId: string): Promise<Cell[][]> {
  const cols = spec.columns.map((c) => textOf(c.name, c.type)).join(', ');
  const res = await client.query({
    text: `SELECT ${cols} FROM ${spec.table!.table} WHERE fund_id = $1`,
    values: [fundId],
    rowMode: 'array',
  });
  return res.rows as Cell[][];
}

/** The database's per-date digests of a bulk table on `dates` (validate.ts `rowDigest`, computed in SQL). */
async function storedDigests(
  client: pg.Client,
  spec: BundleFile,
  fundId: string,
  dates: string[],
): Promise<Map<string, { count: number; sum: bigint }>> {
  const line = `concat_ws(E'\\t', ${spec.columns.map((c) => `coalesce(${textOf(c.name, c.type)}, '\\N')`).join(', ')})`;
  const res = await client.query({
    text: `SELECT to_char(${spec.orderedBy}, 'YYYY-MM-DD'), count(*)::int, sum(('x' || substr(md5(${line}), 1, 15))::bit(60)::bigint)::text
      FROM ${spec.table!.table} WHERE fund_id = $1 AND ${spec.orderedBy} = ANY($2::date[]) GROUP BY 1`,
    values: [fundId, dates],
    rowMode: 'array',
  });
  return new Map((res.rows as [string, number, string][]).map(([d, count, sum]) => [d, { count, sum: BigInt(sum) }]));
}

/** Upserts rows of a small table (one statement; values as JSON text, so decimals stay exact). */
async function upsert(client: pg.Client, spec: BundleFile, fundId: string, rows: readonly Cell[][]): Promise<number> {
  if (rows.length === 0) return 0;
  const table = spec.table!.table;
  const cols = spec.columns.filter((c) => c.name !== FUND_KEY);
  const record = cols.map((_c, k) => `"c${k}" text`).join(', ');
  const values = cols.map((c, k) => `x."c${k}"::${c.type}`).join(', ');
  const key = [FUND_KEY, ...spec.key.filter((k) => k !== FUND_KEY)];
  const update = cols.filter((c) => !key.includes(c.name)).map((c) => `${c.name} = excluded.${c.name}`);
  const json = rows.map((cells) =>
    Object.fromEntries(spec.columns.flatMap((c, i) => (c.name === FUND_KEY ? [] : [[`c${cols.indexOf(c)}`, cells[i]]]))),
  );
  await client.query(
    `INSERT INTO ${table} (${FUND_KEY}, ${cols.map((c) => c.name).join(', ')})
     SELECT $1, ${values} FROM json_to_recordset($2::json) AS x(${record})
     ON CONFLICT (${key.join(', ')}) ${update.length ? `DO UPDATE SET ${update.join(', ')}` : 'DO NOTHING'}`,
    [fundId, JSON.stringify(json)],
  );
  return rows.length;
}

/**
 * Streams a table's spooled rows into it with `COPY FROM STDIN` (text format).
 * @returns rows written
 */
async function copySpooled(
  client: pg.Client,
  spool: Spool,
  spec: BundleFile,
  restated: ReadonlySet<string>,
  onBytes: (n: number) => void,
): Promise<number> {
  const table = spec.table!.table;
  const { streams, rows } = spool.streams(table, restated);
  if (streams.length === 0) return 0;
  const copy = client.query(copyFrom(`COPY ${table} (${FUND_KEY}, ${spec.columns.map((c) => c.name).join(', ')}) FROM STDIN`));
  let failure: unknown;
  copy.on('error', (err) => {
    failure = err;
  });
  const finished = once(copy, 'finish');
  finished.catch(() => {});
  for (const stream of streams)
    for await (const chunk of stream) {
      if (failure) throw failure;
      onBytes(chunk.length);
      if (!copy.write(chunk)) await Promise.race([once(copy, 'drain'), finished]);
    }
  copy.end();
  await finished;
  if (failure) throw failure;
  return rows();
}

/**
 * Validates and imports a bundle (see the module comment).
 * @throws {Error} on a database failure (the transaction is not committed), an unreadable file, or abort
 */
export async function importBundle(options: ImportOptions): Promise<ImportResult> {
  const { dir, fundId, mode } = options;
  let client: pg.Client | undefined;
  const abort = () => {
    // Drop the connection: the server rolls back the open transaction.
    (client as unknown as { connection?: { stream?: { destroy(): void } } })?.connection?.stream?.destroy();
  };
  options.signal?.addEventListener('abort', abort, { once: true });
  let spool: Spool | undefined;
  try {
    let storedThrough: string | null = null;
    if (options.url) {
      client = await connectPg(options.url);
      if (options.signal?.aborted) throw new Error('interrupted');
      const schema = await client.query(`SELECT to_regclass('funds') IS NOT NULL AS ok`);
      if (!schema.rows[0].ok) throw new Error('The database has no fund tables: run npm run db:migrate first.');
      await client.query(options.dryRun ? 'BEGIN READ ONLY' : 'BEGIN');
      await client.query(`SELECT pg_advisory_xact_lock(hashtextextended('fund-edge import ' || $1, 0))`, [fundId]);
      if (mode === 'append') {
        const res = await client.query(`SELECT to_char(max(nav_date), 'YYYY-MM-DD') AS d FROM nav_runs WHERE fund_id = $1`, [fundId]);
        storedThrough = res.rows[0].d;
      }
    }
    const total = bundleBytes(dir);
    let read = 0;
    if (client && !options.dryRun) spool = new Spool(fundId, storedThrough);
    const validation = await validateBundle(dir, {
      fundId,
      map: options.map,
      maxErrors: options.maxErrors,
      storedThrough,
      onBytes: (n, rows) => {
        read += n;
        options.onProgress?.({ phase: 'validate', file: '', done: read, total, rows });
      },
      ...(spool ? { onRow: spool.add.bind(spool) } : {}),
    });
    spool?.seal();
    const result: ImportResult = {
      validation,
      storedThrough,
      newRuns: [],
      restatements: [],
      changedRows: [],
      settledExpenses: 0,
      written: {},
      outcome: 'invalid',
    };
    if (validation.errorCount > 0 || !client) {
      if (client) await client.query('ROLLBACK');
      if (validation.errorCount === 0) {
        result.outcome = 'dry-run';
        result.newRuns = validation.runs.map((r) => r.navDate);
      }
      return result;
    }

    // Plan.
    const writeSmall: Record<string, Cell[][]> = {};
    const changedDates: Record<string, Set<string>> = {};
    if (mode === 'replace') {
      for (const spec of BUNDLE_FILES)
        if (spec.table && !spec.orderedBy) writeSmall[spec.table.table] = validation.small[spec.table.table] ?? [];
      result.newRuns = validation.runs.map((r) => r.navDate);
    } else {
      const L = storedThrough;
      const restated = new Map<string, Restatement>();
      const restate = (date: string, table: string) => {
        let r = restated.get(date);
        if (!r) {
          r = { navDate: date, old: null, new: null, tables: [] };
          restated.set(date, r);
        }
        if (!r.tables.includes(table)) r.tables.push(table);
      };
      for (const spec of BUNDLE_FILES) {
        if (!spec.table || spec.orderedBy) continue;
        const table = spec.table.table;
        const stored = new Map((await storedRows(client, spec, fundId)).map((cells) => [keyOf(spec, cells), cells]));
        const rows = validation.small[table] ?? [];
        const out: Cell[][] = [];
        const statusAt = spec.columns.findIndex((c) => c.name === 'status');
        for (const [index, cells] of rows.entries()) {
          const old = stored.get(keyOf(spec, cells));
          if (table === 'nav_runs') {
            const date = cells[0]!;
            if (L === null || date > L) {
              out.push(cells);
              result.newRuns.push(date);
            } else if (!old || old.join('\t') !== cells.join('\t')) {
              out.push(cells);
              restate(date, table);
              restated.get(date)!.old = old ? storedRun(old) : null;
            }
            continue;
          }
          if (!old) {
            out.push(cells);
            continue;
          }
          if (old.join('\t') === cells.join('\t')) continue;
          const differs = spec.columns.filter((_, k) => old[k] !== cells[k]).map((c) => c.name);
          if (
            table === 'expenses' &&
            old[statusAt] === 'accrued' &&
            cells[statusAt] === 'paid' &&
            differs.every((n) => n === 'status' || n === 'paid_date')
          ) {
            result.settledExpenses++;
            out.push(cells);
            continue;
          }
          const personalKey = spec.key.some((k) => spec.columns.find((c) => c.name === k)?.personal);
          const line = validation.smallLines[table]?.[index] ?? 0;
          result.changedRows.push({
            file: spec.file,
            line,
            key: personalKey ? null : keyOf(spec, cells).replaceAll('\u0000', ', '),
            columns: differs,
          });
          out.push(cells);
        }
        writeSmall[table] = out;
      }
      for (const spec of BUNDLE_FILES) {
        if (!spec.table || !spec.orderedBy) continue;
        const table = spec.table.table;
        const mine = validation.digests[table] ?? new Map();
        const changed = new Set<string>();
        if (mine.size > 0) {
          const theirs = await storedDigests(client, spec, fundId, [...mine.keys()]);
          for (const [date, d] of mine) {
            const s = theirs.get(date);
            if (!s || s.count !== d.count || s.sum !== d.sum) {
              changed.add(date);
              restate(date, table);
            }
          }
        }
        changedDates[table] = changed;
      }
      const runsByDate = new Map(validation.runs.map((r) => [r.navDate, r]));
      for (const r of restated.values()) {
        r.new = runsByDate.get(r.navDate) ?? null;
        if (!r.tables.includes('nav_runs') && r.new) {
          const stored = await client.query({
            text: `SELECT ${bundleFile('nav_runs')
              .columns.map((c) => textOf(c.name, c.type))
              .join(', ')} FROM nav_runs WHERE fund_id = $1 AND nav_date = $2`,
            values: [fundId, r.navDate],
            rowMode: 'array',
          });
          r.old = stored.rows[0] ? storedRun(stored.rows[0] as Cell[]) : null;
        }
      }
      result.restatements = [...restated.values()].sort((a, b) => (a.navDate < b.navDate ? -1 : 1));
      if ((result.restatements.length > 0 || result.changedRows.length > 0) && !options.allowRestatement) {
        await client.query('ROLLBACK');
        result.outcome = 'refused';
        return result;
      }
    }
    const nothing =
      mode === 'append' &&
      Object.values(writeSmall).every((rows) => rows.length === 0) &&
      result.newRuns.length === 0 &&
      result.restatements.length === 0 &&
      storedThrough !== null &&
      Object.values(validation.dates).every((dates) => [...dates].every((d) => d <= storedThrough!));
    if (options.dryRun || nothing) {
      await client.query('ROLLBACK');
      result.outcome = options.dryRun ? 'dry-run' : 'no-op';
      return result;
    }

    // Write: the small tables from memory, the bulk ones from the spool.
    const totalBytes = BUNDLE_FILES.reduce((sum, f) => sum + (f.table && f.orderedBy ? spool!.bytes(f.table.table) : 0), 0);
    let sent = 0;
    const progress = (f: string, bytes: number) => {
      sent += bytes;
      const rows = totalBytes > 0 ? Math.round((validation.tableRows * sent) / totalBytes) : validation.tableRows;
      options.onProgress?.({ phase: 'write', file: f, done: sent, total: totalBytes, rows });
    };
    if (mode === 'replace') await client.query('DELETE FROM funds WHERE fund_id = $1', [fundId]);
    for (const spec of BUNDLE_FILES) {
      if (!spec.table) continue;
      const table = spec.table.table;
      if (!spec.orderedBy) {
        result.written[table] = await upsert(client, spec, fundId, writeSmall[table] ?? []);
        continue;
      }
      const changed = changedDates[table] ?? new Set<string>();
      if (changed.size > 0)
        await client.query(`DELETE FROM ${table} WHERE fund_id = $1 AND ${spec.orderedBy} = ANY($2::date[])`, [fundId, [...changed]]);
      result.written[table] = await copySpooled(client, spool!, spec, changed, (n) => progress(spec.file, n));
    }
    if (options.signal?.aborted) throw new Error('interrupted');
    await client.query('COMMIT');
    result.outcome = 'imported';
    return result;
  } finally {
    options.signal?.removeEventListener('abort', abort);
    spool?.close();
    await client?.end().catch(() => {});
  }
}
