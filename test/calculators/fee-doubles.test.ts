/**
 * The fee calculator's projection in doubles (lib/calculators/fee-doubles.ts, `computeFeesInDoubles`) against
 * its decimal.js reference (`computeFeesInDecimals`, 40 digits): random requests over the whole accepted
 * range, compared leaf by leaf with `Object.is` (the sign of a zero too); the doubles path refusing what it
 * cannot decide (half-cent ties, a fee at its cap, amounts past 2^50 cents) rather than answering it; and
 * `computeFees`, which the API runs, always equal to the reference.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import {
  computeFees,
  computeFeesInDecimals,
  computeFeesInDoubles,
  decimalPeriods,
  feeCalculatorInput,
  startingHwmUsd,
} from '../../lib/calculators/fee-calculator.ts';
import { centsDown, centsHalfUp, feesInDoubles, periodPlansInDoubles } from '../../lib/calculators/fee-doubles.ts';
import { D, type Dec } from '../../lib/decimal.ts';

/** Decimals wide enough to hold a double's exact binary value (at most 767 significant digits). */
const Wide = D.clone({ precision: 800 });
/** The exact value of a finite double, as a decimal (`new D(x)` would read its shortest decimal instead). */
function exactValueOf(x: number): Dec {
  if (x === 0) return new Wide(0);
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const value = new Wide(mantissa.toString()).times(new Wide(2).pow((biased === 0 ? 1 : biased) - 1075));
  return x < 0 ? value.neg() : value;
}

type FeeRequest = z.input<ReturnType<typeof feeCalculatorInput>>;
const resolve = (request: FeeRequest) => feeCalculatorInput().parse(request);

/** Fails with the path of the first leaf where two results differ (`Object.is`). */
function expectSame(actual: unknown, expected: unknown, path = '$'): void {
  if (typeof expected === 'object' && expected !== null) {
    expect(typeof actual, path).toBe('object');
    expect(Object.keys(actual as object), path).toEqual(Object.keys(expected));
    for (const k of Object.keys(expected))
      expectSame((actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k], `${path}.${k}`);
    return;
  }
  expect(Object.is(actual, expected), `${path}: ${String(actual)} vs ${String(expected)}`).toBe(true);
}

/** Percent inputs as clients send them: whole, 2 dp, or any double in range. */
const pct = (min: number, max: number) =>
  fc.oneof(
    fc.integer({ min: Math.ceil(min), max: Math.floor(max) }),
    fc.integer({ min: Math.ceil(min * 100), max: Math.floor(max * 100) }).map((c) => c / 100),
    fc.double({ min, max, noNaN: true }),
  );
/** USD amounts: cents, whole dollars, tiny and huge. */
const usdAmount = fc.oneof(
  fc.integer({ min: 1, max: 10 ** 11 }).map((c) => c / 100),
  fc.integer({ min: 1, max: 10 ** 9 }),
  fc.constantFrom(0.01, 0.25, 1, 100, 1_000_000, 5e9, 1e12),
);
const request: fc.Arbitrary<FeeRequest> = fc
  .record({
    startingNavUsd: usdAmount,
    annualGrossReturnPct: pct(-99, 200),
    mgmtFeePct: fc.oneof(fc.constantFrom(0, 1, 1.5, 2), pct(0, 10)),
    perfFeePct: fc.oneof(fc.constantFrom(0, 10, 20, 30), pct(0, 50)),
    hurdlePct: fc.option(fc.oneof(fc.constantFrom(0, 5, 8), pct(0, 30)), { nil: null }),
    hasHwm: fc.boolean(),
    crystallization: fc.constantFrom('annual', 'quarterly'),
    horizonYears: fc.oneof(
      fc.integer({ min: 1, max: 50 }),
      fc.integer({ min: 1, max: 200 }).map((q) => q / 4),
      fc.double({ min: 0.01, max: 50, noNaN: true }),
    ),
    mgmtFeeBasis: fc.constantFrom('opening', 'closing', 'average'),
    hurdleType: fc.constantFrom('hard', 'soft'),
    perfFeeNetOfMgmtFee: fc.boolean(),
    initialHwmUsd: fc.option(usdAmount, { nil: null }),
    byYear: fc.array(pct(-90, 150), { maxLength: 50 }),
  })
  .map(({ byYear, ...r }) => ({ ...r, annualGrossReturnPctByYear: byYear.slice(0, Math.ceil(r.horizonYears)) }) as FeeRequest);

/** Fund-sized requests: NAV 1,000 to 1e9 USD, returns in 2 dp, up to 20 years. */
const typicalRequest = fc.record({
  startingNavUsd: fc.integer({ min: 100_000, max: 10 ** 11 }).map((c) => c / 100),
  annualGrossReturnPct: fc.integer({ min: -4000, max: 6000 }).map((c) => c / 100),
  mgmtFeePct: fc.constantFrom(1, 1.5, 2),
  perfFeePct: fc.constantFrom(10, 15, 20),
  hurdlePct: fc.option(fc.constantFrom(4, 6, 8), { nil: null }),
  crystallization: fc.constantFrom('annual', 'quarterly'),
  horizonYears: fc.integer({ min: 1, max: 20 }),
  mgmtFeeBasis: fc.constantFrom('opening', 'closing', 'average'),
  hurdleType: fc.constantFrom('hard', 'soft'),
}) as fc.Arbitrary<FeeRequest>;

/** A request with a horizon of `quarters` quarters, its years' returns cut to it. */
const wholeQuarters = (r: FeeRequest, quarters: number): FeeRequest => ({
  ...r,
  horizonYears: quarters / 4,
  annualGrossReturnPctByYear: r.annualGrossReturnPctByYear?.slice(0, Math.ceil(quarters / 4)),
});

/** The projection in doubles on periods made in doubles (what `computeFees` tries first); null when either refuses. */
function quickFees(inputs: ReturnType<typeof resolve>) {
  const plans = periodPlansInDoubles(inputs);
  return plans === null ? null : feesInDoubles({ ...inputs, startingHwmUsd: inputs.hasHwm ? startingHwmUsd(inputs) : null }, plans);
}

describe('fee projection in doubles', () => {
  it('equals decimal.js wherever it answers, over the whole accepted range', () => {
    fc.assert(
      fc.property(request, (r) => {
        const inputs = resolve(r);
        const reference = computeFeesInDecimals(inputs);
        const fast = computeFeesInDoubles(inputs);
        if (fast !== null) expectSame(fast, reference);
        expectSame(computeFees(inputs), reference);
      }),
      { numRuns: 400 },
    );
  });

  it('answers most requests of a fund-sized investment (NAV 1,000 to 1e9 USD, returns in 2 dp, up to 20 years)', () => {
    let answered = 0;
    let runs = 0;
    fc.assert(
      fc.property(typicalRequest, (r) => {
        const inputs = resolve(r);
        const fast = computeFeesInDoubles(inputs);
        runs++;
        if (fast !== null) {
          answered++;
          expectSame(fast, computeFeesInDecimals(inputs));
        }
      }),
      { numRuns: 300 },
    );
    // Left to decimal.js: a rounding within the bound of a half cent (the bound grows with the amount and the
    // number of periods: about one request in eight of 1e9 USD over 20 quarterly years), a fee at its cap, a
    // return of exactly 0 % (an annualized 0 whose sign the bound cannot tell).
    expect(answered / runs).toBeGreaterThan(0.8);
  });

  it('answers the documented defaults and the example, to the cent as decimal.js', () => {
    for (const r of [
      {},
      { startingNavUsd: 1_000_000, annualGrossReturnPct: 12, mgmtFeePct: 2, perfFeePct: 20, hurdlePct: 6, horizonYears: 3 },
    ]) {
      const fast = computeFeesInDoubles(resolve(r));
      expect(fast).not.toBeNull();
      expectSame(fast, computeFeesInDecimals(resolve(r)));
    }
    // 2 and 20 on 1,000,000 at 10 % for 5 years (docs/calculators.md).
    expect(computeFeesInDoubles(resolve({}))?.totalFeesUsd).toBe(204_562.35);
  });

  it('answers a request of whole quarters from periods made in doubles, as decimal.js to the last digit', () => {
    // Over the whole accepted range: equal wherever it answers (extreme inputs, such as a hurdle of 1e-98 %
    // or a return of −99 % a year, are left to decimal.js's periods).
    fc.assert(
      fc.property(request, fc.integer({ min: 1, max: 200 }), (r, quarters) => {
        const inputs = resolve(wholeQuarters(r, quarters));
        const fast = quickFees(inputs);
        if (fast !== null) expectSame(fast, computeFeesInDecimals(inputs));
      }),
      { numRuns: 400 },
    );
    // Fund-sized requests: answered as often as from decimal.js's periods, and equal.
    let answered = 0;
    let answeredByDecimalPeriods = 0;
    fc.assert(
      fc.property(typicalRequest, fc.integer({ min: 1, max: 80 }), (r, quarters) => {
        const inputs = resolve(wholeQuarters(r, quarters));
        const fast = quickFees(inputs);
        if (computeFeesInDoubles(inputs) !== null) answeredByDecimalPeriods++;
        if (fast !== null) {
          answered++;
          expectSame(fast, computeFeesInDecimals(inputs));
        }
      }),
      { numRuns: 300 },
    );
    expect(answered).toBeGreaterThan(0.95 * answeredByDecimalPeriods);
    expect(answered).toBeGreaterThan(0.8 * 300);
    // The documented defaults and the example take this path.
    for (const r of [
      {},
      { startingNavUsd: 1_000_000, annualGrossReturnPct: 12, mgmtFeePct: 2, perfFeePct: 20, hurdlePct: 6, horizonYears: 3 },
    ]) {
      const fast = quickFees(resolve(r));
      expect(fast).not.toBeNull();
      expectSame(fast, computeFeesInDecimals(resolve(r)));
    }
    // No fee, no performance fee, a hurdle of 0 %: exactly zero, answered in doubles too.
    for (const r of [{ mgmtFeePct: 0 }, { perfFeePct: 0 }, { hurdlePct: 0 }, { hurdlePct: 0, crystallization: 'quarterly' as const }]) {
      const fast = quickFees(resolve(r));
      expect(fast, JSON.stringify(r)).not.toBeNull();
      expectSame(fast, computeFeesInDecimals(resolve(r)));
    }
    // Not a horizon of whole quarters: left to the decimal path's periods.
    expect(periodPlansInDoubles(resolve({ horizonYears: 2.1 }))).toBeNull();
  });

  it('makes periods in doubles within their bounds of the decimal periods, lengths and starts exactly', () => {
    fc.assert(
      fc.property(request, fc.integer({ min: 1, max: 120 }), (r, quarters) => {
        const horizonYears = quarters / 4;
        const inputs = resolve({
          ...r,
          horizonYears,
          annualGrossReturnPctByYear: r.annualGrossReturnPctByYear?.slice(0, Math.ceil(horizonYears)),
        });
        const plans = periodPlansInDoubles(inputs);
        const reference = decimalPeriods(inputs);
        if (plans === null) return;
        expect(plans.length).toBe(reference.length);
        for (const [i, p] of plans.entries()) {
          const d = reference[i]!;
          expect(p.lengthYears).toBe(d.length.toNumber());
          expect(p.startYears).toBe(d.start.toNumber());
          expect(exactValueOf(p.growth).minus(d.growth).abs().lte(p.growthError), `growth of period ${i + 1}`).toBe(true);
          // Nor loose by orders of magnitude: within 64 ulps of the factor above a return of −50 % a year (near
          // −100 % the roots' bounds grow, as √ does near 0, and the calculator takes decimal.js's periods).
          if (p.growth > 0.5) expect(p.growthError).toBeLessThan(p.growth * 2 ** -46);
          if (d.hurdleRate === null) expect(p.hurdleRate).toBeNull();
          else expect(exactValueOf(p.hurdleRate!).minus(d.hurdleRate).abs().lte(p.hurdleRateError), `hurdle of period ${i + 1}`).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('leaves a management fee of exactly half a cent to decimal.js, which rounds it up', () => {
    // 2 % of 0.25 USD for one year is 0.5 cent; 0.02 is not a double, so doubles cannot tell the tie.
    const inputs = resolve({ startingNavUsd: 0.25, annualGrossReturnPct: 0, mgmtFeePct: 2, perfFeePct: 0, horizonYears: 1 });
    expect(computeFeesInDoubles(inputs)).toBeNull();
    expect(computeFees(inputs).totalMgmtFeesUsd).toBe(0.01);
  });

  it('leaves amounts past 2^50 cents to decimal.js', () => {
    const inputs = resolve({ startingNavUsd: 1e12, annualGrossReturnPct: 100, horizonYears: 20 });
    expect(computeFeesInDoubles(inputs)).toBeNull();
    expectSame(computeFees(inputs), computeFeesInDecimals(inputs));
  });
});

describe('cents of an approximate amount', () => {
  it('rounds half away from zero when the bound allows, and refuses a tie, a near-zero and a huge amount', () => {
    expect(centsHalfUp({ v: 1234.4, e: 0.01 })).toBe(1234);
    expect(centsHalfUp({ v: 1234.6, e: 0.01 })).toBe(1235);
    expect(centsHalfUp({ v: -1234.6, e: 0.01 })).toBe(-1235);
    expect(centsHalfUp({ v: 1234.5, e: 0 })).toBe(null); // the exact tie, as 1234.5 might stand for 1234.4999…
    expect(centsHalfUp({ v: 1234.495, e: 0.01 })).toBe(null);
    expect(centsHalfUp({ v: 0, e: 0 })).toBe(0);
    expect(centsHalfUp({ v: 1e-9, e: 1e-8 })).toBe(null);
    expect(centsHalfUp({ v: 2 ** 51, e: 0 })).toBe(null);
  });

  it('rounds a positive amount down when no whole cent lies within the bound', () => {
    expect(centsDown({ v: 1234.7, e: 0.01 })).toBe(1234);
    expect(centsDown({ v: 1234.001, e: 0.01 })).toBe(null);
    expect(centsDown({ v: 1233.999, e: 0.01 })).toBe(null);
    expect(centsDown({ v: -5, e: 0 })).toBe(null);
  });

  it('agrees with exact half-up rounding on random amounts and bounds, and is symmetric about zero (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 ** 12 }),
        fc.integer({ min: 0, max: 999 }),
        fc.double({ min: 0, max: 0.2, noNaN: true }),
        (whole, thousandths, e) => {
          // x = whole + thousandths/1000; v is its double, so the bound covers v's own rounding too.
          const v = whole + thousandths / 1000;
          const bound = e + Math.abs(v) * 2 ** -52;
          const up = centsHalfUp({ v, e: bound });
          if (up !== null) expect(up).toBe(thousandths >= 500 ? whole + 1 : whole);
          // Far from the tie and from zero, with a small bound, it answers.
          if (Math.abs(thousandths - 500) > 250 && bound < 0.2 && v > 1) expect(up).not.toBeNull();
          if (up !== null && v > 0) expect(centsHalfUp({ v: -v, e: bound })).toBe(-up);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
