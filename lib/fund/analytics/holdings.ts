/**
 * Holdings analytics of a NAV run's live positions: the position list, the breakdowns by asset, source type
 * and venue, and the exposure snapshot and series.
 *
 * Definitions (CFA Program, Portfolio Management: gross and net exposure): non-cash positions only,
 * long = Σ positive market values, short = Σ |negative market values| (perpetual shorts at notional),
 * gross = long + short, net = long − short; cash = Σ fiat and stablecoin balances. Percentages are of NAV.
 * Breakdown lists add an "Other assets less liabilities" row (NAV − Σ market values: fees and expenses
 * payable), as a schedule of investments does, so that each list sums exactly to NAV.
 *
 * Arithmetic: in integer cents (exact: every amount and every partial sum a safe integer, percentages
 * kept only where `percentOfCentsNear` proves them; docs/arithmetic.md) when every market value and the NAV
 * are money texts with two decimals, as both stores give them; otherwise, or should a sum leave the safe
 * integers, in decimal.js. Both give the same answer, to the character (test/fund/analytics/holdings.test.ts).
 */
import { D, addCents, centsOf, dec, moneyOfCents, percentOf, percentOfCentsNear, sum, toMoney, type Dec } from '../../decimal.ts';
import type { NavRunRow, PositionRow } from '../rows.ts';
import type { BreakdownRow, PositionView } from '../schemas.ts';
import { navOf } from './runs.ts';

/** Asset classes counted as cash, not exposure. */
export const CASH_CLASSES: ReadonlySet<string> = new Set(['fiat', 'stablecoin']);
/** Key of the breakdown row that reconciles the positions' market value to NAV. */
export const OTHER_ASSETS_LESS_LIABILITIES = 'Other assets less liabilities';

/** A run's NAV in cents, when it has one and it is a safe integer of cents (else null: decimal.js). */
function navCents(run: NavRunRow): number | null {
  return run.shadowNav === null ? null : centsOf(run.shadowNav);
}

/** Each position's market value in cents, in order, when every one is a safe integer of cents (else null). */
function marketValuesInCents(positions: readonly PositionRow[]): number[] | null {
  const out = new Array<number>(positions.length);
  for (let i = 0; i < positions.length; i++) {
    const cents = centsOf(positions[i]!.marketValue);
    if (cents === null) return null;
    out[i] = cents;
  }
  return out;
}

/** `part` cents as a percent of `nav` cents, 4 dp, as {@link percentOf} gives it; null when `nav` is 0. */
function percentOfNav(part: number, nav: number): number | null {
  if (nav === 0) return null;
  return percentOfCentsNear(part, nav) ?? percentOf(new D(part), new D(nav));
}

/** Positions of a run, largest absolute market value first (then asset, venue). weightPct = MV / NAV × 100. */
export function positionsView(run: NavRunRow, positions: readonly PositionRow[]): PositionView[] {
  const nav = navCents(run);
  const mv = nav === null ? null : marketValuesInCents(positions);
  if (nav === null || mv === null) return positionsViewInDecimals(run, positions);
  return positions
    .map((row, i) => ({ row, mv: mv[i]! }))
    .sort((a, b) => Math.abs(b.mv) - Math.abs(a.mv) || cmpText(a.row.asset, b.row.asset) || cmpText(a.row.venue, b.row.venue))
    .map(({ row, mv }) => positionView(row, moneyOfCents(mv), percentOfNav(mv, nav)));
}

/** A position as the positions list shows it, with its market value and weight as computed. */
function positionView(row: PositionRow, marketValue: string, weightPct: number | null): PositionView {
  const { asset, assetClass, sourceType, venue, quantity, price } = row;
  return { asset, assetClass, sourceType, venue, quantity, price, marketValue, weightPct };
}

/** {@link positionsView} in decimal.js: the reference, and the path for amounts that are not cents. */
export function positionsViewInDecimals(run: NavRunRow, positions: readonly PositionRow[]): PositionView[] {
  const nav = navOf(run);
  return positions
    .map((p) => ({ row: p, mv: dec(p.marketValue) }))
    .sort((a, b) => b.mv.abs().cmp(a.mv.abs()) || cmpText(a.row.asset, b.row.asset) || cmpText(a.row.venue, b.row.venue))
    .map(({ row, mv }) => positionView(row, toMoney(mv), percentOf(mv, nav)));
}

function cmpText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Market value grouped by `key`, largest first, plus the "Other assets less liabilities" row; the rows'
 * market values sum exactly to NAV.
 */
export function breakdownBy(run: NavRunRow, positions: readonly PositionRow[], key: (p: PositionRow) => string): BreakdownRow[] {
  const nav = navCents(run);
  const mv = nav === null ? null : marketValuesInCents(positions);
  if (nav === null || mv === null) return breakdownByInDecimals(run, positions, key);
  const groups = new Map<string, number>();
  let held = 0;
  for (let i = 0; i < positions.length; i++) {
    const k = key(positions[i]!);
    const group = addCents(groups.get(k) ?? 0, mv[i]!);
    const all = addCents(held, mv[i]!);
    if (group === null || all === null) return breakdownByInDecimals(run, positions, key);
    groups.set(k, group);
    held = all;
  }
  const other = addCents(nav, -held);
  if (other === null) return breakdownByInDecimals(run, positions, key);
  const rows = [...groups]
    .sort(([ka, a], [kb, b]) => b - a || cmpText(ka, kb))
    .map(([k, cents]) => ({ key: k, marketValue: moneyOfCents(cents), weightPct: percentOfNav(cents, nav) }));
  rows.push({ key: OTHER_ASSETS_LESS_LIABILITIES, marketValue: moneyOfCents(other), weightPct: percentOfNav(other, nav) });
  return rows;
}

/** {@link breakdownBy} in decimal.js: the reference, and the path for amounts that are not cents. */
export function breakdownByInDecimals(run: NavRunRow, positions: readonly PositionRow[], key: (p: PositionRow) => string): BreakdownRow[] {
  const nav = navOf(run);
  const groups = new Map<string, Dec>();
  for (const p of positions) groups.set(key(p), (groups.get(key(p)) ?? new D(0)).plus(p.marketValue));
  const rows = [...groups]
    .sort(([ka, a], [kb, b]) => b.cmp(a) || cmpText(ka, kb))
    .map(([k, mv]) => ({ key: k, marketValue: toMoney(mv), weightPct: percentOf(mv, nav) }));
  const other = nav.minus(sum(groups.values()));
  rows.push({ key: OTHER_ASSETS_LESS_LIABILITIES, marketValue: toMoney(other), weightPct: percentOf(other, nav) });
  return rows;
}

/** Exposure figures of a set of positions (see the module comment). */
export interface ExposureFigures {
  long: Dec;
  short: Dec;
  gross: Dec;
  net: Dec;
  cash: Dec;
}

/**
 * Market values to classify for exposure: positions, or positions summed per asset class and sign (a store's
 * `positionSums`), which give the same figures: long, short and cash each add values of one class and sign.
 */
export type Exposed = Pick<PositionRow, 'assetClass' | 'marketValue'>;

/** Long, short, gross, net and cash of positions (or of their sums per class and sign). */
export function exposureOf(positions: readonly Exposed[]): ExposureFigures {
  let long = new D(0);
  let short = new D(0);
  let cash = new D(0);
  for (const p of positions) {
    const mv = dec(p.marketValue);
    if (CASH_CLASSES.has(p.assetClass)) cash = cash.plus(mv);
    else if (mv.isNegative()) short = short.minus(mv);
    else long = long.plus(mv);
  }
  return { long, short, gross: long.plus(short), net: long.minus(short), cash };
}

/** {@link ExposureFigures} in cents, or null when a market value is not cents or a sum leaves the safe integers. */
function exposureInCents(positions: readonly Exposed[]): Record<keyof ExposureFigures, number> | null {
  let long = 0;
  let short = 0;
  let cash = 0;
  for (const p of positions) {
    const mv = centsOf(p.marketValue);
    if (mv === null) return null;
    if (CASH_CLASSES.has(p.assetClass)) {
      // Cash balances have either sign: every partial sum is checked.
      const next = addCents(cash, mv);
      if (next === null) return null;
      cash = next;
    } else if (mv < 0) short -= mv;
    else long += mv;
  }
  // Long's and short's terms each have one sign, so their partial sums grow toward the totals: both totals
  // safe means every partial sum was exact.
  const gross = long + short;
  const net = long - short;
  if (!Number.isSafeInteger(long) || !Number.isSafeInteger(short) || !Number.isSafeInteger(gross)) return null;
  return { long, short, gross, net, cash };
}

/** A run's NAV and exposure figures, in one arithmetic: cents (numbers) or decimal.js. */
type RunExposure<T> = { nav: T } & Record<keyof ExposureFigures, T>;

/** A run's NAV and exposure figures in cents, when the NAV and every market value are cents (else null). */
function runExposureInCents(run: NavRunRow, positions: readonly Exposed[]): RunExposure<number> | null {
  const nav = navCents(run);
  const e = nav === null ? null : exposureInCents(positions);
  return nav === null || e === null ? null : { nav, ...e };
}

/** A run's NAV and exposure figures in decimal.js. */
const runExposureInDecimals = (run: NavRunRow, positions: readonly Exposed[]): RunExposure<Dec> => ({
  nav: navOf(run),
  ...exposureOf(positions),
});

/** The money amounts of a run's exposure, in either arithmetic. */
function exposureAmounts<T>(f: RunExposure<T>, money: (x: T) => string) {
  return { nav: money(f.nav), long: money(f.long), short: money(f.short), gross: money(f.gross), net: money(f.net), cash: money(f.cash) };
}

/** The percentages of NAV of a run's exposure, in either arithmetic. */
function exposurePcts<T>(f: RunExposure<T>, pctOf: (x: T, nav: T) => number | null) {
  return {
    longPct: pctOf(f.long, f.nav),
    shortPct: pctOf(f.short, f.nav),
    grossPct: pctOf(f.gross, f.nav),
    netPct: pctOf(f.net, f.nav),
    cashPct: pctOf(f.cash, f.nav),
  };
}

/**
 * The exposure snapshot of a run: money figures and their percent of NAV, in cents when the NAV and every
 * market value are cents (see the module comment), else in decimal.js.
 * @param positions its live positions, or those summed per asset class and sign (the same figures)
 */
export function exposureSnapshot(run: NavRunRow, positions: readonly Exposed[]) {
  const f = runExposureInCents(run, positions);
  if (f === null) return exposureSnapshotInDecimals(run, positions);
  return { ...exposureAmounts(f, moneyOfCents), ...exposurePcts(f, percentOfNav) };
}

/** {@link exposureSnapshot} in decimal.js: the reference, and the path for amounts that are not cents. */
export function exposureSnapshotInDecimals(run: NavRunRow, positions: readonly Exposed[]) {
  const f = runExposureInDecimals(run, positions);
  return { ...exposureAmounts(f, toMoney), ...exposurePcts(f, percentOf) };
}

/** One point of the exposure series. */
export interface ExposurePoint {
  date: string;
  currency: string;
  nav: string;
  long: string;
  short: string;
  gross: string;
  net: string;
  cash: string;
}

/**
 * Exposure of each run, oldest first.
 * @param runs the usable runs of the window, oldest first
 * @param positions their live positions, or those summed per asset class and sign (a store's `positionSums`:
 *   the same figures from far fewer rows), any order
 */
export function exposureSeries(
  runs: readonly NavRunRow[],
  positions: readonly (Exposed & Pick<PositionRow, 'navDate'>)[],
  currency: string,
): ExposurePoint[] {
  const byDate = new Map<string, Exposed[]>();
  for (const p of positions) {
    const list = byDate.get(p.navDate);
    if (list) list.push(p);
    else byDate.set(p.navDate, [p]);
  }
  return runs.map((run) => {
    // The snapshot's amounts, without its percentages, which a point does not show.
    const held = byDate.get(run.navDate) ?? [];
    const f = runExposureInCents(run, held);
    const amounts = f === null ? exposureAmounts(runExposureInDecimals(run, held), toMoney) : exposureAmounts(f, moneyOfCents);
    return { date: run.navDate, currency, ...amounts };
  });
}
