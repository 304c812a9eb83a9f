/**
 * Holdings analytics of a NAV run's live positions: the position list, the breakdowns by asset, source type
 * and venue, and the exposure snapshot and series.
 *
 * Definitions (CFA Program, Portfolio Management: gross and net exposure): non-cash positions only,
 * long = Σ positive market values, short = Σ |negative market values| (perpetual shorts at notional),
 * gross = long + short, net = long − short; cash = Σ fiat and stablecoin balances. Percentages are of NAV.
 * Breakdown lists add an "Other assets less liabilities" row (NAV − Σ market values: fees and expenses
 * payable), as a schedule of investments does, so that each list sums exactly to NAV.
 */
import { D, dec, percentOf, sum, toMoney, type Dec } from '../../decimal.ts';
import type { NavRunRow, PositionRow } from '../rows.ts';
import type { BreakdownRow, PositionView } from '../schemas.ts';
import { navOf } from './runs.ts';

/** Asset classes counted as cash, not exposure. */
export const CASH_CLASSES: ReadonlySet<string> = new Set(['fiat', 'stablecoin']);
/** Key of the breakdown row that reconciles the positions' market value to NAV. */
export const OTHER_ASSETS_LESS_LIABILITIES = 'Other assets less liabilities';

/** Positions of a run, largest absolute market value first (then asset, venue). weightPct = MV / NAV × 100. */
export function positionsView(run: NavRunRow, positions: readonly PositionRow[]): PositionView[] {
  const nav = navOf(run);
  return positions
    .map((p) => ({ row: p, mv: dec(p.marketValue) }))
    .sort((a, b) => b.mv.abs().cmp(a.mv.abs()) || cmpText(a.row.asset, b.row.asset) || cmpText(a.row.venue, b.row.venue))
    .map(({ row, mv }) => ({
      asset: row.asset,
      assetClass: row.assetClass,
      sourceType: row.sourceType,
      venue: row.venue,
      quantity: row.quantity,
      price: row.price,
      marketValue: toMoney(mv),
      weightPct: percentOf(mv, nav),
    }));
}

function cmpText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Market value grouped by `key`, largest first, plus the "Other assets less liabilities" row; the rows'
 * market values sum exactly to NAV.
 */
export function breakdownBy(run: NavRunRow, positions: readonly PositionRow[], key: (p: PositionRow) => string): BreakdownRow[] {
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

/** Long, short, gross, net and cash of positions. */
export function exposureOf(positions: readonly PositionRow[]): ExposureFigures {
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

/** The exposure snapshot of a run: money figures and their percent of NAV. */
export function exposureSnapshot(run: NavRunRow, positions: readonly PositionRow[]) {
  const nav = navOf(run);
  const e = exposureOf(positions);
  return {
    nav: toMoney(nav),
    long: toMoney(e.long),
    short: toMoney(e.short),
    gross: toMoney(e.gross),
    net: toMoney(e.net),
    cash: toMoney(e.cash),
    longPct: percentOf(e.long, nav),
    shortPct: percentOf(e.short, nav),
    grossPct: percentOf(e.gross, nav),
    netPct: percentOf(e.net, nav),
    cashPct: percentOf(e.cash, nav),
  };
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
 * @param positions their live positions (any order)
 */
export function exposureSeries(runs: readonly NavRunRow[], positions: readonly PositionRow[], currency: string): ExposurePoint[] {
  const byDate = new Map<string, PositionRow[]>();
  for (const p of positions) {
    const list = byDate.get(p.navDate);
    if (list) list.push(p);
    else byDate.set(p.navDate, [p]);
  }
  return runs.map((run) => {
    const e = exposureOf(byDate.get(run.navDate) ?? []);
    return {
      date: run.navDate,
      currency,
      nav: toMoney(navOf(run)),
      long: toMoney(e.long),
      short: toMoney(e.short),
      gross: toMoney(e.gross),
      net: toMoney(e.net),
      cash: toMoney(e.cash),
    };
  });
}
