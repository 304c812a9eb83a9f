/**
 * The fee calculator's projection (lib/calculators/fee-calculator.ts, `computeFeesInDecimals`) in doubles,
 * each value carried with a bound on its distance from what decimal.js computes at 40 digits. Every step
 * whose outcome could differ between the two (a rounding to cents, a floor to whole cents, the soft
 * hurdle's comparison, a percent to 4 dp) is taken only when the bound proves it the same; otherwise the
 * projection returns null and the caller runs decimal.js. So the result, when there is one, is the decimal
 * path's to the last digit, and decimal.js stays the reference (test/calculators/fee-doubles.test.ts holds
 * the two equal on random inputs and on the worked examples). decimal.js was the largest part of a warm
 * fee-calculator request in workerd (docs/arithmetic.md#doubles-that-prove-themselves-exact).
 *
 * Amounts are kept in cents. Error bounds are absolute, in cents (or plain for rates and factors), and add
 * up as usual (lib/calculators/approx.ts): for x·y, |x|·e(y) + |y|·e(x) + e(x)·e(y) plus the product's own
 * rounding |x·y|·2⁻⁵³; for x ± y, e(x) + e(y) plus |x ± y|·2⁻⁵³. An input number stands for its shortest
 * decimal (as `dec` reads it), within 2⁻⁵³ of it relatively; a decimal factor read back as a double
 * (`toNumber`) likewise, and a factor made in doubles ({@link periodPlansInDoubles}) within its own bound.
 * decimal.js rounds each of its results to 40 significant digits: 10⁻³⁰ of a value is added to every bound a
 * decision is taken on, far above what the few hundred operations of a projection can accumulate.
 */
import { halfUpNear, pct4Near } from '../decimal.ts';
import { U, add, div, exact, fromInput, max, mul, rateOfPct, sqrt, sub, type Approx } from './approx.ts';

/** Largest amount (in cents) the path works with: integers below it are exact, and a tie test is sound (as in `halfUpNear`). */
const MAX_CENTS = 2 ** 50;
/** What decimal.js's own rounding at 40 digits may add, relative to a value (see the module comment). */
const DECIMAL_SLACK = 1e-30;

/**
 * One period of a projection: as the decimal path makes it (its decimals read as doubles), or as
 * {@link periodPlansInDoubles} makes it without decimal.js.
 */
export interface PeriodPlan {
  /** τ of the period, years, as the result reports it (`length.toNumber()`). */
  lengthYears: number;
  /** Bound of |lengthYears − τ| (0 for whole and quarter years, which doubles hold exactly). */
  lengthError: number;
  /** Start of the period, years (`elapsed.toNumber()`). */
  startYears: number;
  /** (1 + r)^τ of the period's return. */
  growth: number;
  /** Bound of |growth − (1 + r)^τ| (|growth|·2⁻⁵³ for a decimal read as a double). */
  growthError: number;
  /** (1 + h)^τ − 1 of the hurdle; null without a hurdle. */
  hurdleRate: number | null;
  /** Bound of |hurdleRate − ((1 + h)^τ − 1)|; 0 without a hurdle. */
  hurdleRateError: number;
}

/** What the period plan reads of the request: the horizon, the crystallization and the percent rates. */
export interface PlanTerms {
  crystallization: 'annual' | 'quarterly';
  /** Years, > 0. */
  horizonYears: number;
  /** Percent per year. */
  annualGrossReturnPct: number;
  /** Percent of year 1, 2, …; overrides `annualGrossReturnPct` for the years it covers. */
  annualGrossReturnPctByYear: readonly number[];
  /** Percent per year; null for no hurdle. */
  hurdlePct: number | null;
}

/** What the projection reads of the request (the resolved inputs of the fee calculator). */
export interface FeeTerms {
  startingNavUsd: number;
  /** The high-water mark at the start, USD; null without one. */
  startingHwmUsd: number | null;
  mgmtFeePct: number;
  perfFeePct: number;
  mgmtFeeBasis: 'opening' | 'closing' | 'average';
  hurdleType: 'hard' | 'soft';
  perfFeeNetOfMgmtFee: boolean;
  horizonYears: number;
}

/** One period of the result, USD (as the calculator's output schema). */
export interface PeriodResult {
  index: number;
  startYears: number;
  lengthYears: number;
  openingNavUsd: number;
  grossNavUsd: number;
  mgmtFeeUsd: number;
  perfFeeUsd: number;
  hurdleAmountUsd: number;
  closingNavUsd: number;
  hwmUsd: number | null;
}

/** The result's totals and figures, USD and percent (as the calculator's output schema). */
export interface FeeResult {
  totalMgmtFeesUsd: number;
  totalPerfFeesUsd: number;
  totalFeesUsd: number;
  endingNavGrossUsd: number;
  endingNavNetUsd: number;
  feeDragUsd: number;
  grossCumulativeReturnPct: number;
  netCumulativeReturnPct: number;
  grossAnnualizedReturnPct: number;
  netAnnualizedReturnPct: number;
  annualizedFeeDragPct: number;
  finalHwmUsd: number | null;
  periods: PeriodResult[];
}

/** Whole cents, rounded half away from zero (decimal.js `ROUND_HALF_UP`), when certain; else null. */
export function centsHalfUp(x: Approx): number | null {
  if (x.v === 0 && x.e === 0) return 0;
  const a = Math.abs(x.v);
  const e = x.e + a * DECIMAL_SLACK;
  // Near zero the sign of a zero result could differ; a tie closer than the bound could go either way.
  if (a <= e) return null;
  const k = halfUpNear(a, e);
  return k === null ? null : x.v < 0 ? -k : k;
}

/** Whole cents rounded down (decimal.js `ROUND_DOWN`) of a positive amount, when certain; else null. */
export function centsDown(x: Approx): number | null {
  const e = x.e + Math.abs(x.v) * DECIMAL_SLACK;
  if (!(x.v < MAX_CENTS) || !(e < 0.25) || x.v <= e) return null;
  const whole = Math.floor(x.v);
  const frac = x.v - whole;
  if (frac <= e || frac >= 1 - e) return null;
  return whole;
}

/**
 * A fee of `charged` whole cents capped at the whole cents of `assets` (decimal.js: `D.min(fee, assets
 * rounded down to cents)`). Below the assets, which is the usual case, the cap needs no rounding of them:
 * floor(A) ≥ k exactly when A ≥ k for a whole k.
 */
function capAt(charged: number, assets: Approx): number | null {
  const e = assets.e + Math.abs(assets.v) * DECIMAL_SLACK;
  if (assets.v - e >= charged) return charged;
  const whole = centsDown(assets);
  return whole === null || whole >= charged ? null : whole;
}

/** The sign of x when certain (1 or −1); 0 when the bound cannot tell. */
function sign(x: Approx): number {
  const e = x.e + Math.abs(x.v) * DECIMAL_SLACK;
  return x.v > e ? 1 : x.v < -e ? -1 : 0;
}

/**
 * (f^(1/years) − 1)·100 in doubles with a bound of its error, for a factor f known within a relative error
 * `rho` of decimal.js's (at least 2⁻⁵³, a double's reading); null outside the range the bound covers.
 * Bound: d ln x = e·df/f + ln f·de with e = 1/years (within 2⁻⁵³), plus a few ulps for `**`, taken 8 times.
 */
export function annualizedInDouble(f: number, years: number, rho = U): { value: number; error: number } | null {
  if (!(f > 0) || !Number.isFinite(f) || !(years > 0)) return null;
  const e = 1 / years;
  if (e > 1_000) return null;
  const x = f ** e;
  if (!Number.isFinite(x) || x > 1e12) return null;
  const relative = 8 * (Math.abs(e * Math.log(f)) * 2 ** -52 + e * Math.max(rho, 2 ** -52) + 4 * 2 ** -52);
  const value = (x - 1) * 100;
  return { value, error: 100 * x * relative + Math.abs(value) * 2 ** -51 + 1e-30 };
}

/** (x / start − 1)·100 to 4 dp, when certain. */
function cumulativePct(x: Approx, start: Approx): number | null {
  const f = x.v / start.v;
  const ef = (x.e + Math.abs(f) * start.e) / start.v + Math.abs(f) * U;
  const value = (f - 1) * 100;
  // Twice the first-order bound: the products of errors it leaves out are far smaller.
  return pct4Near(value, 2 * (100 * ef + Math.abs(value) * 2 * U) + Math.abs(value) * DECIMAL_SLACK);
}

/** One period's fees, in whole cents, and the NAV after them; null when a decision is uncertain. */
function periodFees(
  terms: FeeTerms,
  rates: { mgmt: Approx; perf: Approx },
  plan: PeriodPlan,
  opening: Approx,
  hwm: Approx | null,
): { gross: Approx; mgmt: number; perf: number; hurdle: Approx; nav: Approx } | null {
  const growth = { v: plan.growth, e: plan.growthError };
  const gross = mul(opening, growth);
  const base = terms.mgmtFeeBasis === 'opening' ? opening : terms.mgmtFeeBasis === 'closing' ? gross : mul(add(opening, gross), exact(0.5));
  const mgmtCharged = centsHalfUp(mul(mul(rates.mgmt, { v: plan.lengthYears, e: plan.lengthError }), base));
  const mgmt = mgmtCharged === null ? null : capAt(mgmtCharged, gross);
  if (mgmt === null) return null;
  const reference = hwm ?? opening;
  const afterMgmt = sub(gross, exact(mgmt));
  const gain = sub(terms.perfFeeNetOfMgmtFee ? afterMgmt : gross, reference);
  const hurdle = plan.hurdleRate === null ? exact(0) : mul(reference, { v: plan.hurdleRate, e: plan.hurdleRateError });
  // max(0, gain) or max(0, gain − H) (hard), or the gain once it exceeds H (soft): the sign decides.
  const above = plan.hurdleRate === null ? gain : sub(gain, hurdle);
  const side = sign(above);
  if (side === 0) return null;
  const perfBase = side < 0 ? null : terms.hurdleType === 'soft' && plan.hurdleRate !== null ? gain : above;
  let perf = 0;
  if (perfBase !== null) {
    const charged = centsHalfUp(mul(rates.perf, perfBase));
    const capped = charged === null ? null : capAt(charged, afterMgmt);
    if (capped === null) return null;
    perf = capped;
  }
  return { gross, mgmt, perf, hurdle, nav: sub(afterMgmt, exact(perf)) };
}

/**
 * (1 + x)^τ − 1 for τ a whole number of quarters up to a year, written so that nothing cancels: with
 * s = √(1 + x), s − 1 = x / (s + 1), and likewise for the fourth root; three quarters are
 * (1 + x½)(1 + x¼) − 1 = x½ + x¼ + x½·x¼. Each root is correctly rounded (IEEE 754).
 * @returns null when a bound reaches zero (x near −1)
 */
function compoundRate(x: Approx, quarters: number): Approx | null {
  if (quarters === 4) return x;
  const half = sqrt(add(exact(1), x));
  if (half === null) return null;
  const x2 = div(x, add(half, exact(1)));
  if (x2 === null || quarters === 2) return x2;
  const quarter = sqrt(half);
  const x4 = quarter === null ? null : div(x2, add(quarter, exact(1)));
  if (x4 === null || quarters === 1) return x4;
  return add(add(x2, x4), mul(x2, x4));
}

/**
 * decimal.js rounds every result to 40 significant digits: 1 + r before its power, and a power before 1 is
 * subtracted from it, are each within 5·10⁻⁴⁰ of exact for values below 10. Absolute, so added to the factors'
 * bounds: a hurdle rate below 10⁻⁴⁰ is 0 to decimal.js (the relative slack of a decision does not cover it).
 */
const DECIMAL_NEAR_ONE = 1e-39;

/**
 * The periods of a projection in doubles, with bounds of their errors, without decimal.js: the decimal path
 * (lib/calculators/fee-calculator.ts, `decimalPeriods`) was a fee-calculator call's largest share
 * (docs/arithmetic.md#doubles-that-prove-themselves-exact). Only for a horizon of whole quarters (4·horizonYears an integer, so
 * that every period's length and start is a multiple of 0.25, exact in doubles and equal to the decimal
 * path's); each factor (1 + r)^τ comes from {@link compoundRate} with its bound against the exact value,
 * widened by what decimal.js's own rounding may make of it ({@link DECIMAL_NEAR_ONE}).
 * @returns the plans, in order; null for any other horizon, or a factor whose bound reaches zero (a return
 *   of nearly −100 %)
 */
export function periodPlansInDoubles(terms: PlanTerms): PeriodPlan[] | null {
  const quartersInHorizon = terms.horizonYears * 4;
  if (!Number.isInteger(quartersInHorizon) || quartersInHorizon < 1) return null;
  const quartersPerPeriod = terms.crystallization === 'annual' ? 4 : 1;
  const hurdle = terms.hurdlePct === null ? null : rateOfPct(terms.hurdlePct);
  const plans: PeriodPlan[] = [];
  for (let q = 0; q < quartersInHorizon; q += quartersPerPeriod) {
    const quarters = Math.min(quartersPerPeriod, quartersInHorizon - q);
    const startYears = q / 4;
    const rate = compoundRate(rateOfPct(terms.annualGrossReturnPctByYear[Math.floor(startYears)] ?? terms.annualGrossReturnPct), quarters);
    const hurdleRate = hurdle === null ? null : compoundRate(hurdle, quarters);
    if (rate === null || (hurdle !== null && hurdleRate === null)) return null;
    const growth = add(exact(1), rate);
    plans.push({
      lengthYears: quarters / 4,
      lengthError: 0,
      startYears,
      growth: growth.v,
      growthError: growth.e + DECIMAL_NEAR_ONE * Math.max(1, growth.v),
      hurdleRate: hurdleRate === null ? null : hurdleRate.v,
      // A hurdle of 0 % is exactly 0 on both paths ((1 + 0)^τ = 1): no rounding to allow for.
      hurdleRateError:
        hurdleRate === null
          ? 0
          : hurdleRate.e === 0 && hurdleRate.v === 0
            ? 0
            : hurdleRate.e + DECIMAL_NEAR_ONE * Math.max(1, hurdleRate.v),
    });
  }
  return plans;
}

/**
 * The fee projection in doubles, equal to decimal.js's when it answers.
 * @param terms the resolved request
 * @param plans the periods, in order, with the decimal path's lengths, starts and factors
 * @returns the result, or null when a rounding or comparison is too close to call (then run decimal.js)
 */
export function feesInDoubles(terms: FeeTerms, plans: readonly PeriodPlan[]): FeeResult | null {
  const start = mul(fromInput(terms.startingNavUsd), exact(100));
  const rates = { mgmt: rateOfPct(terms.mgmtFeePct), perf: rateOfPct(terms.perfFeePct) };
  let nav = start;
  let grossNav = start;
  let hwm = terms.startingHwmUsd === null ? null : mul(fromInput(terms.startingHwmUsd), exact(100));
  let totalMgmt = 0;
  let totalPerf = 0;
  const periods: PeriodResult[] = [];
  for (const [i, plan] of plans.entries()) {
    const fees = periodFees(terms, rates, plan, nav, hwm);
    if (fees === null) return null;
    const opening = nav;
    nav = fees.nav;
    if (hwm !== null) hwm = max(hwm, nav);
    grossNav = mul(grossNav, { v: plan.growth, e: plan.growthError });
    totalMgmt += fees.mgmt;
    totalPerf += fees.perf;
    const shown = [opening, fees.gross, fees.hurdle, nav, hwm ?? exact(0)].map(centsHalfUp);
    if (shown.some((c) => c === null)) return null;
    const [openingCents, grossCents, hurdleCents, navCents, hwmCents] = shown as number[];
    periods.push({
      index: i + 1,
      startYears: plan.startYears,
      lengthYears: plan.lengthYears,
      openingNavUsd: openingCents! / 100,
      grossNavUsd: grossCents! / 100,
      mgmtFeeUsd: fees.mgmt / 100,
      perfFeeUsd: fees.perf / 100,
      hurdleAmountUsd: hurdleCents! / 100,
      closingNavUsd: navCents! / 100,
      hwmUsd: hwm === null ? null : hwmCents! / 100,
    });
  }
  return summary(terms, start, grossNav, nav, hwm, totalMgmt, totalPerf, periods);
}

/** The totals and figures of a projection; null when one cannot be decided. */
function summary(
  terms: FeeTerms,
  start: Approx,
  grossNav: Approx,
  nav: Approx,
  hwm: Approx | null,
  totalMgmt: number,
  totalPerf: number,
  periods: PeriodResult[],
): FeeResult | null {
  if (!(totalMgmt + totalPerf < MAX_CENTS)) return null;
  const endingGross = centsHalfUp(grossNav);
  const endingNet = centsHalfUp(nav);
  // No fee charged: the net NAV is the gross one, by the same products, and so are its figures (a drag of
  // exactly zero, which the bounds alone could not tell from a tiny one of either sign).
  const noFee = totalMgmt + totalPerf === 0;
  const drag = noFee ? 0 : centsHalfUp(sub(grossNav, nav));
  const finalHwm = hwm === null ? null : centsHalfUp(hwm);
  const grossCumulative = cumulativePct(grossNav, start);
  const netCumulative = cumulativePct(nav, start);
  const factorRho = (x: Approx) => (x.e + (Math.abs(x.v) * start.e) / start.v) / Math.abs(x.v) + 2 * U;
  const g = annualizedInDouble(grossNav.v / start.v, terms.horizonYears, factorRho(grossNav));
  const n = annualizedInDouble(nav.v / start.v, terms.horizonYears, factorRho(nav));
  if (g === null || n === null) return null;
  const feeDrag = g.value - n.value;
  const grossAnnualized = pct4Near(g.value, g.error);
  const netAnnualized = noFee ? grossAnnualized : pct4Near(n.value, n.error);
  const annualizedDrag = noFee ? 0 : pct4Near(feeDrag, g.error + n.error + Math.abs(feeDrag) * 2 ** -52);
  if (
    endingGross === null ||
    endingNet === null ||
    drag === null ||
    (hwm !== null && finalHwm === null) ||
    grossCumulative === null ||
    netCumulative === null ||
    grossAnnualized === null ||
    netAnnualized === null ||
    annualizedDrag === null
  )
    return null;
  return {
    totalMgmtFeesUsd: totalMgmt / 100,
    totalPerfFeesUsd: totalPerf / 100,
    totalFeesUsd: (totalMgmt + totalPerf) / 100,
    endingNavGrossUsd: endingGross / 100,
    endingNavNetUsd: endingNet / 100,
    feeDragUsd: drag / 100,
    grossCumulativeReturnPct: grossCumulative,
    netCumulativeReturnPct: netCumulative,
    grossAnnualizedReturnPct: grossAnnualized,
    netAnnualizedReturnPct: netAnnualized,
    annualizedFeeDragPct: annualizedDrag,
    finalHwmUsd: finalHwm === null ? null : finalHwm / 100,
    periods,
  };
}
