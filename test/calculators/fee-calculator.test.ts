import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { computeFees, feeCalculatorInput } from '../../lib/calculators/fee-calculator.ts';

type FeeRequest = z.input<ReturnType<typeof feeCalculatorInput>>;

/** Resolves a request with the schema's defaults and runs the calculator. */
function run(request: FeeRequest) {
  return computeFees(feeCalculatorInput().parse(request));
}

/** USD amount as whole cents, so sums are compared exactly rather than in binary floating point. */
const toCents = (usd: number) => Math.round(usd * 100);

/**
 * CFA Program Level I, Alternative Investments, hedge fund fee calculation example ("Kettleside" fund):
 * NAV 100 at the start of the year, 130 at the end before fees; 1 % management fee on the year-end
 * (closing) NAV, 20 % performance fee.
 */
const KETTLESIDE = {
  startingNavUsd: 100,
  annualGrossReturnPct: 30,
  mgmtFeePct: 1,
  perfFeePct: 20,
  mgmtFeeBasis: 'closing',
  horizonYears: 1,
} as const;

describe('fee calculator: worked examples', () => {
  describe('CFA Level I "Kettleside" fund (NAV 100 -> 130, 1 % on closing NAV, 20 % performance fee)', () => {
    it('independent fees total 7.30, net return 22.7 %', () => {
      // Source: CFA Level I, Alternative Investments, Kettleside example.
      // M = 1 % × 130 = 1.30; performance fee on the gross gain = 20 % × (130 − 100) = 6.00;
      // total 7.30; net NAV 130 − 7.30 = 122.70, net return 22.70 %.
      const r = run({ ...KETTLESIDE, perfFeeNetOfMgmtFee: false });
      expect(r.totalMgmtFeesUsd).toBe(1.3);
      expect(r.totalPerfFeesUsd).toBe(6);
      expect(r.totalFeesUsd).toBe(7.3);
      expect(r.endingNavGrossUsd).toBe(130);
      expect(r.endingNavNetUsd).toBe(122.7);
      expect(r.netCumulativeReturnPct).toBe(22.7);
      expect(r.netAnnualizedReturnPct).toBe(22.7);
      expect(r.feeDragUsd).toBe(7.3);
    });

    it('performance fee net of the management fee totals 7.04, net return 22.96 %', () => {
      // Source: CFA Level I, Alternative Investments, Kettleside example.
      // M = 1.30; performance fee = 20 % × (130 − 1.30 − 100) = 20 % × 28.70 = 5.74;
      // total 7.04; net NAV 122.96, net return 22.96 %.
      const r = run({ ...KETTLESIDE, perfFeeNetOfMgmtFee: true });
      expect(r.totalMgmtFeesUsd).toBe(1.3);
      expect(r.totalPerfFeesUsd).toBe(5.74);
      expect(r.totalFeesUsd).toBe(7.04);
      expect(r.endingNavNetUsd).toBe(122.96);
      expect(r.netCumulativeReturnPct).toBe(22.96);
    });

    it('with a 6 % hard hurdle totals 5.84, net return 24.16 %', () => {
      // Source: CFA Level I, Alternative Investments, Kettleside example.
      // Hurdle amount = 6 % × 100 = 6; performance fee = 20 % × (28.70 − 6) = 20 % × 22.70 = 4.54;
      // total 1.30 + 4.54 = 5.84; net NAV 124.16, net return 24.16 %.
      const r = run({ ...KETTLESIDE, hurdlePct: 6, hurdleType: 'hard' });
      expect(r.periods[0]!.hurdleAmountUsd).toBe(6);
      expect(r.totalPerfFeesUsd).toBe(4.54);
      expect(r.totalFeesUsd).toBe(5.84);
      expect(r.endingNavNetUsd).toBe(124.16);
      expect(r.netCumulativeReturnPct).toBe(24.16);
    });

    it('with a 6 % soft hurdle that is cleared the fee is on the whole gain: 7.04 total', () => {
      // Same data, soft hurdle (CFA Level I: once a soft hurdle is cleared the incentive fee is on the
      // whole return). Net-of-M gain 28.70 > hurdle 6, so fee = 20 % × 28.70 = 5.74; total 7.04.
      const r = run({ ...KETTLESIDE, hurdlePct: 6, hurdleType: 'soft' });
      expect(r.totalPerfFeesUsd).toBe(5.74);
      expect(r.totalFeesUsd).toBe(7.04);
      expect(r.netCumulativeReturnPct).toBe(22.96);
    });

    it('with a soft hurdle that is not cleared there is no performance fee', () => {
      // Hand computation: 100 -> 130, M = 1.30, net-of-M gain 28.70; soft hurdle 30 % → H = 30 > 28.70,
      // so no performance fee; total = M = 1.30, net NAV 128.70.
      const r = run({ ...KETTLESIDE, hurdlePct: 30, hurdleType: 'soft' });
      expect(r.totalPerfFeesUsd).toBe(0);
      expect(r.totalFeesUsd).toBe(1.3);
      expect(r.endingNavNetUsd).toBe(128.7);
    });

    it("management fee on the 'average' basis", () => {
      // Hand computation: base = (100 + 130) / 2 = 115, M = 1 % × 115 = 1.15;
      // performance fee = 20 % × (130 − 1.15 − 100) = 20 % × 28.85 = 5.77; total 6.92; net NAV 123.08.
      const r = run({ ...KETTLESIDE, mgmtFeeBasis: 'average' });
      expect(r.totalMgmtFeesUsd).toBe(1.15);
      expect(r.totalPerfFeesUsd).toBe(5.77);
      expect(r.totalFeesUsd).toBe(6.92);
      expect(r.endingNavNetUsd).toBe(123.08);
    });

    it("management fee on the 'opening' basis", () => {
      // Hand computation: M = 1 % × 100 = 1.00; performance fee = 20 % × (130 − 1 − 100) = 5.80;
      // total 6.80; net NAV 123.20.
      const r = run({ ...KETTLESIDE, mgmtFeeBasis: 'opening' });
      expect(r.totalMgmtFeesUsd).toBe(1);
      expect(r.totalPerfFeesUsd).toBe(5.8);
      expect(r.totalFeesUsd).toBe(6.8);
      expect(r.endingNavNetUsd).toBe(123.2);
    });
  });

  describe('further published examples', () => {
    it('CFA Level I practice question: 100 -> 120, 1 % on closing, 15 % over a 3 % hard hurdle, net 16.4 %', () => {
      // Source: CFA Level I Alternative Investments practice question, discussed at
      // https://www.analystforum.com/t/cfa-cfa-level-1-alternative-investment/153601 (answer "16.4 %"):
      // M = 1 % × 120 = 1.20; fee net of M over a hard hurdle = 15 % × ((120 − 1.20) − 100 − 3) = 15 % × 15.80
      // = 2.37; total 1.20 + 2.37 = 3.57; net NAV 120 − 3.57 = 116.43, net return 16.43 % (the forum post adds
      // 2.37 + 1.2 as 3.59 and gets 16.41 %; either way the answer is 16.4 %).
      const r = run({
        startingNavUsd: 100,
        annualGrossReturnPct: 20,
        mgmtFeePct: 1,
        perfFeePct: 15,
        hurdlePct: 3,
        hurdleType: 'hard',
        mgmtFeeBasis: 'closing',
        horizonYears: 1,
      });
      expect(r.totalMgmtFeesUsd).toBe(1.2);
      expect(r.totalPerfFeesUsd).toBe(2.37);
      expect(r.totalFeesUsd).toBe(3.57);
      expect(r.endingNavNetUsd).toBe(116.43);
      expect(r.netCumulativeReturnPct).toBe(16.43);
    });

    it('CFA Level I practice question: 2 and 20 on end-of-period value, 10 % hard hurdle, fees 4.40', () => {
      // Source: AnalystNotes CFA Level I question (https://analystnotes.com/cfa_question.php?p=EAGKWL9FU):
      // NAV 100 -> 120, both fees on the end value: M = 2 % × 120 = 2.40; incentive fee independent of M
      // = 20 % × (120 − 100 × 110 %) = 2.00; total 4.40.
      const r = run({
        startingNavUsd: 100,
        annualGrossReturnPct: 20,
        mgmtFeePct: 2,
        perfFeePct: 20,
        hurdlePct: 10,
        hurdleType: 'hard',
        mgmtFeeBasis: 'closing',
        perfFeeNetOfMgmtFee: false,
        horizonYears: 1,
      });
      expect(r.totalMgmtFeesUsd).toBe(2.4);
      expect(r.totalPerfFeesUsd).toBe(2);
      expect(r.totalFeesUsd).toBe(4.4);
    });

    it('CFA Level I style: HWM above the opening NAV, 2 % on opening, 20 % above the HWM net of M', () => {
      // Source: CFA Level I Alternative Investments practice item "Fees and Returns"
      // (https://cfa-practice-platform.pages.dev/cfa-level-1/alternative-investments/fees-and-returns/):
      // NAV 100m, HWM 112m, 116m before fees; M = 2 % × 100m = 2m; fee = 20 % × (116m − 2m − 112m) = 0.4m;
      // net NAV 113.6m, net return 13.6 %.
      const r = run({
        startingNavUsd: 100_000_000,
        initialHwmUsd: 112_000_000,
        annualGrossReturnPct: 16,
        mgmtFeePct: 2,
        perfFeePct: 20,
        mgmtFeeBasis: 'opening',
        horizonYears: 1,
      });
      expect(r.totalMgmtFeesUsd).toBe(2_000_000);
      expect(r.totalPerfFeesUsd).toBe(400_000);
      expect(r.endingNavNetUsd).toBe(113_600_000);
      expect(r.netCumulativeReturnPct).toBe(13.6);
      expect(r.finalHwmUsd).toBe(113_600_000);
    });

    it('hurdle measured from the HWM: 500 -> 560, HWM 520, 2 % on closing, 5 % hard hurdle, net NAV 548.24', () => {
      // Hand computation (the usual CFA Level I setup, hurdle applied to the HWM):
      // M = 2 % × 560 = 11.20; net of M = 548.80; gain over HWM = 28.80; H = 520 × 5 % = 26;
      // fee = 20 % × (28.80 − 26) = 0.56; net NAV 560 − 11.20 − 0.56 = 548.24; return 548.24/500 − 1 = 9.648 %.
      const r = run({
        startingNavUsd: 500,
        initialHwmUsd: 520,
        annualGrossReturnPct: 12,
        mgmtFeePct: 2,
        perfFeePct: 20,
        hurdlePct: 5,
        hurdleType: 'hard',
        mgmtFeeBasis: 'closing',
        horizonYears: 1,
      });
      expect(r.periods[0]!.hurdleAmountUsd).toBe(26);
      expect(r.totalMgmtFeesUsd).toBe(11.2);
      expect(r.totalPerfFeesUsd).toBe(0.56);
      expect(r.endingNavNetUsd).toBe(548.24);
      expect(r.netCumulativeReturnPct).toBe(9.648);
    });
  });

  describe('multi-period examples (hand computed)', () => {
    it('high-water mark: a loss year, a partial recovery with no fee, then a fee only above the HWM', () => {
      // 1,000,000, returns −10 %, +10 %, +20 %; 2 % on opening NAV; 20 % net of M; HWM on, no hurdle.
      // Year 1: G = 900,000; M = 20,000; E = 880,000 < HWM 1,000,000 → fee 0; HWM stays 1,000,000.
      // Year 2: G = 880,000 × 1.1 = 968,000; M = 17,600; G − M = 950,400 < HWM → fee 0 (without an HWM it
      //         would be 20 % × (950,400 − 880,000) = 14,080).
      // Year 3: G = 950,400 × 1.2 = 1,140,480; M = 19,008; G − M = 1,121,472;
      //         fee = 20 % × (1,121,472 − 1,000,000) = 24,294.40; E = 1,097,177.60 = new HWM.
      // Totals: M = 56,608; fee 24,294.40; all 80,902.40. Gross: 1,000,000 × 0.9 × 1.1 × 1.2 = 1,188,000.
      const r = run({ startingNavUsd: 1_000_000, annualGrossReturnPctByYear: [-10, 10, 20], horizonYears: 3 });
      expect(r.periods.map((p) => p.grossNavUsd)).toEqual([900_000, 968_000, 1_140_480]);
      expect(r.periods.map((p) => p.mgmtFeeUsd)).toEqual([20_000, 17_600, 19_008]);
      expect(r.periods.map((p) => p.perfFeeUsd)).toEqual([0, 0, 24_294.4]);
      expect(r.periods.map((p) => p.closingNavUsd)).toEqual([880_000, 950_400, 1_097_177.6]);
      expect(r.periods.map((p) => p.hwmUsd)).toEqual([1_000_000, 1_000_000, 1_097_177.6]);
      expect(r.totalMgmtFeesUsd).toBe(56_608);
      expect(r.totalPerfFeesUsd).toBe(24_294.4);
      expect(r.totalFeesUsd).toBe(80_902.4);
      expect(r.endingNavGrossUsd).toBe(1_188_000);
      expect(r.endingNavNetUsd).toBe(1_097_177.6);
      expect(r.finalHwmUsd).toBe(1_097_177.6);
    });

    it('without a high-water mark the recovery year is charged against its own opening NAV', () => {
      // Same as above with hasHwm false. Year 1 fee 0 (loss); year 2 fee = 20 % × (950,400 − 880,000) = 14,080,
      // E = 936,320. Year 3: G = 936,320 × 1.2 = 1,123,584; M = 18,726.40; G − M = 1,104,857.60;
      // fee = 20 % × (1,104,857.60 − 936,320) = 33,707.52; E = 1,071,150.08.
      const r = run({
        startingNavUsd: 1_000_000,
        annualGrossReturnPctByYear: [-10, 10, 20],
        horizonYears: 3,
        hasHwm: false,
      });
      expect(r.periods.map((p) => p.perfFeeUsd)).toEqual([0, 14_080, 33_707.52]);
      expect(r.periods.map((p) => p.mgmtFeeUsd)).toEqual([20_000, 17_600, 18_726.4]);
      expect(r.endingNavNetUsd).toBe(1_071_150.08);
      expect(r.finalHwmUsd).toBeNull();
      expect(r.periods.every((p) => p.hwmUsd === null)).toBe(true);
    });

    it('quarterly crystallization compounds (1 + r)^0.25 per quarter', () => {
      // 1,000,000; annual return 21.550625 % = 1.05^4 − 1, so each quarter grows by exactly 1.05.
      // 2 % a year on opening NAV → 0.5 % a quarter; 20 % net of M above the HWM, crystallized quarterly.
      // Q1: G = 1,050,000;        M = 5,000;     gain 1,045,000 − 1,000,000 = 45,000  → fee 9,000;     E = 1,036,000
      // Q2: G = 1,087,800;        M = 5,180;     gain 1,082,620 − 1,036,000 = 46,620  → fee 9,324;     E = 1,073,296
      // Q3: G = 1,126,960.80;     M = 5,366.48;  gain 1,121,594.32 − 1,073,296 = 48,298.32 → fee 9,659.664 → 9,659.66;
      //     E = 1,111,934.66
      // Q4: G = 1,167,531.393;    M = 5,559.6733 → 5,559.67; G − M = 1,161,971.723;
      //     gain 1,161,971.723 − 1,111,934.66 = 50,037.063 → fee 10,007.4126 → 10,007.41; E = 1,151,964.313 → 1,151,964.31
      // Totals: M = 5,000 + 5,180 + 5,366.48 + 5,559.67 = 21,106.15; fee = 9,000 + 9,324 + 9,659.66 + 10,007.41
      //         = 37,991.07; all 59,097.22. Gross: 1,000,000 × 1.05^4 = 1,215,506.25.
      const r = run({
        startingNavUsd: 1_000_000,
        annualGrossReturnPct: 21.550625,
        crystallization: 'quarterly',
        horizonYears: 1,
      });
      expect(r.periods.map((p) => p.lengthYears)).toEqual([0.25, 0.25, 0.25, 0.25]);
      expect(r.periods.map((p) => p.startYears)).toEqual([0, 0.25, 0.5, 0.75]);
      expect(r.periods.map((p) => p.grossNavUsd)).toEqual([1_050_000, 1_087_800, 1_126_960.8, 1_167_531.39]);
      expect(r.periods.map((p) => p.mgmtFeeUsd)).toEqual([5_000, 5_180, 5_366.48, 5_559.67]);
      expect(r.periods.map((p) => p.perfFeeUsd)).toEqual([9_000, 9_324, 9_659.66, 10_007.41]);
      expect(r.periods.map((p) => p.closingNavUsd)).toEqual([1_036_000, 1_073_296, 1_111_934.66, 1_151_964.31]);
      expect(r.totalMgmtFeesUsd).toBe(21_106.15);
      expect(r.totalPerfFeesUsd).toBe(37_991.07);
      expect(r.totalFeesUsd).toBe(59_097.22);
      expect(r.endingNavGrossUsd).toBe(1_215_506.25);
      expect(r.endingNavNetUsd).toBe(1_151_964.31);
    });

    it('quarterly hurdle compounds (1 + h)^0.25 on the reference', () => {
      // Hand computation: 1,000,000, growth 1.05 a quarter as above, no management fee, 20 % fee,
      // hard hurdle 21.550625 % a year = 5 % a quarter exactly. Q1: H = 1,000,000 × 0.05 = 50,000 and the gain
      // is 50,000, so the fee is 0 and E = 1,050,000 = new HWM; every quarter then earns exactly its hurdle.
      const r = run({
        startingNavUsd: 1_000_000,
        annualGrossReturnPct: 21.550625,
        mgmtFeePct: 0,
        hurdlePct: 21.550625,
        crystallization: 'quarterly',
        horizonYears: 1,
      });
      expect(r.periods.map((p) => p.hurdleAmountUsd)).toEqual([50_000, 52_500, 55_125, 57_881.25]);
      expect(r.totalFeesUsd).toBe(0);
      expect(r.endingNavNetUsd).toBe(1_215_506.25);
    });

    it('a fractional horizon ends in a stub period of the remaining fraction of a year', () => {
      // 1,000,000; 21 % a year, so the half-year stub grows by 1.21^0.5 = 1.1 exactly; 2 % on opening; 20 %.
      // Year 1: G = 1,210,000; M = 20,000; gain 190,000 → fee 38,000; E = 1,152,000 (HWM).
      // Stub (τ = 0.5): G = 1,152,000 × 1.1 = 1,267,200; M = 2 % × 0.5 × 1,152,000 = 11,520;
      //   gain 1,255,680 − 1,152,000 = 103,680 → fee 20,736; E = 1,234,944.
      // Totals: M 31,520; fee 58,736; all 90,256. Gross 1,000,000 × 1.21^1.5 = 1,331,000 → 21 % a year.
      const r = run({ startingNavUsd: 1_000_000, annualGrossReturnPct: 21, horizonYears: 1.5 });
      expect(r.periods.map((p) => p.lengthYears)).toEqual([1, 0.5]);
      expect(r.periods.map((p) => p.startYears)).toEqual([0, 1]);
      expect(r.periods.map((p) => p.mgmtFeeUsd)).toEqual([20_000, 11_520]);
      expect(r.periods.map((p) => p.perfFeeUsd)).toEqual([38_000, 20_736]);
      expect(r.totalMgmtFeesUsd).toBe(31_520);
      expect(r.totalPerfFeesUsd).toBe(58_736);
      expect(r.totalFeesUsd).toBe(90_256);
      expect(r.endingNavGrossUsd).toBe(1_331_000);
      expect(r.endingNavNetUsd).toBe(1_234_944);
      expect(r.grossAnnualizedReturnPct).toBe(21);
      expect(r.grossCumulativeReturnPct).toBe(33.1);
    });

    it('annualGrossReturnPctByYear overrides the constant return only for the years it covers', () => {
      // Hand computation, no fees: year 1 at +50 %, years 2 and 3 fall back to the constant 10 %:
      // 100 × 1.5 × 1.1 × 1.1 = 181.50.
      const r = run({
        startingNavUsd: 100,
        annualGrossReturnPct: 10,
        annualGrossReturnPctByYear: [50],
        mgmtFeePct: 0,
        perfFeePct: 0,
        horizonYears: 3,
      });
      expect(r.periods.map((p) => p.grossNavUsd)).toEqual([150, 165, 181.5]);
      expect(r.endingNavGrossUsd).toBe(181.5);
      expect(r.endingNavNetUsd).toBe(181.5);
    });
  });
});

// ---------------------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------------------

/** Percent with two decimals in [min, max] (short decimals keep the arithmetic fast and the cases readable). */
const pct = (min: number, max: number) => fc.integer({ min: min * 100, max: max * 100 }).map((x) => x / 100);

/** A sane request: NAV 1k..1bn, yearly returns −50..+60 %, fees 0..5 % and 0..50 %, horizons up to 10 years. */
const request = fc
  .record({
    startingNavUsd: fc.integer({ min: 100_000, max: 100_000_000_000 }).map((c) => c / 100),
    annualGrossReturnPct: pct(-50, 60),
    annualGrossReturnPctByYear: fc.array(pct(-50, 60), { maxLength: 10 }),
    mgmtFeePct: pct(0, 5),
    perfFeePct: pct(0, 50),
    hurdlePct: fc.option(pct(0, 20), { nil: null }),
    hasHwm: fc.boolean(),
    crystallization: fc.constantFrom('annual' as const, 'quarterly' as const),
    horizonYears: fc.integer({ min: 1, max: 40 }).map((q) => q / 4),
    mgmtFeeBasis: fc.constantFrom('opening' as const, 'closing' as const, 'average' as const),
    hurdleType: fc.constantFrom('hard' as const, 'soft' as const),
    perfFeeNetOfMgmtFee: fc.boolean(),
    // The input schema refuses year-by-year returns beyond the horizon, so keep only the years it covers.
  })
  .map((r) => ({ ...r, annualGrossReturnPctByYear: r.annualGrossReturnPctByYear.slice(0, Math.ceil(r.horizonYears)) }));

const RUNS = { numRuns: 200 };

describe('fee calculator: properties', () => {
  it('fees are never negative', () => {
    fc.assert(
      fc.property(request, (req) => {
        const r = run(req);
        expect(r.totalMgmtFeesUsd).toBeGreaterThanOrEqual(0);
        expect(r.totalPerfFeesUsd).toBeGreaterThanOrEqual(0);
        for (const p of r.periods) {
          expect(p.mgmtFeeUsd).toBeGreaterThanOrEqual(0);
          expect(p.perfFeeUsd).toBeGreaterThanOrEqual(0);
        }
      }),
      RUNS,
    );
  });

  it('the net ending NAV never exceeds the gross ending NAV', () => {
    fc.assert(
      fc.property(request, (req) => {
        const r = run(req);
        expect(r.endingNavNetUsd).toBeLessThanOrEqual(r.endingNavGrossUsd);
        expect(r.feeDragUsd).toBeGreaterThanOrEqual(0);
      }),
      RUNS,
    );
  });

  it('period fees sum to the totals to the cent', () => {
    fc.assert(
      fc.property(request, (req) => {
        const r = run(req);
        const mgmt = r.periods.reduce((s, p) => s + toCents(p.mgmtFeeUsd), 0);
        const perf = r.periods.reduce((s, p) => s + toCents(p.perfFeeUsd), 0);
        expect(mgmt).toBe(toCents(r.totalMgmtFeesUsd));
        expect(perf).toBe(toCents(r.totalPerfFeesUsd));
        expect(mgmt + perf).toBe(toCents(r.totalFeesUsd));
      }),
      RUNS,
    );
  });

  it('the number of periods is ceil(horizon / τ), with only the last one shorter than τ', () => {
    const horizon = fc.oneof(
      fc.integer({ min: 1, max: 80 }).map((q) => q / 4),
      fc.double({ min: 0.01, max: 20, noNaN: true, noDefaultInfinity: true }),
    );
    fc.assert(
      fc.property(horizon, fc.constantFrom('annual' as const, 'quarterly' as const), (horizonYears, crystallization) => {
        const tau = crystallization === 'annual' ? 1 : 0.25;
        const r = run({ horizonYears, crystallization, startingNavUsd: 1_000_000 });
        expect(r.periods).toHaveLength(Math.ceil(horizonYears / tau));
        expect(r.periods.map((p) => p.index)).toEqual(r.periods.map((_, i) => i + 1));
        expect(r.periods.slice(0, -1).every((p) => p.lengthYears === tau)).toBe(true);
        const last = r.periods.at(-1)!;
        expect(last.lengthYears).toBeGreaterThan(0);
        expect(last.lengthYears).toBeLessThanOrEqual(tau);
      }),
      RUNS,
    );
  });

  // Soft versus hard hurdle, and raising the hurdle, are compared over ONE crystallization period only.
  // Over several periods both statements are false because of compounding: a smaller fee early leaves more
  // capital in the fund, and later fees are charged on that capital. Over the sane multi-period ranges of
  // `request` fast-check found counterexamples quickly (e.g. quarterly, 9.5 years, 40.47 % a year, 44.31 %
  // performance fee: hurdle 0.04 % gave 4,198.21 of fees against 4,198.20 with hurdle 0; with 60 % returns
  // over 10 years the excess reached 70 % of the starting NAV). Two-period counterexamples that can be checked
  // by hand are in the describe block after this one.
  const singlePeriod = fc.tuple(request, fc.integer({ min: 1, max: 100 })).map(([req, k]) => {
    const tau = req.crystallization === 'annual' ? 1 : 0.25;
    // 0 < horizon ≤ τ: one period, whole or stub, so only the first year's return can apply.
    return { ...req, horizonYears: (tau * k) / 100, annualGrossReturnPctByYear: req.annualGrossReturnPctByYear.slice(0, 1) };
  });

  it('a soft hurdle never charges less performance fee than a hard one (single period)', () => {
    fc.assert(
      fc.property(singlePeriod, pct(0, 20), (req, hurdlePct) => {
        const hard = run({ ...req, hurdlePct, hurdleType: 'hard' });
        const soft = run({ ...req, hurdlePct, hurdleType: 'soft' });
        expect(hard.periods).toHaveLength(1);
        expect(soft.totalPerfFeesUsd).toBeGreaterThanOrEqual(hard.totalPerfFeesUsd);
        expect(soft.totalMgmtFeesUsd).toBe(hard.totalMgmtFeesUsd);
      }),
      RUNS,
    );
  });

  it('raising the hurdle never raises the total fee (single period)', () => {
    fc.assert(
      fc.property(singlePeriod, pct(0, 20), pct(0, 20), (req, a, b) => {
        const none = run({ ...req, hurdlePct: null });
        const low = run({ ...req, hurdlePct: Math.min(a, b) });
        const high = run({ ...req, hurdlePct: Math.max(a, b) });
        expect(low.periods).toHaveLength(1);
        expect(low.totalFeesUsd).toBeLessThanOrEqual(none.totalFeesUsd);
        expect(high.totalFeesUsd).toBeLessThanOrEqual(low.totalFeesUsd);
      }),
      RUNS,
    );
  });

  it('fees never exceed the assets they are charged on, even after a near-total loss', () => {
    // Tiny NAVs and losses close to −100 % leave a gross NAV of a few tenths of a cent; the fees, charged in
    // whole cents, must still satisfy M ≥ 0, fee ≥ 0 and M + fee ≤ G (module comment: M ≤ G, fee ≤ G − M).
    const common = {
      mgmtFeePct: pct(0, 100),
      perfFeePct: pct(0, 100),
      mgmtFeeBasis: fc.constantFrom('opening' as const, 'closing' as const, 'average' as const),
      horizonYears: fc.integer({ min: 1, max: 8 }).map((q) => q / 4),
      crystallization: fc.constantFrom('annual' as const, 'quarterly' as const),
    };
    const tiny = fc.oneof(
      fc.record({
        ...common,
        startingNavUsd: fc.integer({ min: 1, max: 10_000 }).map((c) => c / 100),
        annualGrossReturnPct: fc.integer({ min: -9999, max: 5000 }).map((x) => x / 100),
      }),
      // Near-total loss on the rounding edge: N odd dollars × k/1000 with k ≡ 5 (mod 10) leaves a gross NAV of
      // exactly x.xx5 USD after one year.
      fc.record({
        ...common,
        startingNavUsd: fc.integer({ min: 0, max: 4 }).map((i) => 2 * i + 1),
        annualGrossReturnPct: fc.integer({ min: 0, max: 4 }).map((i) => -100 + (10 * i + 5) / 10),
        crystallization: fc.constant('annual' as const),
        horizonYears: fc.constantFrom(1, 2),
      }),
    );
    fc.assert(
      fc.property(tiny, (req) => {
        const r = run(req);
        for (const p of r.periods) {
          expect(p.mgmtFeeUsd).toBeGreaterThanOrEqual(0);
          expect(p.perfFeeUsd).toBeGreaterThanOrEqual(0);
          expect(toCents(p.mgmtFeeUsd) + toCents(p.perfFeeUsd)).toBeLessThanOrEqual(toCents(p.grossNavUsd));
          expect(p.closingNavUsd).toBeGreaterThanOrEqual(0);
        }
      }),
      RUNS,
    );
  });
});

describe('fee calculator: fees are capped at the assets, in whole cents', () => {
  it('a loss that leaves half a cent charges no fee rather than a negative one', () => {
    // Hand computation: 1.00 USD, −99.5 % → G = 0.005. The 2 % opening-basis fee (0.02) is capped at G, and
    // the fees are in whole cents, so at most 0.00 can be taken: M = 0, performance fee 0 (no gain), E = G.
    // (Capping at 0.005 and then rounding half-up gave M = 0.01 > G and a performance fee of −0.01.)
    const r = run({ startingNavUsd: 1, annualGrossReturnPct: -99.5, horizonYears: 1 });
    const p = r.periods[0]!;
    expect(p.mgmtFeeUsd).toBe(0);
    expect(p.perfFeeUsd).toBe(0);
    expect(r.totalFeesUsd).toBe(0);
    expect(r.endingNavNetUsd).toBe(r.endingNavGrossUsd);
  });

  it('a fee capped at the assets takes every whole cent of them', () => {
    // Hand computation: 1.00 USD, +0.7 % → G = 1.007; a 100 % closing-basis management fee (1.007) is capped
    // at the whole cents of G: M = 1.00; no performance fee is left to charge (G − M = 0.007 < 1 cent).
    const r = run({
      startingNavUsd: 1,
      annualGrossReturnPct: 0.7,
      mgmtFeePct: 100,
      mgmtFeeBasis: 'closing',
      horizonYears: 1,
    });
    expect(r.periods[0]!.mgmtFeeUsd).toBe(1);
    expect(r.periods[0]!.perfFeeUsd).toBe(0);
    expect(r.endingNavNetUsd).toBe(0.01); // 0.007 rounded half-up to cents
  });
});

describe('fee calculator: why the hurdle properties hold for one period only (hand computed)', () => {
  it('over two periods a higher soft hurdle can raise the total fee', () => {
    // 100, no management fee, 50 % performance fee, HWM, soft hurdle; year 1 +10 %, year 2 +300 %.
    // Hurdle 0:   Y1 gain 10 > 0 → fee 5, E = 105 (HWM). Y2 G = 420, gain 315 > 0 → fee 157.50. Total 162.50.
    // Hurdle 10 %: Y1 gain 10, H = 10, not above → fee 0, E = 110 (HWM). Y2 G = 440, gain 330 > H = 11
    //             → fee 165. Total 165 > 162.50: the 5 saved in year 1 grew fourfold and was charged at 50 %.
    const base = {
      startingNavUsd: 100,
      annualGrossReturnPctByYear: [10, 300],
      mgmtFeePct: 0,
      perfFeePct: 50,
      hurdleType: 'soft',
      horizonYears: 2,
    } satisfies FeeRequest;
    const low = run({ ...base, hurdlePct: 0 });
    const high = run({ ...base, hurdlePct: 10 });
    expect(low.periods.map((p) => p.perfFeeUsd)).toEqual([5, 157.5]);
    expect(high.periods.map((p) => p.perfFeeUsd)).toEqual([0, 165]);
    expect(low.totalFeesUsd).toBe(162.5);
    expect(high.totalFeesUsd).toBe(165);
  });

  it('over two periods a soft hurdle can charge less in total than a hard one', () => {
    // 100, no management fee, 50 % performance fee, HWM, 10 % hurdle; year 1 +20 %, year 2 +600 %.
    // Hard: Y1 fee 50 % × (20 − 10) = 5, E = 115. Y2 G = 805, gain 690, H = 11.50 → fee 50 % × 678.50 = 339.25.
    //       Total 344.25.
    // Soft: Y1 fee 50 % × 20 = 10, E = 110. Y2 G = 770, gain 660 > H = 11 → fee 330. Total 340 < 344.25.
    const base = {
      startingNavUsd: 100,
      annualGrossReturnPctByYear: [20, 600],
      mgmtFeePct: 0,
      perfFeePct: 50,
      hurdlePct: 10,
      horizonYears: 2,
    } satisfies FeeRequest;
    const hard = run({ ...base, hurdleType: 'hard' });
    const soft = run({ ...base, hurdleType: 'soft' });
    expect(hard.periods.map((p) => p.perfFeeUsd)).toEqual([5, 339.25]);
    expect(soft.periods.map((p) => p.perfFeeUsd)).toEqual([10, 330]);
    expect(hard.totalPerfFeesUsd).toBe(344.25);
    expect(soft.totalPerfFeesUsd).toBe(340);
  });
});
