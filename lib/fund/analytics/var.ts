/**
 * Parametric (delta-normal) value at risk of the live portfolio, with Euler component VaR per asset
 * (docs/fund-data.md). Sources: J.P. Morgan/Reuters, RiskMetrics Technical Document, 4th ed. (1996), §5 (EWMA with
 * λ = 0.94, zero mean) ; Jorion, Value at Risk, 3rd ed. (2007), ch. 7 (component VaR by Euler allocation).
 *
 * Exposure E_a of asset a = Σ market value of its live positions (shorts negative); fiat and stablecoins
 * carry no price risk and are left out. With p_a,t its daily closes and r_a,t = p_a,t / p_a,t−1 − 1, the
 * daily P&L is x_a,t = E_a × r_a,t and x_t = Σ_a x_a,t. Over the last n ≤ windowDays returns:
 *   sample: σ² = Σ (x_t − x̄)² / (n − 1),      c_a = Σ (x_a,t − x̄_a)(x_t − x̄) / (n − 1)
 *   ewma:   w_k = λ^k / Σ λ^j (k = 0 newest),  σ² = Σ w_k x_k²,   c_a = Σ w_k x_a,k x_k
 *   VaR = z × σ × √h,   component_a = z × √h × c_a / σ,   Σ_a component_a = VaR  (since Σ_a c_a = σ²)
 * z = Φ⁻¹(confidence). Cost is linear in assets × window: no covariance matrix is formed. Statistics are
 * IEEE doubles; money is rounded half-up to cents at the end, components by largest remainder so that they
 * sum exactly to the rounded VaR.
 */
import { D, addCents, centsOf, dec, moneyOfCents, percentOf, toMoney, type Dec } from '../../decimal.ts';
import { NotUsableError } from '../../errors.ts';
import type { NavRunRow, PositionRow, PriceRow, VarMomentRow } from '../rows.ts';
import { CASH_CLASSES } from './holdings.ts';
import { navOf } from './runs.ts';

/** Φ⁻¹(0.95) and Φ⁻¹(0.99), the standard normal quantiles (to double precision). */
export const Z_SCORES = { 0.95: 1.6448536269514722, 0.99: 2.3263478740408408 } as const;
/** RiskMetrics (1996) decay factor for daily data. */
export const EWMA_LAMBDA = 0.94;

/** VaR options (the query parameters of `get_value_at_risk`). */
export interface VarOptions {
  confidence: 0.95 | 0.99;
  horizonDays: 1 | 10;
  method: 'sample' | 'ewma';
  windowDays: number;
}

/** Splits `total` cents over real-valued shares so that the integer parts sum exactly to it (largest remainder). */
function allocateCents(totalCents: number, shares: readonly number[]): number[] {
  const floors = shares.map((s) => Math.floor(s));
  let left = totalCents - floors.reduce((a, b) => a + b, 0);
  const order = shares
    .map((s, i) => [s - Math.floor(s), i] as const)
    .sort((a, b) => (left >= 0 ? b[0] - a[0] : a[0] - b[0]) || a[1] - b[1]);
  for (let k = 0; left !== 0 && order.length > 0; k = (k + 1) % order.length) {
    floors[order[k]![1]]! += Math.sign(left);
    left -= Math.sign(left);
  }
  return floors;
}

/**
 * Exposure per risky asset: Σ market value of its live positions (shorts negative), summed exactly (integer
 * cents, or decimal.js for other shapes) and then taken as the nearest double, as SQL's `SUM(numeric)::float8`
 * gives it; cash and stablecoins left out.
 */
export function exposureByAsset(positions: readonly PositionRow[]): Map<string, number> {
  const cents = new Map<string, number | null>();
  const exact = new Map<string, Dec>();
  for (const p of positions) {
    if (CASH_CLASSES.has(p.assetClass)) continue;
    const c = centsOf(p.marketValue);
    const sum = cents.has(p.asset) ? cents.get(p.asset)! : 0;
    cents.set(p.asset, c === null || sum === null ? null : addCents(sum, c));
    exact.set(p.asset, (exact.get(p.asset) ?? new D(0)).plus(p.marketValue));
  }
  const exposure = new Map<string, number>();
  for (const [asset, c] of cents) exposure.set(asset, c === null ? Number(exact.get(asset)!.toString()) : Number(moneyOfCents(c)));
  return exposure;
}

/** The closes of the held assets in one flat array, asset-major (`closes[asset × dates + slot]`). */
interface CloseMatrix {
  closes: Float64Array;
  /** Dates (slots) per asset. */
  nd: number;
  /** The slots of the dates on which every asset has a close, in date order. */
  complete: number[];
}

/**
 * The closes up to `navDate` of `assets` (sorted), by the index of each date (first seen): one Map lookup for
 * the asset and one for the date per price row, no Map per asset (a Map entry per price row made the cost
 * grow faster than the rows, through allocation and garbage collection). A later row for the same asset and
 * date replaces an earlier one.
 */
function closeMatrix(navDate: string, assets: readonly string[], prices: readonly PriceRow[]): CloseMatrix {
  const assetIndex = new Map<string, number>();
  for (const [i, a] of assets.entries()) assetIndex.set(a, i);
  const dateIndex = new Map<string, number>();
  const rows: number[] = [];
  const slots: number[] = [];
  for (const p of prices) {
    if (p.priceDate > navDate) continue;
    const a = assetIndex.get(p.asset);
    if (a === undefined) continue;
    let d = dateIndex.get(p.priceDate);
    if (d === undefined) {
      d = dateIndex.size;
      dateIndex.set(p.priceDate, d);
    }
    rows.push(a);
    slots.push(d);
  }
  const nd = dateIndex.size;
  const closes = new Float64Array(assets.length * nd);
  const present = new Uint8Array(assets.length * nd);
  let k = 0;
  for (const p of prices) {
    if (p.priceDate > navDate || !assetIndex.has(p.asset)) continue;
    const at = rows[k]! * nd + slots[k]!;
    closes[at] = Number(p.price);
    present[at] = 1;
    k++;
  }
  const dates: { date: string; slot: number }[] = [];
  for (const [date, slot] of dateIndex) {
    let all = assets.length > 0;
    for (let a = 0; a < assets.length && all; a++) all = present[a * nd + slot] === 1;
    if (all) dates.push({ date, slot });
  }
  dates.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return { closes, nd, complete: dates.map((d) => d.slot) };
}

/**
 * Daily P&L over the dates `used` (slots, oldest first): x[a][t] = E_a × r_a,t for each asset a and return t,
 * and xp[t] = Σ_a x[a][t], the portfolio's.
 */
function dailyPnl(assets: readonly string[], exposure: Map<string, number>, matrix: CloseMatrix, used: readonly number[]) {
  const { closes, nd } = matrix;
  const n = used.length - 1;
  const x = assets.map((a, i) => {
    const base = i * nd;
    const e = exposure.get(a)!;
    const out = new Array<number>(n);
    for (let t = 0; t < n; t++) out[t] = e * (closes[base + used[t + 1]!]! / closes[base + used[t]!]! - 1);
    return out;
  });
  const xp = new Array<number>(n).fill(0);
  for (const row of x) for (let t = 0; t < n; t++) xp[t]! += row[t]!;
  return { x, xp };
}

/**
 * The portfolio's variance σ² and each asset's covariance with it, c_a (Σ_a c_a = σ²), over n returns:
 * demeaned with n − 1 (`sample`), or RiskMetrics EWMA with zero mean (`ewma`).
 */
function moments(x: readonly number[][], xp: readonly number[], n: number, method: VarOptions['method']) {
  let variance = 0;
  const cov = new Array<number>(x.length).fill(0);
  if (n === 0) return { variance, cov }; // no risky asset: σ = 0
  if (method === 'sample') {
    const mean = (v: readonly number[]) => v.reduce((s, y) => s + y, 0) / n;
    const mp = mean(xp);
    for (let t = 0; t < n; t++) variance += (xp[t]! - mp) * (xp[t]! - mp);
    variance /= n - 1;
    x.forEach((row, i) => {
      const m = mean(row);
      let c = 0;
      for (let t = 0; t < n; t++) c += (row[t]! - m) * (xp[t]! - mp);
      cov[i] = c / (n - 1);
    });
    return { variance, cov };
  }
  const byAge = ewmaWeights(n);
  const weights = new Array<number>(n);
  let total = 0;
  for (let k = 0; k < n; k++) {
    weights[n - 1 - k] = byAge[k]!; // newest return has age 0
    total += byAge[k]!;
  }
  for (let t = 0; t < n; t++) variance += (weights[t]! / total) * (xp[t]! * xp[t]!);
  x.forEach((row, i) => {
    let c = 0;
    for (let t = 0; t < n; t++) c += (weights[t]! / total) * row[t]! * xp[t]!;
    cov[i] = c;
  });
  return { variance, cov };
}

/**
 * The EWMA weights λ^k by age k = 0 (newest) .. count − 1, each the previous one times λ (not `λ ** k`), as
 * the Postgres store is handed them.
 */
export function ewmaWeights(count: number): number[] {
  const out = new Array<number>(count);
  let w = 1;
  for (let k = 0; k < count; k++) {
    out[k] = w;
    w *= EWMA_LAMBDA;
  }
  return out;
}

/**
 * VaR's moments of the live positions (a store's `varMoments` rows): exposures, the closes on common dates,
 * the daily P&L of the last `windowDays` returns and its moments, one row per risky asset, by asset.
 * @param prices closes of the held assets on dates up to `navDate` (any order)
 */
export function varMoments(
  navDate: string,
  positions: readonly PositionRow[],
  prices: readonly PriceRow[],
  windowDays: number,
  method: VarOptions['method'],
): VarMomentRow[] {
  const exposure = exposureByAsset(positions);
  const assets = [...exposure.keys()].sort();
  return momentRows(assets, exposure, closeMatrix(navDate, assets, prices), windowDays, method);
}

/** A risky asset's exposure (the nearest double of its exact sum) and its closes (doubles) on the common dates, oldest first. */
export interface VarSeries {
  asset: string;
  exposure: number;
  closes: readonly number[];
}

/** The series by asset ("C" order) as one close matrix, every date complete. */
function seriesMatrix(series: readonly VarSeries[]) {
  const sorted = series.slice().sort((a, b) => (a.asset < b.asset ? -1 : a.asset > b.asset ? 1 : 0));
  const nd = sorted[0]?.closes.length ?? 0;
  const closes = new Float64Array(sorted.length * nd);
  for (const [i, s] of sorted.entries()) closes.set(s.closes, i * nd);
  const matrix: CloseMatrix = { closes, nd, complete: Array.from({ length: nd }, (_, d) => d) };
  return { assets: sorted.map((s) => s.asset), exposure: new Map(sorted.map((s) => [s.asset, s.exposure])), matrix };
}

/**
 * {@link varMoments} from each risky asset's exposure and its closes on the same dates: what the Postgres
 * store reads, in that compact form.
 * @param series one per risky asset, every `closes` of the same length
 */
export function varMomentsOfSeries(series: readonly VarSeries[], windowDays: number, method: VarOptions['method']): VarMomentRow[] {
  const { assets, exposure, matrix } = seriesMatrix(series);
  return momentRows(assets, exposure, matrix, windowDays, method);
}

/** The windows `get_value_at_risk` accepts, in daily returns (both bounds included). */
export const VAR_WINDOW = { min: 20, max: 1000 } as const;

/** One window's moments, as columns: `covariances[i]` is the covariance of `assets[i]` (of {@link varMomentsOfWindows}). */
export interface WindowMoments {
  windowDays: number;
  observations: number;
  variance: string;
  covariances: string[];
}

/**
 * {@link varMomentsOfSeries} for every window from `windows.min` to `windows.max` at once, with the same
 * bits: the window of w returns is the tail of the largest one's (the last w + 1 common dates), so the
 * daily P&L is made once, and each window's moments are summed over its tail with exactly the operations,
 * in exactly the order, of `moments` (the EWMA weights λ^k and their running total are the same prefix for
 * every window). Cost: assets × Σ window, about 2.5 × 10⁸ steps per method at 500 assets.
 * @returns the assets (sorted, "C" order) and one entry per window, ascending
 */
export function varMomentsOfWindows(
  series: readonly VarSeries[],
  method: VarOptions['method'],
  windows: { min: number; max: number } = VAR_WINDOW,
): { assets: string[]; windows: WindowMoments[] } {
  const { assets, exposure, matrix } = seriesMatrix(series);
  const used = matrix.complete.slice(-(windows.max + 1));
  const all = Math.max(used.length - 1, 0);
  const pnl = all >= 2 ? dailyPnl(assets, exposure, matrix, used) : { x: [], xp: [] };
  const [x, xp] = [pnl.x.map((row) => Float64Array.from(row)), Float64Array.from(pnl.xp)]; // the same doubles, packed
  const byAge = ewmaWeights(all);
  const out: WindowMoments[] = [];
  let last: WindowMoments | undefined;
  for (let w = windows.min; w <= windows.max; w++) {
    const n = Math.min(w, all);
    if (last?.observations !== n) {
      const zero = { variance: '0', covariances: assets.map(() => '0') };
      last = { windowDays: w, observations: n, ...(n < 2 ? zero : tailMoments(x, xp, byAge, n, method)) };
    }
    out.push({ ...last, windowDays: w });
  }
  return { assets, windows: out };
}

/** `moments` of the last n ≥ 2 of the daily P&L `x`/`xp`, as texts. */
function tailMoments(x: readonly Float64Array[], xp: Float64Array, byAge: readonly number[], n: number, method: VarOptions['method']) {
  const from = xp.length - n;
  let variance = 0;
  const covariances = new Array<string>(x.length);
  if (method === 'sample') {
    const mean = (v: Float64Array) => {
      let s = 0;
      for (let t = from; t < v.length; t++) s += v[t]!;
      return s / n;
    };
    const mp = mean(xp);
    const d = new Float64Array(n);
    for (let t = 0; t < n; t++) d[t] = xp[from + t]! - mp;
    for (let t = 0; t < n; t++) variance += d[t]! * d[t]!;
    variance /= n - 1;
    x.forEach((row, i) => {
      const m = mean(row);
      let c = 0;
      for (let t = 0; t < n; t++) c += (row[from + t]! - m) * d[t]!;
      covariances[i] = String(c / (n - 1));
    });
    return { variance: String(variance), covariances };
  }
  let total = 0;
  for (let k = 0; k < n; k++) total += byAge[k]!;
  const q = new Float64Array(n);
  for (let t = 0; t < n; t++) q[t] = byAge[n - 1 - t]! / total; // oldest of the window first: age n − 1
  for (let t = 0; t < n; t++) variance += q[t]! * (xp[from + t]! * xp[from + t]!);
  x.forEach((row, i) => {
    let c = 0;
    for (let t = 0; t < n; t++) c += q[t]! * row[from + t]! * xp[from + t]!;
    covariances[i] = String(c);
  });
  return { variance: String(variance), covariances };
}

/** The moments' rows of `assets` (sorted) over the last `windowDays` returns of the matrix's complete dates. */
function momentRows(
  assets: readonly string[],
  exposure: Map<string, number>,
  matrix: CloseMatrix,
  windowDays: number,
  method: VarOptions['method'],
): VarMomentRow[] {
  const used = matrix.complete.slice(-(windowDays + 1));
  const n = Math.max(used.length - 1, 0);
  if (n < 2) return assets.map((asset) => ({ asset, observations: n, variance: '0', covariance: '0' }));
  const { x, xp } = dailyPnl(assets, exposure, matrix, used);
  const { variance, cov } = moments(x, xp, n, method);
  return assets.map((asset, i) => ({ asset, observations: n, variance: String(variance), covariance: String(cov[i]!) }));
}

/**
 * VaR of the live positions of `run` from their closes: {@link varMoments}, then {@link valueAtRiskOf}.
 * @throws {NotUsableError} 409 when fewer than two daily returns are available for every held asset
 */
export function valueAtRisk(
  run: NavRunRow,
  positions: readonly PositionRow[],
  prices: readonly PriceRow[],
  options: VarOptions,
  currency: string,
) {
  return valueAtRiskOf(run, varMoments(run.navDate, positions, prices, options.windowDays, options.method), options, currency);
}

/**
 * VaR of the live positions of `run` from their moments (a store's `varMoments` read): VaR and its Euler
 * components in cents.
 * @param rows one per risky asset (none: only fiat and stablecoins, VaR nil)
 * @throws {NotUsableError} 409 when fewer than two daily returns are available for every held asset
 */
export function valueAtRiskOf(run: NavRunRow, rows: readonly VarMomentRow[], options: VarOptions, currency: string) {
  const sorted = rows.slice().sort((a, b) => (a.asset < b.asset ? -1 : a.asset > b.asset ? 1 : 0));
  const assets = sorted.map((r) => r.asset);
  // Without price risk (only fiat and stablecoins) VaR is nil and there are no returns to use.
  const n = sorted[0]?.observations ?? 0;
  if (assets.length > 0 && n < 2) throw new NotUsableError('Not enough price history to estimate VaR.');
  const variance = Number(sorted[0]?.variance ?? 0);
  const cov = sorted.map((r) => Number(r.covariance));

  const sigma = Math.sqrt(Math.max(variance, 0));
  const z = Z_SCORES[options.confidence];
  const scale = z * Math.sqrt(options.horizonDays);
  const varCents = Math.round(scale * sigma * 100);
  const components =
    sigma > 0
      ? allocateCents(
          varCents,
          cov.map((c) => (scale * c * 100) / sigma),
        )
      : cov.map(() => 0);
  const value = navOf(run);
  const varMoney = new D(varCents).div(100);
  return {
    asOf: run.navDate,
    currency,
    confidence: options.confidence,
    horizonDays: options.horizonDays,
    method: options.method,
    lambda: options.method === 'ewma' ? EWMA_LAMBDA : null,
    windowDays: options.windowDays,
    observationsUsed: n,
    z: Math.round(z * 1e6) / 1e6,
    sigmaDailyPct: percentOf(dec(sigma.toFixed(6)), value),
    portfolioValue: toMoney(value),
    var: toMoney(varMoney),
    varPct: percentOf(varMoney, value),
    // Sorted by the integer cents themselves (the same order as their money texts' values).
    componentVar: assets
      .map((asset, i) => ({ asset, cents: components[i]! }))
      .sort((a, b) => b.cents - a.cents || (a.asset < b.asset ? -1 : 1))
      .map(({ asset, cents }) => ({ asset, var: Number.isSafeInteger(cents) ? moneyOfCents(cents) : toMoney(new D(cents).div(100)) })),
  };
}
