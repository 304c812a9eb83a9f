/**
 * Fee calculator: management and performance fees charged to an investor over a horizon, with a
 * high-water mark (HWM), a hard or soft hurdle and annual or quarterly crystallization (docs/calculators.md).
 *
 * Per crystallization period of τ years (1, 0.25, or a final stub when the horizon is fractional):
 * ```
 * r_p = (1+r)^τ − 1            G = B·(1+r_p)               B = opening NAV of the period (after earlier fees)
 * M   = mgmtFeePct·τ·base      base = B | G | (B+G)/2      (mgmtFeeBasis opening | closing | average)
 * ref = HWM if hasHwm else B   X = (G − M) − ref, or G − ref when perfFeeNetOfMgmtFee is false
 * H   = ref·((1+hurdle)^τ − 1), 0 when there is no hurdle
 * fee = p·max(0, X − H) (hard) | p·X if X > H else 0 (soft) | p·max(0, X) (no hurdle)
 * E   = G − M − fee            HWM = max(HWM, E)
 * ```
 * Sources: CFA Institute, CFA Program Level I, Alternative Investments, "Hedge fund fee calculations"
 * (management fee on beginning or ending assets, incentive fee net or independent of the management fee,
 * hard and soft hurdles, high-water mark). Fees are charged in cents: M and the performance fee are rounded
 * half-up to cents each period, so period fees sum exactly to the totals. A fee never exceeds the assets it
 * is charged on (M ≤ G, fee ≤ G − M). The projection runs in decimal.js (40 digits), or in doubles where a
 * bound on their error proves every rounding the same (lib/calculators/fee-doubles.ts): the same result.
 */
import * as z from 'zod';
import { D, cents, dec, fromPct, pct4, pct4Near, roundCents, type Dec } from '../decimal.ts';
import { usd, lazy } from '../validation.ts';
import { defineCalculator } from './definition.ts';
import { annualizedInDouble, feesInDoubles, periodPlansInDoubles, type FeeResult, type FeeTerms, type PeriodPlan } from './fee-doubles.ts';

const MAX_YEARS = 50;

/** Request body (every field optional; defaults of docs/calculators.md). Percent fields are in percent units. */
export const feeCalculatorInput = lazy(() =>
  z
    .strictObject({
      startingNavUsd: usd().gt(0).default(1_000_000).describe('Investment at the start, USD.'),
      annualGrossReturnPct: z.number().gt(-100).max(1000).default(10).describe('Constant gross return per year before fees, percent.'),
      mgmtFeePct: z.number().min(0).max(100).default(2).describe('Management fee per year, percent of the basis.'),
      perfFeePct: z.number().min(0).max(100).default(20).describe('Performance fee (incentive fee), percent of the gain.'),
      hurdlePct: z.number().min(0).max(1000).nullable().default(null).describe('Hurdle rate per year, percent; null for no hurdle.'),
      hasHwm: z.boolean().default(true).describe('Performance fee only above the high-water mark.'),
      crystallization: z.enum(['annual', 'quarterly']).default('annual').describe('How often the performance fee crystallizes.'),
      horizonYears: z
        .number()
        .gt(0)
        .max(MAX_YEARS)
        .default(5)
        .describe('Holding period in years, 0 < h ≤ 50; fractional values end in a stub period.'),
      mgmtFeeBasis: z
        .enum(['opening', 'closing', 'average'])
        .default('opening')
        .describe('NAV the management fee is charged on: the period opening, the closing gross, or their average.'),
      hurdleType: z
        .enum(['hard', 'soft'])
        .default('hard')
        .describe('hard: fee on the gain above the hurdle; soft: fee on the whole gain once the hurdle is cleared.'),
      perfFeeNetOfMgmtFee: z
        .boolean()
        .default(true)
        .describe('Performance fee on the gain after the management fee (true) or independent of it (false).'),
      initialHwmUsd: usd()
        .gt(0)
        .nullable()
        .default(null)
        .describe('High-water mark at the start, USD; omitted or null means the starting NAV (echoed resolved).'),
      annualGrossReturnPctByYear: z
        .array(z.number().gt(-100).max(1000))
        .max(MAX_YEARS)
        .default([])
        .describe(
          'Gross return of year 1, 2, ... in percent; overrides annualGrossReturnPct for the years it covers. At most ceil(horizonYears) entries.',
        ),
    })
    .superRefine((v, ctx) => {
      // A year the horizon never reaches would be ignored silently; say so instead.
      if (v.annualGrossReturnPctByYear.length > Math.ceil(v.horizonYears)) {
        ctx.addIssue({ code: 'custom', path: ['annualGrossReturnPctByYear'], message: 'has more years than horizonYears covers' });
      }
    }),
);

/** One crystallization period of the projection (USD amounts rounded to cents). */
export const feePeriod = lazy(() =>
  z.object({
    index: z.number().int().describe('1-based period number.'),
    startYears: z.number().describe('Start of the period, years from the start.'),
    lengthYears: z.number().describe('τ: 1, 0.25 or a final stub.'),
    openingNavUsd: z.number(),
    grossNavUsd: z.number().describe('G: opening NAV grown by the period return, before fees.'),
    mgmtFeeUsd: z.number(),
    perfFeeUsd: z.number(),
    hurdleAmountUsd: z.number().describe('H: gain the fund must beat before a performance fee; 0 without hurdle.'),
    closingNavUsd: z.number().describe('E = G − M − performance fee.'),
    hwmUsd: z.number().nullable().describe('High-water mark after the period; null without HWM.'),
  }),
);

/** Result of the fee calculator. */
export const feeCalculatorOutput = lazy(() =>
  z.object({
    totalMgmtFeesUsd: z.number().describe("Sum of the periods' management fees, USD."),
    totalPerfFeesUsd: z.number().describe("Sum of the periods' performance fees, USD."),
    totalFeesUsd: z.number().describe('Management plus performance fees, USD.'),
    endingNavGrossUsd: z.number().describe('Ending value with no fees at all, USD.'),
    endingNavNetUsd: z.number().describe('Ending value after all fees, USD.'),
    feeDragUsd: z.number().describe('endingNavGrossUsd − endingNavNetUsd: fees plus the growth they forgo, USD.'),
    grossCumulativeReturnPct: z.number().describe('(endingNavGross / start − 1) × 100.'),
    netCumulativeReturnPct: z.number().describe('(endingNavNet / start − 1) × 100.'),
    grossAnnualizedReturnPct: z.number().describe('((endingNavGross / start)^(1/horizonYears) − 1) × 100.'),
    netAnnualizedReturnPct: z.number().describe('((endingNavNet / start)^(1/horizonYears) − 1) × 100.'),
    annualizedFeeDragPct: z.number().describe('Gross minus net annualized return, percentage points.'),
    finalHwmUsd: z.number().nullable().describe('High-water mark at the end; null without HWM.'),
    periods: z.array(feePeriod()),
  }),
);

type FeeInputs = z.output<ReturnType<typeof feeCalculatorInput>>;

/** The high-water mark at the start, USD: `initialHwmUsd`, or the starting NAV when it is null. */
export function startingHwmUsd(inputs: Pick<FeeInputs, 'initialHwmUsd' | 'startingNavUsd'>): number {
  return inputs.initialHwmUsd ?? inputs.startingNavUsd;
}

/** Period lengths (years) for a horizon: whole periods of τ, then a stub for any remainder. */
function periodLengths(horizonYears: number, tau: Dec): Dec[] {
  const horizon = dec(horizonYears);
  const whole = horizon.div(tau).floor().toNumber();
  const lengths: Dec[] = Array.from({ length: whole }, () => tau);
  const stub = horizon.minus(tau.times(whole));
  if (stub.gt(0)) lengths.push(stub);
  return lengths;
}

/** The whole cents of a non-negative amount (rounded down): the most a fee charged in cents can take from it. */
function wholeCents(x: Dec): Dec {
  return x.toDecimalPlaces(2, D.ROUND_DOWN);
}

/** Annualized return in percent for a growth factor over `years`: (factor^(1/years) − 1)·100. */
function annualizedPct(factor: Dec, years: Dec): Dec {
  if (factor.lte(0)) return dec(-100);
  return factor.pow(dec(1).div(years)).minus(1).times(100);
}

/** The three annualized figures of a result (percent, 4 dp). */
export interface AnnualizedPcts {
  grossAnnualizedReturnPct: number;
  netAnnualizedReturnPct: number;
  annualizedFeeDragPct: number;
}

/**
 * The annualized gross and net returns and their difference, in decimal.js (40 digits): the reference of
 * {@link annualizedPcts}.
 * @param grossFactor ending gross NAV / start; @param netFactor ending net NAV / start
 */
export function annualizedPctsInDecimals(grossFactor: Dec, netFactor: Dec, horizonYears: number): AnnualizedPcts {
  const years = dec(horizonYears);
  const gross = annualizedPct(grossFactor, years);
  const net = annualizedPct(netFactor, years);
  return { grossAnnualizedReturnPct: pct4(gross), netAnnualizedReturnPct: pct4(net), annualizedFeeDragPct: pct4(gross.minus(net)) };
}

/**
 * The annualized figures, the same numbers as {@link annualizedPctsInDecimals}. decimal.js's fractional power
 * (a logarithm and an exponential at 40 digits) was a third of a calculator call, so they are first computed
 * in doubles with a bound on their error, and kept when that bound proves they round to 4 dp as the
 * 40-digit values do ({@link pct4Near}); else (a value within the bound of a rounding tie, a factor ≤ 0, an
 * extreme exponent) the decimal.js path runs.
 *
 * Error of x = f^e in doubles, f = factor rounded to a double (relative error ≤ 2⁻⁵³), e = 1/horizonYears
 * (≤ 2⁻⁵³), `**` within a few ulps: rel(x) ≤ (|e·ln f| + e + 4)·2⁻⁵² (d ln x = e·df/f + ln f·de); the bound
 * used is 8 times that, plus 10⁻³⁰ for decimal.js's own rounding at 40 digits. Held to decimal.js by a
 * fast-check property (test/calculators/fee-annualized.test.ts).
 */
export function annualizedPcts(grossFactor: Dec, netFactor: Dec, horizonYears: number): AnnualizedPcts {
  return annualizedPctsInDoubles(grossFactor, netFactor, horizonYears) ?? annualizedPctsInDecimals(grossFactor, netFactor, horizonYears);
}

/** The doubles path of {@link annualizedPcts}; null when its error bound cannot decide a rounding. */
export function annualizedPctsInDoubles(grossFactor: Dec, netFactor: Dec, horizonYears: number): AnnualizedPcts | null {
  const g = annualizedInDouble(grossFactor.toNumber(), horizonYears);
  const n = annualizedInDouble(netFactor.toNumber(), horizonYears);
  if (g === null || n === null) return null;
  const drag = g.value - n.value;
  const gross = pct4Near(g.value, g.error);
  const net = pct4Near(n.value, n.error);
  const fee = pct4Near(drag, g.error + n.error + Math.abs(drag) * 2 ** -52);
  if (gross === null || net === null || fee === null) return null;
  return { grossAnnualizedReturnPct: gross, netAnnualizedReturnPct: net, annualizedFeeDragPct: fee };
}

/** The periods of a projection as decimals: each one's length, start, growth factor and hurdle factor. */
export interface DecimalPeriod {
  length: Dec;
  start: Dec;
  /** (1 + r)^τ of the period's year's return. */
  growth: Dec;
  /** (1 + h)^τ − 1; null without a hurdle. */
  hurdleRate: Dec | null;
}

/** The periods of a projection, their factors computed once per distinct (rate, length) pair: the reference. */
export function decimalPeriods(inputs: FeeInputs): DecimalPeriod[] {
  const tau = inputs.crystallization === 'annual' ? dec(1) : dec('0.25');
  const hurdle = inputs.hurdlePct === null ? null : fromPct(inputs.hurdlePct);
  const returnOfYear = (year: number) => fromPct(inputs.annualGrossReturnPctByYear[year] ?? inputs.annualGrossReturnPct);
  // (1+x)^τ is the costly step (decimal exp/ln); a horizon has at most a few distinct (x, τ) pairs.
  const powers = new Map<string, Dec>();
  const compound = (rate: Dec, length: Dec) => {
    const key = `${rate.toString()}|${length.toString()}`;
    let factor = powers.get(key);
    if (!factor) {
      factor = rate.plus(1).pow(length);
      powers.set(key, factor);
    }
    return factor;
  };
  let elapsed = dec(0);
  return periodLengths(inputs.horizonYears, tau).map((length) => {
    const start = elapsed;
    elapsed = elapsed.plus(length);
    return {
      length,
      start,
      growth: compound(returnOfYear(start.floor().toNumber()), length),
      hurdleRate: hurdle === null ? null : compound(hurdle, length).minus(1),
    };
  });
}

/** What the projection in doubles reads of the resolved request. */
function feeTerms(inputs: FeeInputs): FeeTerms {
  return { ...inputs, startingHwmUsd: inputs.hasHwm ? startingHwmUsd(inputs) : null };
}

/**
 * Projects NAV and fees period by period. Pure; see the module comment for the formulas. Computed in doubles
 * where their error bound proves the result equal to decimal.js's, else by {@link computeFeesInDecimals};
 * the two give the same result, to the last digit. The doubles path takes its periods from
 * `periodPlansInDoubles` (a horizon of whole quarters) or else from decimal.js ({@link computeFeesInDoubles}).
 */
export function computeFees(inputs: FeeInputs): z.output<ReturnType<typeof feeCalculatorOutput>> {
  const plans = periodPlansInDoubles(inputs);
  const answered = plans === null ? null : feesInDoubles(feeTerms(inputs), plans);
  if (answered !== null) return answered;
  const periods = decimalPeriods(inputs);
  return computeFeesInDoubles(inputs, periods) ?? computeFeesInDecimals(inputs, periods);
}

/**
 * {@link computeFees} in doubles (lib/calculators/fee-doubles.ts) on the decimal path's periods and factors.
 * @returns the result, equal to {@link computeFeesInDecimals}'s; null when a rounding or comparison is too
 *   close to call in doubles
 */
export function computeFeesInDoubles(inputs: FeeInputs, periods: readonly DecimalPeriod[] = decimalPeriods(inputs)): FeeResult | null {
  return feesInDoubles(feeTerms(inputs), decimalPlans(periods));
}

/** The decimal path's periods read as doubles, each within 2⁻⁵³ relative of its decimal. */
function decimalPlans(periods: readonly DecimalPeriod[]): PeriodPlan[] {
  return periods.map((p) => {
    const lengthYears = p.length.toNumber();
    const growth = p.growth.toNumber();
    const hurdleRate = p.hurdleRate === null ? null : p.hurdleRate.toNumber();
    return {
      lengthYears,
      lengthError: Math.abs(lengthYears) * 2 ** -53,
      startYears: p.start.toNumber(),
      growth,
      growthError: Math.abs(growth) * 2 ** -53,
      hurdleRate,
      hurdleRateError: hurdleRate === null ? 0 : Math.abs(hurdleRate) * 2 ** -53,
    };
  });
}

/** {@link computeFees} in decimal.js (40 digits) throughout: the reference. */
export function computeFeesInDecimals(
  inputs: FeeInputs,
  periodsOf: readonly DecimalPeriod[] = decimalPeriods(inputs),
): z.output<ReturnType<typeof feeCalculatorOutput>> {
  const start = dec(inputs.startingNavUsd);
  const mgmtRate = fromPct(inputs.mgmtFeePct);
  const perfRate = fromPct(inputs.perfFeePct);

  let nav = start;
  let grossNav = start;
  let hwm: Dec | null = inputs.hasHwm ? dec(startingHwmUsd(inputs)) : null;
  let totalMgmt = dec(0);
  let totalPerf = dec(0);
  const periods: z.output<ReturnType<typeof feePeriod>>[] = [];

  for (const [i, { length, start: elapsed, growth, hurdleRate }] of periodsOf.entries()) {
    const opening = nav;
    const gross = opening.times(growth);
    const base = inputs.mgmtFeeBasis === 'opening' ? opening : inputs.mgmtFeeBasis === 'closing' ? gross : opening.plus(gross).div(2);
    const mgmtFee = D.min(roundCents(mgmtRate.times(length).times(base)), wholeCents(gross));
    const reference = hwm ?? opening;
    const gain = (inputs.perfFeeNetOfMgmtFee ? gross.minus(mgmtFee) : gross).minus(reference);
    const hurdleAmount = hurdleRate === null ? dec(0) : reference.times(hurdleRate);
    let perfBase: Dec;
    if (hurdleRate === null) perfBase = D.max(0, gain);
    else if (inputs.hurdleType === 'hard') perfBase = D.max(0, gain.minus(hurdleAmount));
    else perfBase = gain.gt(hurdleAmount) ? gain : dec(0);
    const perfFee = D.min(roundCents(perfRate.times(perfBase)), wholeCents(gross.minus(mgmtFee)));
    nav = gross.minus(mgmtFee).minus(perfFee);
    if (hwm !== null) hwm = D.max(hwm, nav);
    grossNav = grossNav.times(growth);
    totalMgmt = totalMgmt.plus(mgmtFee);
    totalPerf = totalPerf.plus(perfFee);
    periods.push({
      index: i + 1,
      startYears: elapsed.toNumber(),
      lengthYears: length.toNumber(),
      openingNavUsd: cents(opening),
      grossNavUsd: cents(gross),
      mgmtFeeUsd: cents(mgmtFee),
      perfFeeUsd: cents(perfFee),
      hurdleAmountUsd: cents(hurdleAmount),
      closingNavUsd: cents(nav),
      hwmUsd: hwm === null ? null : cents(hwm),
    });
  }

  const annualized = annualizedPcts(grossNav.div(start), nav.div(start), inputs.horizonYears);
  return {
    totalMgmtFeesUsd: cents(totalMgmt),
    totalPerfFeesUsd: cents(totalPerf),
    totalFeesUsd: cents(totalMgmt.plus(totalPerf)),
    endingNavGrossUsd: cents(grossNav),
    endingNavNetUsd: cents(nav),
    feeDragUsd: cents(grossNav.minus(nav)),
    grossCumulativeReturnPct: pct4(grossNav.div(start).minus(1).times(100)),
    netCumulativeReturnPct: pct4(nav.div(start).minus(1).times(100)),
    ...annualized,
    finalHwmUsd: hwm === null ? null : cents(hwm),
    periods,
  };
}

/** The fee calculator (REST, and the MCP tool `calc_fee_calculator`). */
export const feeCalculator = defineCalculator({
  slug: 'fee-calculator',
  title: 'Fee calculator',
  description:
    'Fee cost to an investor over time: management fee, performance fee with high-water mark and hard or soft hurdle, annual or quarterly crystallization.',
  input: feeCalculatorInput,
  output: feeCalculatorOutput,
  example: { startingNavUsd: 1_000_000, annualGrossReturnPct: 12, mgmtFeePct: 2, perfFeePct: 20, hurdlePct: 6, horizonYears: 3 },
  resolve: (inputs) => ({ ...inputs, initialHwmUsd: startingHwmUsd(inputs) }),
  run: computeFees,
});
