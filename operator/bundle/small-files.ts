/**
 * The validator's steps for the small files (docs/import.md#rules), each kept whole in the result for the
 * load and the report: the fund, its share classes and fee terms, the chart of accounts, the investors, the
 * NAV runs with their reconciliation, and the expenses. Each step reads one file (two for the share classes
 * and their fee terms) over the validator's state (validation-state.ts) and records what later files
 * reference: share class ids, account codes, investor ids, the runs and the fund's tolerance.
 */
import { type BundleFile, bundleFile } from './format.ts';
import * as X from '../../lib/decimal.ts';
import {
  type Cell,
  type RunCells,
  type RunFigures,
  type ValidationState,
  col,
  fail,
  nonNegative,
  quoted,
  report,
  scan,
} from './validation-state.ts';

const CURRENCY = /^[A-Z]{3}$/;

/**
 * Scans a small file, keeping its rows (copies of the checked cells) and their lines in the result, after
 * checking its key is unique (`duplicate_key`) and running the file's own rules (`extra`) on each row.
 * @returns whether the whole file was read
 */
function keepSmall(s: ValidationState, spec: BundleFile, extra?: (cells: Cell[], line: number, names: string[]) => void): Promise<boolean> {
  const rows: Cell[][] = [];
  const lines: number[] = [];
  const keys = new Set<string>();
  const keyCols = spec.key.map((k) => col(spec, k));
  s.v.small[spec.table!.table] = rows;
  s.v.smallLines[spec.table!.table] = lines;
  return scan(s, spec, (cells, line, names) => {
    const key = keyCols.map((k) => cells[k]).join('\u0000');
    if (keys.has(key)) return fail(s, spec, line, names, spec.key[0]!, 'duplicate_key', `a second row with key ${spec.key.join(', ')}`);
    keys.add(key);
    extra?.(cells, line, names);
    rows.push(cells.slice());
    lines.push(line);
  });
}

/**
 * funds.csv: exactly one row, for the fund being imported (`fund_id`); a three-letter ISO 4217 base
 * currency; a target AUM and a reconciliation tolerance that are not negative. Sets the state's tolerance.
 */
export async function checkFund(s: ValidationState): Promise<void> {
  const FUNDS = bundleFile('funds');
  const { fundId } = s.options;
  await keepSmall(s, FUNDS, (cells, line, names) => {
    s.v.fundId = cells[col(FUNDS, 'fund_id')]!;
    if (s.v.fundId !== fundId)
      fail(s, FUNDS, line, names, 'fund_id', 'fund_id', `the bundle is for another fund than --fund ${fundId}; got ${quoted(s.v.fundId)}`);
    if (!CURRENCY.test(cells[col(FUNDS, 'base_currency')]!))
      fail(s, FUNDS, line, names, 'base_currency', 'currency', 'not a three-letter ISO 4217 code');
    nonNegative(s, FUNDS, cells, line, names, 'aum_target', 'recon_tolerance_bps');
    s.v.toleranceBps = cells[col(FUNDS, 'recon_tolerance_bps')]!;
    s.tolerance = X.exact(s.v.toleranceBps);
  });
  if (s.v.files[FUNDS.file] && (s.v.small.funds?.length ?? 0) !== 1 && s.v.errorCount === 0)
    report(s, { file: FUNDS.file, line: 0, column: '-', rule: 'fund_rows', message: 'funds.csv must hold exactly one row, the fund' });
}

/**
 * share_classes.csv and fee_terms.csv: each fee term names a share class (`reference`), its fee rates are
 * not negative, a hurdle rate and type are given together (`hurdle_pair`); once fee_terms.csv was read
 * whole, each share class has its fee terms (`reference`).
 */
export async function checkShareClasses(s: ValidationState): Promise<void> {
  const SHARE_CLASSES = bundleFile('share_classes');
  const shareClassLines = new Map<string, number>();
  await keepSmall(s, SHARE_CLASSES, (cells, line) => {
    s.shareClasses.add(cells[0]!);
    shareClassLines.set(cells[0]!, line);
  });
  const FEE_TERMS = bundleFile('fee_terms');
  const feeTermsOf = new Set<string>();
  const feeScanned = await keepSmall(s, FEE_TERMS, (cells, line, names) => {
    const id = cells[col(FEE_TERMS, 'share_class_id')]!;
    if (!s.shareClasses.has(id))
      fail(s, FEE_TERMS, line, names, 'share_class_id', 'reference', `no share class ${quoted(id)} in share_classes.csv`);
    feeTermsOf.add(id);
    nonNegative(s, FEE_TERMS, cells, line, names, 'mgmt_fee_pct', 'perf_fee_pct');
    if ((cells[col(FEE_TERMS, 'hurdle_pct')] === null) !== (cells[col(FEE_TERMS, 'hurdle_type')] === null))
      fail(s, FEE_TERMS, line, names, 'hurdle_type', 'hurdle_pair', 'hurdle_pct and hurdle_type are both given or both empty');
  });
  if (feeScanned)
    for (const [id, line] of shareClassLines)
      if (!feeTermsOf.has(id))
        report(s, {
          file: SHARE_CLASSES.file,
          line,
          column: 'share_class_id',
          rule: 'reference',
          message: `share class ${quoted(id)} has no row in fee_terms.csv`,
        });
}

/** accounts.csv: keeps the chart of accounts, whose codes the journal references. */
export async function checkAccounts(s: ValidationState): Promise<void> {
  const ACCOUNTS = bundleFile('accounts');
  await keepSmall(s, ACCOUNTS, (cells) => {
    s.accounts.add(cells[col(ACCOUNTS, 'code')]!);
  });
}

/** investors.csv: each investor's share class exists (`reference`); keeps the ids capital accounts reference. */
export async function checkInvestors(s: ValidationState): Promise<void> {
  const INVESTORS = bundleFile('investors');
  await keepSmall(s, INVESTORS, (cells, line, names) => {
    s.investors.add(cells[col(INVESTORS, 'investor_id')]!);
    const cls = cells[col(INVESTORS, 'share_class_id')]!;
    if (!s.shareClasses.has(cls))
      fail(s, INVESTORS, line, names, 'share_class_id', 'reference', `no share class ${quoted(cls)} in share_classes.csv`);
  });
}

/**
 * nav_runs.csv: a complete run has a shadow NAV and a failed one none (`shadow_nav`); the reconciliation
 * status is `matched` exactly when |shadow − administrator| ≤ the fund's tolerance in basis points of the
 * administrator's NAV, else `break`, and none without both NAVs: an empty status is filled in with it, a
 * contradicting one is an error (`recon_status`). Records each run's figures, in date order, with the
 * difference in basis points ({@link differenceBps}).
 */
export async function checkNavRuns(s: ValidationState): Promise<void> {
  const NAV_RUNS = bundleFile('nav_runs');
  const runCols = ['nav_date', 'status', 'shadow_nav', 'admin_nav', 'recon_status', 'net_flows'].map((n) => col(NAV_RUNS, n));
  await keepSmall(s, NAV_RUNS, (cells, line, names) => {
    const [navDate, status, shadowNav, adminNav, given, netFlows] = runCols.map((k) => cells[k] ?? null) as RunCells;
    if (status === 'complete' && shadowNav === null)
      fail(s, NAV_RUNS, line, names, 'shadow_nav', 'shadow_nav', 'a complete run has a shadow NAV');
    if (status === 'failed' && shadowNav !== null)
      fail(s, NAV_RUNS, line, names, 'shadow_nav', 'shadow_nav', 'a failed run has no shadow NAV');
    let computed: string | null = null;
    let bps: string | null = null;
    if (shadowNav !== null && adminNav !== null) {
      const shadow = X.exact(shadowNav);
      const a = X.exact(adminNav);
      const diff = X.subtract(shadow, a);
      computed = s.tolerance !== null && X.withinBps(diff, a, s.tolerance) ? 'matched' : 'break';
      if (a.units !== 0n) bps = differenceBps(diff, a);
    }
    if (given !== null && given !== computed) {
      fail(
        s,
        NAV_RUNS,
        line,
        names,
        'recon_status',
        'recon_status',
        computed === null
          ? 'a run without both a shadow and an administrator NAV has no reconciliation status'
          : `|shadow − administrator| is ${computed === 'matched' ? 'within' : 'beyond'} the fund's tolerance of ${s.v.toleranceBps} bps, so the status is ${computed}; got ${quoted(given)}`,
      );
    }
    cells[runCols[4]!] = computed;
    const run: RunFigures = { navDate, status, shadowNav, adminNav, reconStatus: computed, netFlows, differenceBps: bps, line };
    s.runs.set(run.navDate, run);
    s.v.runs.push(run);
  });
  s.v.runs.sort((a, b) => (a.navDate < b.navDate ? -1 : 1));
}

/** expenses.csv: a paid expense has its payment date, on or after the accrual; an accrued one has none (`paid_date`). */
export async function checkExpenses(s: ValidationState): Promise<void> {
  const EXPENSES = bundleFile('expenses');
  const exp = { date: col(EXPENSES, 'expense_date'), status: col(EXPENSES, 'status'), paid: col(EXPENSES, 'paid_date') };
  await keepSmall(s, EXPENSES, (cells, line, names) => {
    const paid = cells[exp.paid] ?? null;
    if ((cells[exp.status] === 'paid') !== (paid !== null))
      fail(s, EXPENSES, line, names, 'paid_date', 'paid_date', 'a paid expense has a paid_date and an accrued one has none');
    else if (paid !== null && paid < cells[exp.date]!)
      fail(s, EXPENSES, line, names, 'paid_date', 'paid_date', 'paid before it was accrued');
  });
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
