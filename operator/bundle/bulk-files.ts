/**
 * The validator's steps for the bulk files (docs/import.md#rules), the millions of rows: positions, prices,
 * the journal's lines, the capital accounts, and the administrator's positions. Each is read once, in date
 * order (docs/import.md#order), through {@link bulk}, which holds one date's keys at a time. Each step's
 * per-row rule is made once per file and allocates only what its arithmetic needs; what a step carries from
 * one date to the next (the journal's open entries, a run's capital sum) is its own.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { scanFile } from './csv.ts';
import { ADMIN_POSITIONS, type BundleFile, bundleFile } from './format.ts';
import * as X from '../../lib/decimal.ts';
import { type Cell, type DateDigest, type ValidationState, col, fail, nonNegative, quoted, report, scan } from './validation-state.ts';

/**
 * The digest of one row: the first 60 bits of the MD5 of its cells joined by tabs (NULL as `\N`), as a
 * BigInt. A date's digest is the count and the sum of its rows' digests, so row order does not matter; the
 * database computes the same from its rows (operator/bundle/plan.ts `storedDigests`).
 */
export function rowDigest(cells: readonly Cell[]): bigint {
  const line = cells.map((c) => c ?? '\\N').join('\t');
  return BigInt(`0x${createHash('md5').update(line).digest('hex').slice(0, 15)}`);
}

/**
 * Scans a bulk file ordered by `spec.orderedBy`, one date at a time: rows out of date order are reported
 * (`order`), the key is unique within its date (`duplicate_key`), the dates are recorded, rows dated up to
 * the latest stored run are digested ({@link rowDigest}), and each row that passed is handed to `onRow`.
 * Only one date's keys are held at a time.
 * @param perRow the file's own rules on a row (after the column rules); false drops the row
 * @param endDate called when a date's last row has been read
 * @returns whether the whole file was read
 */
function bulk(
  s: ValidationState,
  spec: BundleFile,
  perRow: (cells: Cell[], line: number, names: string[], date: string) => boolean,
  endDate: (date: string) => void,
): Promise<boolean> {
  const table = spec.table?.table ?? spec.file;
  const dateCol = col(spec, spec.orderedBy!);
  const keyCols = spec.key.filter((k) => k !== spec.orderedBy).map((k) => col(spec, k));
  const digests = new Map<string, DateDigest>();
  const dates = new Set<string>();
  s.v.digests[table] = digests;
  s.v.dates[table] = dates;
  const { storedThrough } = s;
  const onRow = s.options.onRow;
  let current: string | null = null;
  let keys = new Set<string>();
  let digest: DateDigest | null = null;
  const finish = () => {
    if (current !== null) endDate(current);
  };
  return scan(
    s,
    spec,
    (cells, line, names) => {
      const date = cells[dateCol]!;
      if (date !== current) {
        if (current !== null && date < current) {
          fail(s, spec, line, names, spec.orderedBy!, 'order', `rows must be in ${spec.orderedBy} order; ${date} comes after ${current}`);
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
        fail(
          s,
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
      if (spec.table) onRow?.(table, date, cells);
    },
    finish,
  );
}

/**
 * The run reference of a bulk row: nav_runs.csv has a run dated `date` that struck a NAV (not `failed`);
 * otherwise reported (`reference`) at `column`. The last date's answer is reused.
 * @returns whether the run exists
 */
function runExists(s: ValidationState, spec: BundleFile, date: string, line: number, names: string[], column: string): boolean {
  if (date !== s.lastRunRef) {
    s.lastRunRef = date;
    const run = s.runs.get(date);
    s.runRefOk = run !== undefined && run.status !== 'failed';
  }
  if (!s.runRefOk) fail(s, spec, line, names, column, 'reference', `no run dated ${date} that struck a NAV in nav_runs.csv`);
  return s.runRefOk;
}

/** positions.csv: the run exists and struck a NAV; market value = quantity × price, rounded half-up to the cent (`market_value`). */
export async function checkPositions(s: ValidationState): Promise<void> {
  const POSITIONS = bundleFile('positions');
  const pos = { q: col(POSITIONS, 'quantity'), p: col(POSITIONS, 'price'), mv: col(POSITIONS, 'market_value') };
  await bulk(
    s,
    POSITIONS,
    (cells, line, names, date) => {
      if (!runExists(s, POSITIONS, date, line, names, 'nav_date')) return false;
      const expected = X.multiplyRounded(X.exact(cells[pos.q]!), X.exact(cells[pos.p]!), 2);
      if (X.compare(X.rounded(X.exact(cells[pos.mv]!), 2), expected) !== 0) {
        fail(
          s,
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
}

/** prices.csv: the column rules, date order and a unique key per date only. */
export async function checkPrices(s: ValidationState): Promise<void> {
  await bulk(
    s,
    bundleFile('prices'),
    () => true,
    () => {},
  );
}

/** A journal entry of the date being read: its first line, debits less credits so far, and its line count. */
interface OpenEntry {
  line: number;
  balance: X.Exact;
  lines: number;
}

/**
 * What the journal's step carries between dates. Entry ids of earlier dates are kept only as their maximum:
 * journals number entries in date order, so an id above it is new. One not above it and not of this date may
 * have lines on an earlier date: such ids are the suspects, checked by a second pass over the file
 * ({@link checkEntryDates}), which only a journal numbered out of date order needs.
 */
interface Journal {
  maxBefore: string | null;
  suspects: Map<string, { date: string; line: number; names: string[] }>;
  entries: Map<string, OpenEntry>;
}

/**
 * ledger_lines.csv: each line's account exists (`reference`), its amounts are not negative, an empty line
 * number is filled in (the line's place in its entry), each entry balances (Σ debit = Σ credit exactly,
 * `unbalanced`) and has its lines on one date (`entry_date`).
 */
export async function checkLedger(s: ValidationState): Promise<void> {
  const LEDGER = bundleFile('ledger_lines');
  const led = {
    entry: col(LEDGER, 'entry_id'),
    date: col(LEDGER, 'entry_date'),
    lineNo: col(LEDGER, 'line_no'),
    account: col(LEDGER, 'account_code'),
    debit: col(LEDGER, 'debit'),
    credit: col(LEDGER, 'credit'),
  };
  const journal: Journal = { maxBefore: null, suspects: new Map(), entries: new Map() };
  const scanned = await bulk(
    s,
    LEDGER,
    (cells, line, names) => {
      const id = cells[led.entry]!;
      const account = cells[led.account]!;
      if (!s.accounts.has(account)) {
        fail(s, LEDGER, line, names, 'account_code', 'reference', `no account ${quoted(account)} in accounts.csv`);
        return false;
      }
      let entry = journal.entries.get(id);
      if (!entry && journal.maxBefore !== null && id <= journal.maxBefore && !journal.suspects.has(id))
        journal.suspects.set(id, { date: cells[led.date]!, line, names });
      if (!entry) {
        entry = { line, balance: X.ZERO, lines: 0 };
        journal.entries.set(id, entry);
      }
      entry.lines++;
      if (cells[led.lineNo] === null) cells[led.lineNo] = String(entry.lines);
      const before = s.v.errorCount;
      nonNegative(s, LEDGER, cells, line, names, 'debit', 'credit');
      if (s.v.errorCount !== before) return false;
      entry.balance = X.add(entry.balance, X.subtract(X.exact(cells[led.debit]!), X.exact(cells[led.credit]!)));
      return true;
    },
    () => closeEntries(s, LEDGER, journal),
  );
  if (scanned && journal.suspects.size > 0) await checkEntryDates(s, LEDGER, led.entry, led.date, journal.suspects);
}

/** A date's end in the journal: each of its entries balances (`unbalanced`); their ids raise the maximum seen. */
function closeEntries(s: ValidationState, LEDGER: BundleFile, journal: Journal): void {
  for (const [id, entry] of journal.entries) {
    if (entry.balance.units !== 0n)
      report(s, {
        file: LEDGER.file,
        line: entry.line,
        column: 'debit',
        rule: 'unbalanced',
        message: `entry ${quoted(id)}: debits exceed credits by ${X.text(entry.balance)}`,
      });
    if (journal.maxBefore === null || id > journal.maxBefore) journal.maxBefore = id;
  }
  journal.entries = new Map();
}

/**
 * The journal's second pass, for the suspects only: an entry with a line dated before the date it was
 * suspected on has lines on two dates (`entry_date`).
 */
async function checkEntryDates(
  s: ValidationState,
  LEDGER: BundleFile,
  entryCol: number,
  dateCol: number,
  suspects: Journal['suspects'],
): Promise<void> {
  const earliest = new Map<string, string>();
  await scanFile(
    join(s.dir, LEDGER.file),
    LEDGER,
    s.map,
    () => {},
    (cells) => {
      const id = cells[entryCol]!;
      const date = cells[dateCol]!;
      const seen = earliest.get(id);
      if (suspects.has(id) && (seen === undefined || date < seen)) earliest.set(id, date);
    },
    { lines: false },
  );
  for (const [id, suspect] of suspects)
    if (earliest.get(id)! < suspect.date)
      fail(s, LEDGER, suspect.line, suspect.names, 'entry_date', 'entry_date', `entry ${quoted(id)} has lines on two dates`);
}

/**
 * capital_accounts.csv: each account's run is complete and its investor exists (`reference`); each account
 * adds up (capital = contributions − withdrawals + P&L allocation − management fee − performance fee,
 * `capital_identity`); a date's accounts sum to its run's shadow NAV, and every complete run has accounts
 * (`capital_sum`).
 */
export async function checkCapitalAccounts(s: ValidationState): Promise<void> {
  const CAPITAL = bundleFile('capital_accounts');
  const cap = ['capital', 'contributions', 'withdrawals', 'pnl_allocation', 'mgmt_fee', 'perf_fee'].map((n) => col(CAPITAL, n));
  const capInvestor = col(CAPITAL, 'investor_id');
  const capitalDates = new Set<string>();
  let capitalSum = X.ZERO;
  let capitalLine = 0;
  const scanned = await bulk(
    s,
    CAPITAL,
    (cells, line, names, date) => {
      capitalLine = line;
      const run = s.runs.get(date);
      if (run?.status !== 'complete') {
        fail(s, CAPITAL, line, names, 'nav_date', 'reference', `no complete run dated ${date} in nav_runs.csv`);
        return false;
      }
      if (!s.investors.has(cells[capInvestor]!)) {
        fail(s, CAPITAL, line, names, 'investor_id', 'reference', 'no such investor in investors.csv');
        return false;
      }
      const [capital, contributions, withdrawals, pnl, mgmt, perf] = cap.map((k) => X.exact(cells[k]!)) as X.Exact[];
      // Summed before its own check, so that one bad account is one error, not also its run's sum.
      capitalSum = X.add(capitalSum, capital!);
      const sum = X.subtract(X.subtract(X.add(X.subtract(contributions!, withdrawals!), pnl!), mgmt!), perf!);
      if (X.compare(sum, capital!) !== 0) {
        fail(
          s,
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
      const run = s.runs.get(date);
      if (run?.shadowNav != null && X.compare(capitalSum, X.exact(run.shadowNav)) !== 0)
        report(s, {
          file: CAPITAL.file,
          line: capitalLine,
          column: 'capital',
          rule: 'capital_sum',
          message: `the capital accounts of ${date} sum to ${X.text(capitalSum)}, not the run's shadow NAV ${run.shadowNav}`,
        });
      capitalSum = X.ZERO;
    },
  );
  if (scanned) checkRunsHaveCapital(s, capitalDates);
}

/** Every complete run has capital accounts (`capital_sum`, reported at the run's line of nav_runs.csv). */
function checkRunsHaveCapital(s: ValidationState, capitalDates: ReadonlySet<string>): void {
  const NAV_RUNS = bundleFile('nav_runs');
  for (const run of s.v.runs)
    if (run.status === 'complete' && !capitalDates.has(run.navDate))
      report(s, {
        file: NAV_RUNS.file,
        line: run.line,
        column: 'shadow_nav',
        rule: 'capital_sum',
        message: `complete run ${run.navDate} has no capital accounts in capital_accounts.csv (they must sum to its shadow NAV)`,
      });
}

/** admin_positions.csv (optional: checked only when present): each row's run exists and struck a NAV; one row per asset and venue. */
export async function checkAdminPositions(s: ValidationState): Promise<void> {
  if (!existsSync(join(s.dir, ADMIN_POSITIONS.file))) return;
  await bulk(
    s,
    ADMIN_POSITIONS,
    (_cells, line, names, date) => runExists(s, ADMIN_POSITIONS, date, line, names, 'nav_date'),
    () => {},
  );
}
