/**
 * The validator's state ({@link ValidationState}), made once per bundle by {@link startValidation} and
 * carried through every file's step (small-files.ts, bulk-files.ts, in the order validate.ts runs them),
 * and the operations every step shares on it: reporting an error, the column rules, and streaming a file
 * with each row's cells checked against them ({@link scan}). The bookkeeping of each kind of file (a small
 * file's rows, a bulk file's dates) is beside its steps.
 *
 * Per row, {@link scan} allocates nothing: one array of checked cells per file is reused for every row (a
 * small file's rows are copied as they are kept), and the callbacks a step hands in are made once per file.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type BundleError, type ColumnMap, scanFile } from './csv.ts';
import { type FormulaCells, FormulaTally, looksLikeFormula } from './formulas.ts';
import type { BundleFile, FileColumn } from './format.ts';
import * as X from '../../lib/decimal.ts';

/** A cell after checking: its text (canonical decimal for numeric), or null for an empty nullable cell. */
export type Cell = string | null;

/** A NAV run as the bundle gives it, the reconciliation status filled in when the file left it empty. */
export interface RunFigures {
  navDate: string;
  status: string;
  shadowNav: string | null;
  adminNav: string | null;
  /** As given, or computed from the tolerance when the file left it empty. */
  reconStatus: string | null;
  netFlows: string;
  /** (shadow − administrator) / administrator in basis points, 2 dp, half-up; null without both NAVs. */
  differenceBps: string | null;
  line: number;
}

/** A NAV run's cells: date, status, shadow NAV, administrator's NAV, reconciliation status, net flows (nav_runs.csv order). */
export type RunCells = [string, string, string | null, string | null, string | null, string];

/** Row count and order-independent digest of one date's rows of a bulk table. */
export interface DateDigest {
  count: number;
  sum: bigint;
}

/** What validation found and gathered. */
export interface Validation {
  errors: BundleError[];
  /** Every error found, including those past the cap. */
  errorCount: number;
  /** Data rows and bytes per file present. */
  files: Record<string, { rows: number; bytes: number }>;
  fundId: string | null;
  toleranceBps: string | null;
  runs: RunFigures[];
  /** The small files' rows, canonical cells in spec column order (funds, share classes, fee terms, accounts, investors, expenses, NAV runs). */
  small: Record<string, Cell[][]>;
  /** The line of each row of {@link small}. */
  smallLines: Record<string, number[]>;
  /** Per bulk table, per date up to the latest stored run: digests of the bundle's rows (bulk-files.ts `rowDigest`). */
  digests: Record<string, Map<string, DateDigest>>;
  /** Dates each bulk table has rows for. */
  dates: Record<string, Set<string>>;
  /** Data rows of all table files (what a full load writes). */
  tableRows: number;
  /** Per file, the text cells a spreadsheet would run as formulas (a warning, not an error: they are kept). */
  formulas: FormulaCells[];
}

/** Options of validate.ts `validateBundle`. */
export interface ValidateOptions {
  /** The fund the bundle must be for (`funds.csv`). */
  fundId: string;
  map?: ColumnMap;
  /** Errors kept (the rest only counted); default 100. */
  maxErrors?: number;
  /** The latest stored run of the fund (append): rows dated up to it are digested, not only checked. */
  storedThrough?: string | null;
  /** Progress: called per chunk read with its size in bytes and the data rows read so far. */
  onBytes?: (n: number, rows: number) => void;
  /** Receives every valid row of a table's bulk file (the import spools them for COPY; operator/bundle/spool.ts). */
  onRow?: (table: string, date: string, cells: readonly Cell[]) => void;
}

/**
 * Everything the validator knows while it reads a bundle: its options, the result it is building, and what
 * one file's rules need from the files read before it (the keys that later files reference, the runs, the
 * fund's reconciliation tolerance).
 */
export interface ValidationState {
  /** The bundle's folder. */
  dir: string;
  options: ValidateOptions;
  map: ColumnMap;
  maxErrors: number;
  storedThrough: string | null;
  /** The result, filled in as the files are read. */
  v: Validation;
  /** Data rows read so far, over all files (progress). */
  rowsRead: number;
  /** Share class ids of share_classes.csv (fee terms and investors reference them). */
  shareClasses: Set<string>;
  /** Account codes of accounts.csv (the journal references them). */
  accounts: Set<string>;
  /** Investor ids of investors.csv (capital accounts reference them). */
  investors: Set<string>;
  /** nav_runs.csv by date (the bulk files reference them). */
  runs: Map<string, RunFigures>;
  /** The fund's reconciliation tolerance, basis points of the administrator's NAV; null until funds.csv gave it. */
  tolerance: X.Exact | null;
  /** The date bulk-files.ts `runExists` looked up last, and its answer (bulk files repeat a date for many rows). */
  lastRunRef: string | null;
  runRefOk: boolean;
  /** Counts the formula-like text cells of every file ({@link Validation}`.formulas`). */
  formulaTally: FormulaTally;
}

/** The state before the first file is read. */
export function startValidation(dir: string, options: ValidateOptions): ValidationState {
  return {
    dir,
    options,
    map: options.map ?? {},
    maxErrors: options.maxErrors ?? 100,
    storedThrough: options.storedThrough ?? null,
    v: {
      errors: [],
      errorCount: 0,
      files: {},
      fundId: null,
      toleranceBps: null,
      runs: [],
      small: {},
      smallLines: {},
      digests: {},
      dates: {},
      tableRows: 0,
      formulas: [],
    },
    rowsRead: 0,
    shareClasses: new Set(),
    accounts: new Set(),
    investors: new Set(),
    runs: new Map(),
    tolerance: null,
    lastRunRef: null,
    runRefOk: false,
    formulaTally: new FormulaTally(),
  };
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** Dates already found valid: a bundle repeats a few thousand dates millions of times (bounded, so a hostile file cannot grow it). */
const validDates = new Set<string>();
/** Whether `s` is a real calendar date `YYYY-MM-DD`. */
export function isDate(s: string): boolean {
  if (validDates.has(s)) return true;
  if (!DATE.test(s)) return false;
  const t = Date.UTC(+s.slice(0, 4), +s.slice(5, 7) - 1, +s.slice(8, 10));
  const ok = new Date(t).toISOString().slice(0, 10) === s;
  if (ok && validDates.size < 100_000) validDates.add(s);
  return ok;
}
const INTEGER = /^[1-9]\d{0,8}$/;

/** A value as an error may quote it: at most 40 characters, JSON-escaped. */
export function quoted(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

/** Counts an error, and keeps it while fewer than `maxErrors` are kept. */
export function report(s: ValidationState, e: BundleError): void {
  s.v.errorCount++;
  if (s.v.errors.length < s.maxErrors) s.v.errors.push(e);
}

/**
 * The index of a column in a file's spec order.
 * @throws {Error} when the spec has no such column (a bug in a rule, never the bundle's fault)
 */
export function col(spec: BundleFile, name: string): number {
  const k = spec.columns.findIndex((c) => c.name === name);
  if (k < 0) throw new Error(`${spec.file} has no column ${name}`);
  return k;
}

/** Reports a broken rule at a row, naming the column as the file's header does (`names`, after the column map). */
export function fail(
  s: ValidationState,
  spec: BundleFile,
  line: number,
  names: string[],
  column: string,
  rule: string,
  message: string,
): void {
  report(s, { file: spec.file, line, column: names[col(spec, column)] ?? column, rule, message });
}

/**
 * The column rules of one row: each cell against its column's type, enum and required flag, written into
 * `checked` (canonical decimals; null for an empty nullable cell). Every broken cell is reported.
 * @returns whether every cell passed
 */
function checkCells(
  s: ValidationState,
  spec: BundleFile,
  names: string[],
  cells: readonly (string | undefined)[],
  line: number,
  checked: Cell[],
): boolean {
  const cols: FileColumn[] = spec.columns;
  let ok = true;
  for (let k = 0; k < cols.length; k++) {
    const c = cols[k]!;
    const raw = cells[k];
    let broken: string | null = null;
    let what = '';
    if (raw === undefined || raw === '') {
      checked[k] = c.nullable ? null : raw === undefined || c.optional ? (c.type === 'text' ? '' : null) : '';
      if (raw === '' && !c.nullable && !(c.optional && c.type === 'text')) {
        ok = false;
        report(s, { file: spec.file, line, column: names[k]!, rule: 'required', message: `${c.name} may not be empty` });
      }
      continue;
    }
    if (c.type === 'numeric') {
      if (X.isDecimalText(raw)) checked[k] = X.canonical(raw);
      else [broken, what] = ['decimal', 'not a decimal (digits, an optional leading -, an optional . and decimals)'];
    } else if (c.type === 'date') {
      if (isDate(raw)) checked[k] = raw;
      else [broken, what] = ['date', 'not a date YYYY-MM-DD'];
    } else if (c.type === 'boolean') {
      if (raw === 'true' || raw === 'false') checked[k] = raw;
      else [broken, what] = ['boolean', 'not true or false'];
    } else if (c.type === 'integer') {
      if (INTEGER.test(raw)) checked[k] = raw;
      else [broken, what] = ['integer', 'not an integer from 1 to 999999999'];
    } else if (c.values && !c.values.includes(raw)) [broken, what] = ['enum', `not one of ${c.values.join(', ')}`];
    else checked[k] = raw;
    if (broken !== null) {
      ok = false;
      report(s, { file: spec.file, line, column: names[k]!, rule: broken, message: c.personal ? what : `${what}; got ${quoted(raw)}` });
    }
  }
  return ok;
}

/**
 * Streams one file of the bundle, checking each row's cells ({@link checkCells}), and hands each row that
 * passed to `row` (the checked cells, in an array reused for every row; its line; the header's column
 * names). A missing required file is reported (`missing_file`). Records the file's rows and bytes.
 * @param end called once the whole file was read, unless the header or the CSV syntax stopped it
 * @returns whether the whole file was read
 * @throws {Error} only for an unreadable file (I/O)
 */
export async function scan(
  s: ValidationState,
  spec: BundleFile,
  row: (cells: Cell[], line: number, names: string[]) => void,
  end?: (names: string[]) => void,
): Promise<boolean> {
  const path = join(s.dir, spec.file);
  if (!existsSync(path)) {
    if (spec.required) report(s, { file: spec.file, line: 0, column: '-', rule: 'missing_file', message: 'the bundle has no such file' });
    return false;
  }
  let names: string[] = spec.columns.map((c) => c.name);
  const checked: Cell[] = new Array(spec.columns.length);
  // Only text can be a formula: a negative number in a numeric column is a number.
  const textColumns = spec.columns.flatMap((c, k) => (c.type === 'text' ? [k] : []));
  const result = await scanFile(
    path,
    spec,
    s.map,
    (e) => report(s, e),
    (cells, line) => {
      s.rowsRead++;
      for (const k of textColumns) {
        const v = cells[k];
        if (v && looksLikeFormula(v)) s.formulaTally.note(spec.file, line, names[k]!);
      }
      if (checkCells(s, spec, names, cells, line, checked)) row(checked, line, names);
    },
    {
      onBytes: (n) => s.options.onBytes?.(n, s.rowsRead),
      onHeader: (h) => {
        names = h.names;
      },
    },
  );
  s.v.files[spec.file] = { rows: result.records, bytes: statSync(path).size };
  s.v.formulas = s.formulaTally.list();
  if (spec.table) s.v.tableRows += result.records;
  if (result.complete) end?.(names);
  return result.complete;
}

/** The sign rule: each of `columns` is not negative (`negative`). */
export function nonNegative(
  s: ValidationState,
  spec: BundleFile,
  cells: Cell[],
  line: number,
  names: string[],
  ...columns: string[]
): void {
  for (const name of columns) {
    const value = cells[col(spec, name)];
    if (value?.startsWith('-') && X.compare(X.exact(value), X.ZERO) < 0)
      fail(s, spec, line, names, name, 'negative', `${name} may not be negative`);
  }
}
