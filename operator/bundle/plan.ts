/**
 * The import's plan (docs/import.md#modes; step 3 of load.ts): from a valid bundle, and for an append from
 * what the database already holds, what is written.
 *
 * `replace`: every row of the bundle. `append`: runs newer than the latest stored one are new, with their
 * rows. Anything the bundle holds up to that date is compared with what is stored, small tables row by row
 * ({@link planSmallTables}), bulk tables per date by digest ({@link planBulkTables}; validate.ts
 * `rowDigest`, the same computed in SQL by {@link storedDigests}); the same is nothing to do, a difference
 * is a restatement (listed with the run's old and new figures), or for a small table a changed row. An
 * expense that was accrued and is now paid is a settlement, not a restatement. Whether restatements are
 * allowed is load.ts's to decide.
 */
import type pg from 'pg';
import { BUNDLE_FILES, type BundleFile, bundleFile } from './format.ts';
import { textOf } from './export.ts';
import type { Cell, RunCells, RunFigures, Validation } from './validate.ts';

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

/** What an import writes, and what it found changed on the way. */
export interface Plan {
  /** New runs, by date. */
  newRuns: string[];
  /** Restated runs, in date order (append only). */
  restatements: Restatement[];
  changedRows: ChangedRow[];
  /** Expenses accrued when stored and paid in the bundle. */
  settledExpenses: number;
  /** Per small table, the rows to upsert, canonical cells in the file's column order. */
  writeSmall: Record<string, Cell[][]>;
  /** Per bulk table, the stored dates whose rows the bundle restates (deleted, then written anew). */
  changedDates: Record<string, Set<string>>;
}

/** A stored run's figures as the report lists them. */
function storedRun(row: Cell[]): RunFigures {
  const [navDate, status, shadowNav, adminNav, reconStatus, netFlows] = row as RunCells;
  return { navDate, status, shadowNav, adminNav, reconStatus, netFlows, differenceBps: null, line: 0 };
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

/** The plan of a `replace`: every small table's rows and every run, nothing restated. */
export function planReplace(validation: Validation): Plan {
  const writeSmall: Record<string, Cell[][]> = {};
  for (const spec of BUNDLE_FILES)
    if (spec.table && !spec.orderedBy) writeSmall[spec.table.table] = validation.small[spec.table.table] ?? [];
  return {
    newRuns: validation.runs.map((r) => r.navDate),
    restatements: [],
    changedRows: [],
    settledExpenses: 0,
    writeSmall,
    changedDates: {},
  };
}

/** The restatements found so far, by date. */
type Restated = Map<string, Restatement>;

/** Notes that `table` changes on the stored run of `date`. */
function restate(restated: Restated, date: string, table: string): void {
  let r = restated.get(date);
  if (!r) {
    r = { navDate: date, old: null, new: null, tables: [] };
    restated.set(date, r);
  }
  if (!r.tables.includes(table)) r.tables.push(table);
}

/**
 * The plan of an `append` onto the runs stored up to `storedThrough` (null: none stored). Reads the fund's
 * stored small tables, the digests of the bulk tables' dates the bundle holds up to `storedThrough`, and
 * the stored figures of each restated run.
 * @throws {Error} on a database failure
 */
export async function planAppend(client: pg.Client, validation: Validation, fundId: string, storedThrough: string | null): Promise<Plan> {
  const plan: Plan = { newRuns: [], restatements: [], changedRows: [], settledExpenses: 0, writeSmall: {}, changedDates: {} };
  const restated: Restated = new Map();
  await planSmallTables(client, validation, fundId, storedThrough, plan, restated);
  await planBulkTables(client, validation, fundId, plan, restated);
  await figuresOfRestated(client, validation, fundId, restated);
  plan.restatements = [...restated.values()].sort((a, b) => (a.navDate < b.navDate ? -1 : 1));
  return plan;
}

/**
 * The small tables of an append, row by row against the stored ones: a run after `storedThrough` is new; a
 * stored run that differs is restated; another table's new row is written, an unchanged one skipped, a
 * changed one listed (an accrued expense now paid counts as settled instead) and written.
 */
async function planSmallTables(
  client: pg.Client,
  validation: Validation,
  fundId: string,
  storedThrough: string | null,
  plan: Plan,
  restated: Restated,
): Promise<void> {
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
        if (storedThrough === null || date > storedThrough) {
          out.push(cells);
          plan.newRuns.push(date);
        } else if (!old || old.join('\t') !== cells.join('\t')) {
          out.push(cells);
          restate(restated, date, table);
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
        plan.settledExpenses++;
        out.push(cells);
        continue;
      }
      const personalKey = spec.key.some((k) => spec.columns.find((c) => c.name === k)?.personal);
      const line = validation.smallLines[table]?.[index] ?? 0;
      plan.changedRows.push({
        file: spec.file,
        line,
        key: personalKey ? null : keyOf(spec, cells).replaceAll('\u0000', ', '),
        columns: differs,
      });
      out.push(cells);
    }
    plan.writeSmall[table] = out;
  }
}

/** The bulk tables of an append: each stored date the bundle holds whose digest differs from the stored rows' is restated. */
async function planBulkTables(client: pg.Client, validation: Validation, fundId: string, plan: Plan, restated: Restated): Promise<void> {
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
          restate(restated, date, table);
        }
      }
    }
    plan.changedDates[table] = changed;
  }
}

/** Each restated run's new figures (the bundle's) and, where its own row did not change, its stored ones. */
async function figuresOfRestated(client: pg.Client, validation: Validation, fundId: string, restated: Restated): Promise<void> {
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
}
