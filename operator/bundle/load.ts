/**
 * `npm run fund -- import`: a validated bundle into the database, in one transaction (docs/import.md#modes).
 *
 * 1. Connect (node-postgres over TCP: the local server, or Neon's connection string with `sslmode=require`),
 *    `BEGIN`, and take a transaction-scoped advisory lock per fund, so two imports of one fund queue.
 * 2. Validate the whole bundle (operator/bundle/validate.ts) before writing anything, spooling each valid
 *    row of the bulk files as COPY text (operator/bundle/spool.ts). Any error: roll back.
 * 3. Plan (operator/bundle/plan.ts). `replace`: the fund's rows are deleted (the foreign keys cascade) and
 *    the bundle's written. `append` (the default): runs newer than the latest stored one are new, with their
 *    rows. Anything the bundle holds up to that date is compared with what is stored (small tables row by
 *    row, bulk tables per date by digest); the same is nothing to do, a difference is a restatement, refused
 *    unless `allowRestatement` (then listed with old and new figures, and the stored rows of those dates
 *    replaced). An expense that was accrued and is now paid is a settlement, not a restatement.
 * 4. Write: small tables by `INSERT ... SELECT FROM json_to_recordset ... ON CONFLICT DO UPDATE`, bulk tables
 *    by `COPY ... FROM STDIN` (text format) streamed from the spool: the bundle is read once. Then the
 *    derived data (`fund_derive`, and VaR's moments: operator/db/var-moments.ts). `COMMIT`.
 *
 * Interrupted anywhere (SIGINT through `signal`, a dropped connection, a constraint the validation did not
 * know), the transaction is never committed and the server discards it: the database stays as it was.
 */
import { once } from 'node:events';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { ColumnMap } from './csv.ts';
import { BUNDLE_FILES, type BundleFile } from './format.ts';
import { type ChangedRow, type Plan, type Restatement, planAppend, planReplace } from './plan.ts';
import { Spool } from './spool.ts';
import { type Cell, type Validation, bundleBytes, validateBundle } from './validate.ts';
import { FUND_KEY } from '../../lib/fund/tables.ts';
import { storeVarMoments } from '../db/var-moments.ts';
import { storeIdentitySet } from '../db/identity-sets.ts';

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
 * Validates and imports a bundle (see the module comment): the transaction begun, the bundle validated and
 * spooled, the plan made, then written and committed, or rolled back at the first reason not to.
 * @throws {Error} on a database failure (the transaction is not committed), an unreadable file, or abort
 */
export async function importBundle(options: ImportOptions): Promise<ImportResult> {
  const { fundId, mode } = options;
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
      storedThrough = await beginImport(client, options);
    }
    if (client && !options.dryRun) spool = new Spool(fundId, storedThrough);
    const validation = await validateSpooling(options, storedThrough, spool);
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
    const plan = mode === 'replace' ? planReplace(validation) : await planAppend(client, validation, fundId, storedThrough);
    result.newRuns = plan.newRuns;
    result.restatements = plan.restatements;
    result.changedRows = plan.changedRows;
    result.settledExpenses = plan.settledExpenses;
    const refused = (plan.restatements.length > 0 || plan.changedRows.length > 0) && !options.allowRestatement;
    if (refused || options.dryRun || (mode === 'append' && changesNothing(plan, validation, storedThrough))) {
      await client.query('ROLLBACK');
      result.outcome = refused ? 'refused' : options.dryRun ? 'dry-run' : 'no-op';
      return result;
    }
    result.written = await writePlan(client, spool!, validation, plan, options);
    await deriveSums(client, fundId, mode === 'replace' ? null : storedThrough, plan);
    // VaR's moments of the latest usable run (db/migrations/0004_var_moments.sql), from the rows just written.
    await storeVarMoments(client, fundId);
    // The identity set compiled from the investors now stored (db/migrations/0005_identity_sets.sql).
    await storeIdentitySet(client, fundId);
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

/**
 * Begins the import's transaction (read-only for a dry run) once the schema is there, and takes the fund's
 * transaction-scoped advisory lock, so two imports of one fund queue.
 * @returns the latest stored run's date of the fund for an append (null when none is stored, or for a replace)
 * @throws {Error} without the fund tables (the database was not migrated), on abort, or on a database failure
 */
async function beginImport(client: pg.Client, options: ImportOptions): Promise<string | null> {
  if (options.signal?.aborted) throw new Error('interrupted');
  const schema = await client.query(`SELECT to_regclass('funds') IS NOT NULL AS ok`);
  if (!schema.rows[0].ok) throw new Error('The database has no fund tables: run npm run db:migrate first.');
  await client.query(options.dryRun ? 'BEGIN READ ONLY' : 'BEGIN');
  await client.query(`SELECT pg_advisory_xact_lock(hashtextextended('fund-edge import ' || $1, 0))`, [options.fundId]);
  if (options.mode !== 'append') return null;
  const res = await client.query(`SELECT to_char(max(nav_date), 'YYYY-MM-DD') AS d FROM nav_runs WHERE fund_id = $1`, [options.fundId]);
  return res.rows[0].d;
}

/** Validates the bundle (validate.ts), reporting progress by bytes read, and hands each valid bulk row to the spool when there is one. */
function validateSpooling(options: ImportOptions, storedThrough: string | null, spool: Spool | undefined): Promise<Validation> {
  const total = bundleBytes(options.dir);
  let read = 0;
  return validateBundle(options.dir, {
    fundId: options.fundId,
    map: options.map,
    maxErrors: options.maxErrors,
    storedThrough,
    onBytes: (n, rows) => {
      read += n;
      options.onProgress?.({ phase: 'validate', file: '', done: read, total, rows });
    },
    ...(spool ? { onRow: spool.add.bind(spool) } : {}),
  });
}

/** Whether an append's plan writes nothing: no new or changed row or run, and every bulk row dated up to the latest stored run. */
function changesNothing(plan: Plan, validation: Validation, storedThrough: string | null): boolean {
  return (
    Object.values(plan.writeSmall).every((rows) => rows.length === 0) &&
    plan.newRuns.length === 0 &&
    plan.restatements.length === 0 &&
    storedThrough !== null &&
    Object.values(validation.dates).every((dates) => [...dates].every((d) => d <= storedThrough))
  );
}

/**
 * Makes the fund's derived sums (db/migrations/0002_derived_data.sql) exact again in the open transaction,
 * from the earliest date the import wrote: the first restated date, else the day after the latest stored run
 * (an append writes no row dated before it otherwise); the whole fund after a replace or into an empty fund.
 * Then checks them: the running ledger balances at the latest run against the ledger lines summed.
 * @throws {Error} when the check fails (the transaction is not committed), or on a database failure
 */
async function deriveSums(client: pg.Client, fundId: string, storedThrough: string | null, plan: Plan): Promise<void> {
  const restated = Object.values(plan.changedDates).flatMap((dates) => [...dates]);
  const from = storedThrough === null ? null : [...restated, nextDay(storedThrough)].sort()[0]!;
  await client.query('SELECT fund_derive($1, $2::date)', [fundId, from]);
  const { rows } = await client.query(DERIVED_CHECK_SQL, [fundId]);
  if (rows[0].mismatches > 0)
    throw new Error(`The derived sums of ${fundId} disagree with its rows (${rows[0].mismatches} accounts, runs or assets).`);
}

/** `date` (YYYY-MM-DD) plus one calendar day. */
function nextDay(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/**
 * The derived sums' invariants, counted as mismatches: each account's latest running balance equals its
 * ledger lines summed, the latest run's position sums equal its live positions summed, and the assets' arrays
 * of closes are one per asset with closes, each ending at its latest close (date, and value as a double).
 */
const DERIVED_CHECK_SQL = `
  WITH lines AS (
    SELECT account_code, SUM(debit) AS debit, SUM(credit) AS credit FROM ledger_lines WHERE fund_id = $1 GROUP BY account_code),
  latest AS (
    SELECT DISTINCT ON (account_code) account_code, debit, credit FROM ledger_balances WHERE fund_id = $1
    ORDER BY account_code, entry_date DESC),
  run AS (SELECT max(nav_date) AS d FROM nav_runs WHERE fund_id = $1),
  sums AS (
    SELECT p.asset_class, p.market_value < 0 AS negative, SUM(p.market_value) AS market_value FROM positions p
    WHERE p.fund_id = $1 AND p.book = 'live' AND p.nav_date = (SELECT d FROM run) GROUP BY 1, 2)
  SELECT (
    SELECT count(*) FROM lines l FULL JOIN latest b USING (account_code)
    WHERE l.debit IS DISTINCT FROM b.debit OR l.credit IS DISTINCT FROM b.credit) + (
    SELECT count(*) FROM sums s FULL JOIN (SELECT * FROM position_sums WHERE fund_id = $1 AND nav_date = (SELECT d FROM run)) t
      USING (asset_class, negative)
    WHERE s.market_value IS DISTINCT FROM t.market_value) + (
    SELECT count(*) FROM asset_closes a LEFT JOIN LATERAL (
      SELECT z.price_date, z.price FROM prices z WHERE z.fund_id = $1 AND z.asset = a.asset ORDER BY z.price_date DESC LIMIT 1) z ON true
    WHERE a.fund_id = $1 AND (z.price_date IS DISTINCT FROM a.dates[cardinality(a.dates)]
      OR z.price::float8 IS DISTINCT FROM a.closes[cardinality(a.closes)]
      OR cardinality(a.dates) <> cardinality(a.closes))) + abs(
    (SELECT count(*) FROM asset_closes WHERE fund_id = $1) - (SELECT count(DISTINCT asset) FROM prices WHERE fund_id = $1)) AS mismatches`;

/**
 * Writes the plan in the open transaction: for a replace, the fund's rows deleted first; the small tables
 * upserted from memory; for each bulk table, the restated dates' stored rows deleted, then the spool copied
 * in, with progress by bytes sent.
 * @returns rows written per table
 * @throws {Error} on a database failure
 */
async function writePlan(
  client: pg.Client,
  spool: Spool,
  validation: Validation,
  plan: Plan,
  options: ImportOptions,
): Promise<Record<string, number>> {
  const { fundId } = options;
  const written: Record<string, number> = {};
  const totalBytes = BUNDLE_FILES.reduce((sum, f) => sum + (f.table && f.orderedBy ? spool.bytes(f.table.table) : 0), 0);
  let sent = 0;
  const progress = (f: string, bytes: number) => {
    sent += bytes;
    const rows = totalBytes > 0 ? Math.round((validation.tableRows * sent) / totalBytes) : validation.tableRows;
    options.onProgress?.({ phase: 'write', file: f, done: sent, total: totalBytes, rows });
  };
  if (options.mode === 'replace') await client.query('DELETE FROM funds WHERE fund_id = $1', [fundId]);
  for (const spec of BUNDLE_FILES) {
    if (!spec.table) continue;
    const table = spec.table.table;
    if (!spec.orderedBy) {
      written[table] = await upsert(client, spec, fundId, plan.writeSmall[table] ?? []);
      continue;
    }
    const changed = plan.changedDates[table] ?? new Set<string>();
    if (changed.size > 0)
      await client.query(`DELETE FROM ${table} WHERE fund_id = $1 AND ${spec.orderedBy} = ANY($2::date[])`, [fundId, [...changed]]);
    written[table] = await copySpooled(client, spool, spec, changed, (n) => progress(spec.file, n));
  }
  return written;
}
