/**
 * Validation of a bundle before anything is written (docs/import.md#rules): every file is streamed once,
 * every cell checked against its column (type, enum, required), every row against its table's rules (keys,
 * references across files, signs) and the accounting invariants the endpoints rely on:
 * - each journal entry balances (Σ debit = Σ credit, exactly);
 * - a position's market value is quantity × price rounded half-up to the cent (docs/fund-data.md#data-model);
 * - a complete run's capital accounts sum to its shadow NAV, and each capital account adds up
 *   (capital = contributions − withdrawals + P&L allocation − management fee − performance fee);
 * - a run's reconciliation status is `matched` exactly when |shadow − administrator| ≤ tolerance (in basis
 *   points of the administrator's NAV); an empty status is filled in from that, a contradicting one is an error.
 *
 * Errors name file, line, column and rule; a value is quoted only for a column that is not personal. Memory
 * stays bounded by one date of a bulk file (its keys and entries), plus the small files and the journal's
 * entry ids: the bulk files are ordered by date (docs/import.md#order), which is what makes that possible.
 *
 * Also gathered on the way, for the load and the report: the runs' figures, the small tables' rows, and,
 * for an append onto stored runs, a digest per date of each bulk table's rows up to the latest stored run
 * (lib/fund/bundle/load.ts compares them with the database's to find restated runs).
 */
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type BundleError, type ColumnMap, scanFile } from './csv.ts';
import { ADMIN_POSITIONS, BUNDLE_FILES, type BundleFile, bundleFile } from './format.ts';
import * as X from './decimal.ts';

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
  /** Per bulk table, per date up to the latest stored run: digests of the bundle's rows ({@link rowDigest}). */
  digests: Record<string, Map<string, DateDigest>>;
  /** Dates each bulk table has rows for. */
  dates: Record<string, Set<string>>;
  /** Data rows of all table files (what a full load writes). */
  tableRows: number;
}

/** Options of {@link validateBundle}. */
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
  /** Receives every valid row of a table's bulk file (the import spools them for COPY; lib/fund/bundle/spool.ts). */
  onRow?: (table: string, date: string, cells: readonly Cell[]) => void;
}

/** Bytes of every file of the bundle that exists (for progress). */
export function bundleBytes(dir: string): number {
  return BUNDLE_FILES.reduce((s, f) => s + (existsSync(join(dir, f.file)) ? statSync(join(dir, f.file)).size : 0), 0);
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
const CURRENCY = /^[A-Z]{3}$/;

/**
 * The digest of one row: the first 60 bits of the MD5 of its cells joined by tabs (NULL as `\N`), as a
 * BigInt. A date's digest is the count and the sum of its rows' digests, so row order does not matter; the
 * database computes the same from its rows (lib/fund/bundle/load.ts `storedDigests`).
 */
export function rowDigest(cells: readonly Cell[]): bigint {
  const line = cells.map((c) => c ?? '\\N').join('\t');
  return BigInt(`0x${createHash('md5').update(line).digest('hex').slice(0, 15)}`);
}

/** A value as an error may quote it: at most 40 characters, JSON-escaped. */
function quoted(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

/**
 * Validates the bundle in `dir`. Never throws for bad content: everything wrong is in `errors`.
 * @throws {Error} only for an unreadable folder or file (I/O)
 */
export async function validateBundle(dir: string, options: ValidateOptions): Promise<Validation> {
  const maxErrors = options.maxErrors ?? 100;
  const map = options.map ?? {};
  const storedThrough = options.storedThrough ?? null;
  const v: Validation = {
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
  };
  let rowsRead = 0;
  const report = (e: BundleError) => {
    v.errorCount++;
    if (v.errors.length < maxErrors) v.errors.push(e);
  };

  // Cross-file state.
  const shareClasses = new Set<string>();
  const feeTermsOf = new Set<string>();
  const accounts = new Set<string>();
  const investors = new Set<string>();
  const runs = new Map<string, RunFigures>();
  let tolerance: X.Exact | null = null;

  /** Streams one file, checking each cell, and hands the checked row to `row`. */
  const scan = async (
    spec: BundleFile,
    row: (cells: Cell[], line: number, names: string[]) => void,
    end?: (names: string[]) => void,
  ): Promise<boolean> => {
    const path = join(dir, spec.file);
    if (!existsSync(path)) {
      if (spec.required) report({ file: spec.file, line: 0, column: '-', rule: 'missing_file', message: 'the bundle has no such file' });
      return false;
    }
    let names: string[] = spec.columns.map((c) => c.name);
    const cols = spec.columns;
    const checked: Cell[] = new Array(cols.length);
    const result = await scanFile(
      path,
      spec,
      map,
      report,
      (cells, line) => {
        rowsRead++;
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
              report({ file: spec.file, line, column: names[k]!, rule: 'required', message: `${c.name} may not be empty` });
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
            report({ file: spec.file, line, column: names[k]!, rule: broken, message: c.personal ? what : `${what}; got ${quoted(raw)}` });
          }
        }
        if (ok) row(checked, line, names);
      },
      {
        onBytes: (n) => options.onBytes?.(n, rowsRead),
        onHeader: (h) => {
          names = h.names;
        },
      },
    );
    v.files[spec.file] = { rows: result.records, bytes: statSync(path).size };
    if (spec.table) v.tableRows += result.records;
    if (result.complete) end?.(names);
    return result.complete;
  };

  const col = (spec: BundleFile, name: string) => {
    const k = spec.columns.findIndex((c) => c.name === name);
    if (k < 0) throw new Error(`${spec.file} has no column ${name}`);
    return k;
  };
  const err = (spec: BundleFile, line: number, names: string[], column: string, rule: string, message: string) =>
    report({ file: spec.file, line, column: names[col(spec, column)] ?? column, rule, message });

  /** Keeps a small file's rows and checks its key is unique. */
  const keepSmall = (spec: BundleFile, extra?: (cells: Cell[], line: number, names: string[]) => void) => {
    const rows: Cell[][] = [];
    const lines: number[] = [];
    const keys = new Set<string>();
    const keyCols = spec.key.map((k) => col(spec, k));
    v.small[spec.table!.table] = rows;
    v.smallLines[spec.table!.table] = lines;
    return scan(spec, (cells, line, names) => {
      const key = keyCols.map((k) => cells[k]).join('\u0000');
      if (keys.has(key)) return err(spec, line, names, spec.key[0]!, 'duplicate_key', `a second row with key ${spec.key.join(', ')}`);
      keys.add(key);
      extra?.(cells, line, names);
      rows.push(cells.slice());
      lines.push(line);
    });
  };

  const nonNegative = (spec: BundleFile, cells: Cell[], line: number, names: string[], ...columns: string[]) => {
    for (const name of columns) {
      const value = cells[col(spec, name)];
      if (value?.startsWith('-') && X.compare(X.exact(value), X.ZERO) < 0)
        err(spec, line, names, name, 'negative', `${name} may not be negative`);
    }
  };

  // funds.csv
  const FUNDS = bundleFile('funds');
  await keepSmall(FUNDS, (cells, line, names) => {
    v.fundId = cells[col(FUNDS, 'fund_id')]!;
    if (v.fundId !== options.fundId)
      err(
        FUNDS,
        line,
        names,
        'fund_id',
        'fund_id',
        `the bundle is for another fund than --fund ${options.fundId}; got ${quoted(v.fundId)}`,
      );
    if (!CURRENCY.test(cells[col(FUNDS, 'base_currency')]!))
      err(FUNDS, line, names, 'base_currency', 'currency', 'not a three-letter ISO 4217 code');
    nonNegative(FUNDS, cells, line, names, 'aum_target', 'recon_tolerance_bps');
    v.toleranceBps = cells[col(FUNDS, 'recon_tolerance_bps')]!;
    tolerance = X.exact(v.toleranceBps);
  });
  if (v.files[FUNDS.file] && (v.small.funds?.length ?? 0) !== 1 && v.errorCount === 0)
    report({ file: FUNDS.file, line: 0, column: '-', rule: 'fund_rows', message: 'funds.csv must hold exactly one row, the fund' });

  // share_classes.csv, fee_terms.csv
  const SHARE_CLASSES = bundleFile('share_classes');
  const shareClassLines = new Map<string, number>();
  await keepSmall(SHARE_CLASSES, (cells, line) => {
    shareClasses.add(cells[0]!);
    shareClassLines.set(cells[0]!, line);
  });
  const FEE_TERMS = bundleFile('fee_terms');
  const feeScanned = await keepSmall(FEE_TERMS, (cells, line, names) => {
    const id = cells[col(FEE_TERMS, 'share_class_id')]!;
    if (!shareClasses.has(id))
      err(FEE_TERMS, line, names, 'share_class_id', 'reference', `no share class ${quoted(id)} in share_classes.csv`);
    feeTermsOf.add(id);
    nonNegative(FEE_TERMS, cells, line, names, 'mgmt_fee_pct', 'perf_fee_pct');
    if ((cells[col(FEE_TERMS, 'hurdle_pct')] === null) !== (cells[col(FEE_TERMS, 'hurdle_type')] === null))
      err(FEE_TERMS, line, names, 'hurdle_type', 'hurdle_pair', 'hurdle_pct and hurdle_type are both given or both empty');
  });
  if (feeScanned)
    for (const [id, line] of shareClassLines)
      if (!feeTermsOf.has(id))
        report({
          file: SHARE_CLASSES.file,
          line,
          column: 'share_class_id',
          rule: 'reference',
          message: `share class ${quoted(id)} has no row in fee_terms.csv`,
        });

  // accounts.csv, investors.csv
  const ACCOUNTS = bundleFile('accounts');
  await keepSmall(ACCOUNTS, (cells) => {
    accounts.add(cells[col(ACCOUNTS, 'code')]!);
  });
  const INVESTORS = bundleFile('investors');
  await keepSmall(INVESTORS, (cells, line, names) => {
    investors.add(cells[col(INVESTORS, 'investor_id')]!);
    const cls = cells[col(INVESTORS, 'share_class_id')]!;
    if (!shareClasses.has(cls))
      err(INVESTORS, line, names, 'share_class_id', 'reference', `no share class ${quoted(cls)} in share_classes.csv`);
  });

  // nav_runs.csv: statuses and the reconciliation.
  const NAV_RUNS = bundleFile('nav_runs');
  const runCols = ['nav_date', 'status', 'shadow_nav', 'admin_nav', 'recon_status', 'net_flows'].map((n) => col(NAV_RUNS, n));
  await keepSmall(NAV_RUNS, (cells, line, names) => {
    const [navDate, status, shadowNav, adminNav, given, netFlows] = runCols.map((k) => cells[k] ?? null) as RunCells;
    if (status === 'complete' && shadowNav === null)
      err(NAV_RUNS, line, names, 'shadow_nav', 'shadow_nav', 'a complete run has a shadow NAV');
    if (status === 'failed' && shadowNav !== null) err(NAV_RUNS, line, names, 'shadow_nav', 'shadow_nav', 'a failed run has no shadow NAV');
    let computed: string | null = null;
    let bps: string | null = null;
    if (shadowNav !== null && adminNav !== null) {
      const s = X.exact(shadowNav);
      const a = X.exact(adminNav);
      const diff = X.subtract(s, a);
      computed = tolerance !== null && X.withinBps(diff, a, tolerance) ? 'matched' : 'break';
      if (a.units !== 0n) bps = differenceBps(diff, a);
    }
    if (given !== null && given !== computed) {
      err(
        NAV_RUNS,
        line,
        names,
        'recon_status',
        'recon_status',
        computed === null
          ? 'a run without both a shadow and an administrator NAV has no reconciliation status'
          : `|shadow − administrator| is ${computed === 'matched' ? 'within' : 'beyond'} the fund's tolerance of ${v.toleranceBps} bps, so the status is ${computed}; got ${quoted(given)}`,
      );
    }
    cells[runCols[4]!] = computed;
    const run: RunFigures = {
      navDate,
      status,
      shadowNav,
      adminNav,
      reconStatus: computed,
      netFlows,
      differenceBps: bps,
      line,
    };
    runs.set(run.navDate, run);
    v.runs.push(run);
  });
  v.runs.sort((a, b) => (a.navDate < b.navDate ? -1 : 1));

  /** Per-date bookkeeping of a bulk file ordered by `orderedBy`: order, key uniqueness, digests. */
  const bulk = (
    spec: BundleFile,
    perRow: (cells: Cell[], line: number, names: string[], date: string) => boolean,
    endDate: (date: string) => void,
  ) => {
    const table = spec.table?.table ?? spec.file;
    const dateCol = col(spec, spec.orderedBy!);
    const keyCols = spec.key.filter((k) => k !== spec.orderedBy).map((k) => col(spec, k));
    const digests = new Map<string, DateDigest>();
    const dates = new Set<string>();
    v.digests[table] = digests;
    v.dates[table] = dates;
    let current: string | null = null;
    let keys = new Set<string>();
    let digest: DateDigest | null = null;
    const finish = () => {
      if (current !== null) endDate(current);
    };
    return scan(
      spec,
      (cells, line, names) => {
        const date = cells[dateCol]!;
        if (date !== current) {
          if (current !== null && date < current) {
            err(spec, line, names, spec.orderedBy!, 'order', `rows must be in ${spec.orderedBy} order; ${date} comes after ${current}`);
            return;
          }
          finish();
          current = date;
          keys = new Set();
          dates.add(date);
          digest = storedThrough !== null && date <= storedThrough && spec.table ? { count: 0, sum: 0n } : null;
          if (digest) digests.set(date, digest);
        }
        if (!perRow(cells, line, names, date)) return;
        const key = keyCols.length === 1 ? cells[keyCols[0]!]! : keyCols.map((k) => cells[k]).join('\u0000');
        if (keys.has(key)) {
          err(
            spec,
            line,
            names,
            spec.key.find((k) => k !== spec.orderedBy)!,
            'duplicate_key',
            `a second row with key ${spec.key.join(', ')}`,
          );
          return;
        }
        keys.add(key);
        if (digest) {
          digest.count++;
          digest.sum += rowDigest(cells);
        }
        if (spec.table) options.onRow?.(table, date, cells);
      },
      finish,
    );
  };

  // positions.csv: the run exists and struck a NAV; market value = quantity × price to the cent.
  const POSITIONS = bundleFile('positions');
  const pos = { q: col(POSITIONS, 'quantity'), p: col(POSITIONS, 'price'), mv: col(POSITIONS, 'market_value') };
  let lastRunRef: string | null = null;
  let runRefOk = false;
  const runExists = (spec: BundleFile, date: string, line: number, names: string[], column: string): boolean => {
    if (date !== lastRunRef) {
      lastRunRef = date;
      const run = runs.get(date);
      runRefOk = run !== undefined && run.status !== 'failed';
    }
    if (!runRefOk) err(spec, line, names, column, 'reference', `no run dated ${date} that struck a NAV in nav_runs.csv`);
    return runRefOk;
  };
  await bulk(
    POSITIONS,
    (cells, line, names, date) => {
      if (!runExists(POSITIONS, date, line, names, 'nav_date')) return false;
      const expected = X.multiplyRounded(X.exact(cells[pos.q]!), X.exact(cells[pos.p]!), 2);
      if (X.compare(X.rounded(X.exact(cells[pos.mv]!), 2), expected) !== 0) {
        err(
          POSITIONS,
          line,
          names,
          'market_value',
          'market_value',
          `quantity × price is ${X.text(expected)} to the cent; got ${quoted(cells[pos.mv]!)}`,
        );
        return false;
      }
      return true;
    },
    () => {},
  );

  // prices.csv
  await bulk(
    bundleFile('prices'),
    () => true,
    () => {},
  );

  // ledger_lines.csv: accounts exist, amounts are not negative, each entry balances and has one date.
  const LEDGER = bundleFile('ledger_lines');
  const led = {
    entry: col(LEDGER, 'entry_id'),
    date: col(LEDGER, 'entry_date'),
    lineNo: col(LEDGER, 'line_no'),
    account: col(LEDGER, 'account_code'),
    debit: col(LEDGER, 'debit'),
    credit: col(LEDGER, 'credit'),
  };
  // Entry ids of earlier dates are kept only as their maximum: journals number entries in date order, so an
  // id above it is new. One not above it and not of this date may have lines on an earlier date: such ids
  // are checked by a second pass over the file, which only a journal numbered out of date order needs.
  let maxBefore: string | null = null;
  const suspects = new Map<string, { date: string; line: number; names: string[] }>();
  let entries = new Map<string, { line: number; balance: X.Exact; lines: number }>();
  const ledgerScanned = await bulk(
    LEDGER,
    (cells, line, names) => {
      const id = cells[led.entry]!;
      const account = cells[led.account]!;
      if (!accounts.has(account)) {
        err(LEDGER, line, names, 'account_code', 'reference', `no account ${quoted(account)} in accounts.csv`);
        return false;
      }
      let entry = entries.get(id);
      if (!entry && maxBefore !== null && id <= maxBefore && !suspects.has(id)) suspects.set(id, { date: cells[led.date]!, line, names });
      if (!entry) {
        entry = { line, balance: X.ZERO, lines: 0 };
        entries.set(id, entry);
      }
      entry.lines++;
      if (cells[led.lineNo] === null) cells[led.lineNo] = String(entry.lines);
      const before = v.errorCount;
      nonNegative(LEDGER, cells, line, names, 'debit', 'credit');
      if (v.errorCount !== before) return false;
      entry.balance = X.add(entry.balance, X.subtract(X.exact(cells[led.debit]!), X.exact(cells[led.credit]!)));
      return true;
    },
    () => {
      for (const [id, entry] of entries) {
        if (entry.balance.units !== 0n)
          report({
            file: LEDGER.file,
            line: entry.line,
            column: 'debit',
            rule: 'unbalanced',
            message: `entry ${quoted(id)}: debits exceed credits by ${X.text(entry.balance)}`,
          });
        if (maxBefore === null || id > maxBefore) maxBefore = id;
      }
      entries = new Map();
    },
  );
  if (ledgerScanned && suspects.size > 0) {
    const earliest = new Map<string, string>();
    await scanFile(
      join(dir, LEDGER.file),
      LEDGER,
      map,
      () => {},
      (cells) => {
        const id = cells[led.entry]!;
        const date = cells[led.date]!;
        const seen = earliest.get(id);
        if (suspects.has(id) && (seen === undefined || date < seen)) earliest.set(id, date);
      },
      { lines: false },
    );
    for (const [id, s] of suspects)
      if (earliest.get(id)! < s.date)
        err(LEDGER, s.line, s.names, 'entry_date', 'entry_date', `entry ${quoted(id)} has lines on two dates`);
  }

  // capital_accounts.csv: investors and complete runs exist; each account adds up; a run's sum is its NAV.
  const CAPITAL = bundleFile('capital_accounts');
  const cap = ['capital', 'contributions', 'withdrawals', 'pnl_allocation', 'mgmt_fee', 'perf_fee'].map((n) => col(CAPITAL, n));
  const capInvestor = col(CAPITAL, 'investor_id');
  const capitalDates = new Set<string>();
  let capitalSum = X.ZERO;
  let capitalLine = 0;
  const capitalScanned = await bulk(
    CAPITAL,
    (cells, line, names, date) => {
      capitalLine = line;
      const run = runs.get(date);
      if (run?.status !== 'complete') {
        err(CAPITAL, line, names, 'nav_date', 'reference', `no complete run dated ${date} in nav_runs.csv`);
        return false;
      }
      if (!investors.has(cells[capInvestor]!)) {
        err(CAPITAL, line, names, 'investor_id', 'reference', 'no such investor in investors.csv');
        return false;
      }
      const [capital, contributions, withdrawals, pnl, mgmt, perf] = cap.map((k) => X.exact(cells[k]!)) as X.Exact[];
      // Summed before its own check, so that one bad account is one error, not also its run's sum.
      capitalSum = X.add(capitalSum, capital!);
      const sum = X.subtract(X.subtract(X.add(X.subtract(contributions!, withdrawals!), pnl!), mgmt!), perf!);
      if (X.compare(sum, capital!) !== 0) {
        err(
          CAPITAL,
          line,
          names,
          'capital',
          'capital_identity',
          'capital ≠ contributions − withdrawals + pnl_allocation − mgmt_fee − perf_fee',
        );
        return false;
      }
      return true;
    },
    (date) => {
      capitalDates.add(date);
      const run = runs.get(date);
      if (run?.shadowNav != null && X.compare(capitalSum, X.exact(run.shadowNav)) !== 0)
        report({
          file: CAPITAL.file,
          line: capitalLine,
          column: 'capital',
          rule: 'capital_sum',
          message: `the capital accounts of ${date} sum to ${X.text(capitalSum)}, not the run's shadow NAV ${run.shadowNav}`,
        });
      capitalSum = X.ZERO;
    },
  );
  if (capitalScanned)
    for (const run of v.runs)
      if (run.status === 'complete' && !capitalDates.has(run.navDate))
        report({
          file: NAV_RUNS.file,
          line: run.line,
          column: 'shadow_nav',
          rule: 'capital_sum',
          message: `complete run ${run.navDate} has no capital accounts in capital_accounts.csv (they must sum to its shadow NAV)`,
        });

  // expenses.csv: a paid expense has its payment date, on or after the accrual; an accrued one has none.
  const EXPENSES = bundleFile('expenses');
  const exp = { date: col(EXPENSES, 'expense_date'), status: col(EXPENSES, 'status'), paid: col(EXPENSES, 'paid_date') };
  await keepSmall(EXPENSES, (cells, line, names) => {
    const paid = cells[exp.paid] ?? null;
    if ((cells[exp.status] === 'paid') !== (paid !== null))
      err(EXPENSES, line, names, 'paid_date', 'paid_date', 'a paid expense has a paid_date and an accrued one has none');
    else if (paid !== null && paid < cells[exp.date]!) err(EXPENSES, line, names, 'paid_date', 'paid_date', 'paid before it was accrued');
  });

  // admin_positions.csv (optional): the run exists; one row per asset and venue.
  if (existsSync(join(dir, ADMIN_POSITIONS.file))) {
    await bulk(
      ADMIN_POSITIONS,
      (_cells, line, names, date) => runExists(ADMIN_POSITIONS, date, line, names, 'nav_date'),
      () => {},
    );
  }
  return v;
}

/** (s − a) / a × 10,000, rounded half-up to 2 dp, as decimal text: the difference of docs/fund-data.md in basis points. */
export function differenceBps(diff: X.Exact, admin: X.Exact): string {
  // diff × 10^4 / admin to 2 dp: scale the numerator so the integer quotient has 3 dp, then round.
  const num = diff.units * 10_000n * 10n ** BigInt(admin.scale + 3);
  const den = admin.units * 10n ** BigInt(diff.scale);
  const neg = num < 0n !== den < 0n;
  const q = (num < 0n ? -num : num) / (den < 0n ? -den : den);
  return X.text(X.rounded({ units: neg ? -q : q, scale: 3 }, 2));
}
