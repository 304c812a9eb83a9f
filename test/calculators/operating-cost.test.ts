/**
 * Operating cost calculator and back-office savings (same body).
 *
 * total = Σ cost lines, lpReports = lpReportsPerYear × costPerReportUsd, costBpsOfAum = total / AUM × 10,000
 * (1 bp = 0.01 %). Back office: automatable = Σ line × AUTOMATABLE_SHARES[line], residual = total − automatable.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  COST_LINES,
  computeOperatingCost,
  costLines,
  operatingCostInput,
  operatingCostOutput,
} from '../../lib/calculators/operating-cost-calculator.ts';
import { AUTOMATABLE_SHARES, backOfficeSavingsOutput, computeBackOfficeSavings } from '../../lib/calculators/back-office-savings.ts';
import { dec, sum } from '../../lib/decimal.ts';

const inputs = (body: Record<string, unknown>) => operatingCostInput().parse(body);
/** Exact sum of JSON numbers (money in whole cents), so float noise cannot hide or fake a mismatch. */
const dsum = (xs: number[]) => sum(xs.map((x) => dec(x)));
const eq = (a: ReturnType<typeof dec>, b: number) => expect(a.toString()).toBe(dec(b).toString());

const EXAMPLE = {
  financeHireUsd: 180_000,
  fundAdminUsd: 95_000.5,
  complianceUsd: 60_000,
  riskDeskUsd: 40_000,
  lpReportsPerYear: 12,
  costPerReportUsd: 1_250.25,
  auditUsd: 55_000,
  legalUsd: 30_000,
  softwareUsd: 24_996.5,
  aumUsd: 300_000_000,
};

describe('operating cost calculator: worked example', () => {
  const r = computeOperatingCost(inputs(EXAMPLE));

  it('costs each line, with lpReports = reports × cost per report', () => {
    // lpReports = 12 × 1,250.25 = 15,003.00
    expect(r.lineItems.map((l) => [l.item, l.annualCostUsd])).toEqual([
      ['financeHire', 180_000],
      ['fundAdmin', 95_000.5],
      ['compliance', 60_000],
      ['riskDesk', 40_000],
      ['lpReports', 15_003],
      ['audit', 55_000],
      ['legal', 30_000],
      ['software', 24_996.5],
    ]);
  });

  it('totals the lines exactly', () => {
    // 180,000 + 95,000.50 + 60,000 + 40,000 + 15,003 + 55,000 + 30,000 + 24,996.50 = 500,000.00
    expect(r.totalAnnualCostUsd).toBe(500_000);
    eq(dsum(r.lineItems.map((l) => l.annualCostUsd)), r.totalAnnualCostUsd);
  });

  it('expresses the total in basis points of AUM', () => {
    // 500,000 / 300,000,000 × 10,000 = 16.666… → 16.67 bp
    expect(r.costBpsOfAum).toBe(16.67);
  });

  it('gives each line its share of the total', () => {
    // 180,000/500,000 = 0.36; 95,000.5/500,000 = 0.190001; 60,000 → 0.12; 40,000 → 0.08;
    // 15,003 → 0.030006; 55,000 → 0.11; 30,000 → 0.06; 24,996.5 → 0.049993. Sum = 1.000000.
    expect(r.lineItems.map((l) => l.shareOfTotal)).toEqual([0.36, 0.190001, 0.12, 0.08, 0.030006, 0.11, 0.06, 0.049993]);
    eq(dsum(r.lineItems.map((l) => l.shareOfTotal)), 1);
  });

  it('matches the output schema', () => {
    expect(() => operatingCostOutput().parse(r)).not.toThrow();
  });
});

describe('operating cost calculator: edges', () => {
  it('an empty body costs 0 with costBpsOfAum null and every share 0', () => {
    const r = computeOperatingCost(inputs({}));
    expect(r.totalAnnualCostUsd).toBe(0);
    expect(r.costBpsOfAum).toBeNull();
    expect(r.lineItems).toEqual(COST_LINES.map((item) => ({ item, annualCostUsd: 0, shareOfTotal: 0 })));
  });

  it('AUM 0 leaves bps null even with costs; costs 0 with AUM gives 0 bp', () => {
    expect(computeOperatingCost(inputs({ legalUsd: 10 })).costBpsOfAum).toBeNull();
    expect(computeOperatingCost(inputs({ aumUsd: 1e9 })).costBpsOfAum).toBe(0);
  });

  it('reports with no cost per report, or a cost per report with no reports, cost nothing', () => {
    expect(computeOperatingCost(inputs({ lpReportsPerYear: 4 })).totalAnnualCostUsd).toBe(0);
    expect(computeOperatingCost(inputs({ costPerReportUsd: 900 })).totalAnnualCostUsd).toBe(0);
  });

  it('rounds each line to cents so the lines sum to the total even for sub-cent inputs', () => {
    const r = computeOperatingCost(inputs({ lpReportsPerYear: 3, costPerReportUsd: 0.125, auditUsd: 0.005, legalUsd: 0.005 }));
    // 3 × 0.125 = 0.375 → 0.38; 0.005 → 0.01 twice; total 0.40 (not 0.385 → 0.39)
    expect(r.lineItems.find((l) => l.item === 'lpReports')!.annualCostUsd).toBe(0.38);
    expect(r.totalAnnualCostUsd).toBe(0.4);
    expect(r.lineItems.reduce((a, l) => a + Math.round(l.annualCostUsd * 100), 0)).toBe(40);
  });

  it('multiplies without binary noise: 3 × 0.1 = 0.3', () => {
    const lp = costLines(inputs({ lpReportsPerYear: 3, costPerReportUsd: 0.1 })).find((l) => l.item === 'lpReports')!;
    expect(lp.annualCost.toString()).toBe('0.3');
  });

  it('rounds bps half-up to 2 dp: 1,000.5 on 2,000,000 AUM is 5.0025 → 5 bp; 1,001 is 5.005 → 5.01', () => {
    expect(computeOperatingCost(inputs({ auditUsd: 1_000.5, aumUsd: 2_000_000 })).costBpsOfAum).toBe(5);
    expect(computeOperatingCost(inputs({ auditUsd: 1_001, aumUsd: 2_000_000 })).costBpsOfAum).toBe(5.01);
  });

  it('the input schema rejects negatives, fractional report counts and unknown fields', () => {
    expect(operatingCostInput().safeParse({ auditUsd: -1 }).success).toBe(false);
    expect(operatingCostInput().safeParse({ lpReportsPerYear: 1.5 }).success).toBe(false);
    expect(operatingCostInput().safeParse({ rentUsd: 1 }).success).toBe(false);
  });
});

describe('back-office savings: worked example', () => {
  const r = computeBackOfficeSavings(inputs(EXAMPLE));

  it('applies each line its automatable share, rounding each line to cents', () => {
    // financeHire 180,000 × 0.50 = 90,000          residual 90,000
    // fundAdmin    95,000.50 × 0.15 = 14,250.075 → 14,250.08 (half-up); residual 95,000.50 − 14,250.08 = 80,750.42
    // compliance   60,000 × 0.20 = 12,000          residual 48,000
    // riskDesk     40,000 × 0.40 = 16,000          residual 24,000
    // lpReports    15,003 × 0.70 = 10,502.10       residual 4,500.90
    // audit        55,000 × 0.10 = 5,500           residual 49,500
    // legal, software × 0.00 = 0                   residual 30,000 and 24,996.50
    expect(r.byLine.map((l) => [l.item, l.annualCostUsd, l.automatableShare, l.automatableAnnualUsd, l.residualAnnualUsd])).toEqual([
      ['financeHire', 180_000, 0.5, 90_000, 90_000],
      ['fundAdmin', 95_000.5, 0.15, 14_250.08, 80_750.42],
      ['compliance', 60_000, 0.2, 12_000, 48_000],
      ['riskDesk', 40_000, 0.4, 16_000, 24_000],
      ['lpReports', 15_003, 0.7, 10_502.1, 4_500.9],
      ['audit', 55_000, 0.1, 5_500, 49_500],
      ['legal', 30_000, 0, 0, 30_000],
      ['software', 24_996.5, 0, 0, 24_996.5],
    ]);
  });

  it('totals: automatable + residual = total, and the lines add up to each total', () => {
    // automatable = 90,000 + 14,250.08 + 12,000 + 16,000 + 10,502.10 + 5,500 = 148,252.18
    // residual    = 500,000 − 148,252.18 = 351,747.82
    expect(r.totalAnnualCostUsd).toBe(500_000);
    expect(r.automatableAnnualUsd).toBe(148_252.18);
    expect(r.residualAnnualCostUsd).toBe(351_747.82);
    eq(dec(r.automatableAnnualUsd).plus(r.residualAnnualCostUsd), r.totalAnnualCostUsd);
    eq(dsum(r.byLine.map((l) => l.automatableAnnualUsd)), r.automatableAnnualUsd);
    eq(dsum(r.byLine.map((l) => l.residualAnnualUsd)), r.residualAnnualCostUsd);
    eq(dsum(r.byLine.map((l) => l.annualCostUsd)), r.totalAnnualCostUsd);
    for (const l of r.byLine) eq(dec(l.automatableAnnualUsd).plus(l.residualAnnualUsd), l.annualCostUsd);
  });

  it('gives the automatable share in percent', () => {
    // 148,252.18 / 500,000 × 100 = 29.650436 % → 29.6504
    expect(r.automatableSharePct).toBe(29.6504);
  });

  it('agrees with the operating cost calculator on the total and the lines', () => {
    const o = computeOperatingCost(inputs(EXAMPLE));
    expect(r.totalAnnualCostUsd).toBe(o.totalAnnualCostUsd);
    expect(r.byLine.map((l) => [l.item, l.annualCostUsd])).toEqual(o.lineItems.map((l) => [l.item, l.annualCostUsd]));
  });

  it('returns the assumptions table exactly as AUTOMATABLE_SHARES, in line order', () => {
    expect(r.assumptions).toEqual(
      COST_LINES.map((item) => ({
        item,
        automatableShare: Number(AUTOMATABLE_SHARES[item].share),
        rationale: AUTOMATABLE_SHARES[item].rationale,
      })),
    );
    expect(Object.keys(AUTOMATABLE_SHARES).sort()).toEqual([...COST_LINES].sort());
    // The documented planning assumptions.
    expect(Object.fromEntries(r.assumptions.map((a) => [a.item, a.automatableShare]))).toEqual({
      financeHire: 0.5,
      fundAdmin: 0.15,
      compliance: 0.2,
      riskDesk: 0.4,
      lpReports: 0.7,
      audit: 0.1,
      legal: 0,
      software: 0,
    });
    for (const a of r.assumptions) {
      expect(a.automatableShare).toBeGreaterThanOrEqual(0);
      expect(a.automatableShare).toBeLessThanOrEqual(1);
      expect(a.rationale.length).toBeGreaterThan(0);
    }
  });

  it('matches the output schema', () => {
    expect(() => backOfficeSavingsOutput().parse(r)).not.toThrow();
  });

  it('an empty body gives zeros and still the assumptions', () => {
    const z = computeBackOfficeSavings(inputs({}));
    expect([z.totalAnnualCostUsd, z.automatableAnnualUsd, z.automatableSharePct, z.residualAnnualCostUsd]).toEqual([0, 0, 0, 0]);
    expect(z.byLine.every((l) => l.annualCostUsd === 0 && l.automatableAnnualUsd === 0 && l.residualAnnualUsd === 0)).toBe(true);
    expect(z.assumptions).toHaveLength(8);
  });
});

describe('operating cost and back-office savings: properties', () => {
  /** Whole cents as a USD number (0 … 10,000,000.00). */
  const usd = fc.integer({ min: 0, max: 1_000_000_000 }).map((c) => c / 100);
  const body = fc.record({
    financeHireUsd: usd,
    fundAdminUsd: usd,
    complianceUsd: usd,
    riskDeskUsd: usd,
    lpReportsPerYear: fc.integer({ min: 0, max: 365 }),
    costPerReportUsd: fc.integer({ min: 0, max: 10_000_000 }).map((c) => c / 100),
    auditUsd: usd,
    legalUsd: usd,
    softwareUsd: usd,
    aumUsd: fc.oneof(
      fc.constant(0),
      fc.integer({ min: 1, max: 1e6 }).map((m) => m * 10_000),
    ),
  });

  it('line items sum exactly to the total; lpReports = count × unit cost; bps matches', () => {
    fc.assert(
      fc.property(body, (b) => {
        const r = computeOperatingCost(inputs(b));
        eq(dsum(r.lineItems.map((l) => l.annualCostUsd)), r.totalAnnualCostUsd);
        const lp = r.lineItems.find((l) => l.item === 'lpReports')!;
        eq(dec(b.lpReportsPerYear).times(b.costPerReportUsd), lp.annualCostUsd);
        // Independent oracle in integer cents.
        const c = (x: number) => BigInt(Math.round(x * 100));
        const totalCents =
          c(b.financeHireUsd) +
          c(b.fundAdminUsd) +
          c(b.complianceUsd) +
          c(b.riskDeskUsd) +
          BigInt(b.lpReportsPerYear) * c(b.costPerReportUsd) +
          c(b.auditUsd) +
          c(b.legalUsd) +
          c(b.softwareUsd);
        expect(dec(r.totalAnnualCostUsd).times(100).toString()).toBe(totalCents.toString());
        if (b.aumUsd === 0) expect(r.costBpsOfAum).toBeNull();
        else expect(r.costBpsOfAum!).toBeCloseTo((r.totalAnnualCostUsd / b.aumUsd) * 10_000, 1);
        if (r.totalAnnualCostUsd > 0) {
          expect(Math.abs(r.lineItems.reduce((a, l) => a + l.shareOfTotal, 0) - 1)).toBeLessThanOrEqual(8 * 5e-7 + 1e-12);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('automatable + residual = total and 0 ≤ automatable ≤ total, in total and per line', () => {
    fc.assert(
      fc.property(body, (b) => {
        const r = computeBackOfficeSavings(inputs(b));
        eq(dec(r.automatableAnnualUsd).plus(r.residualAnnualCostUsd), r.totalAnnualCostUsd);
        eq(dsum(r.byLine.map((l) => l.automatableAnnualUsd)), r.automatableAnnualUsd);
        eq(dsum(r.byLine.map((l) => l.residualAnnualUsd)), r.residualAnnualCostUsd);
        expect(r.automatableAnnualUsd).toBeGreaterThanOrEqual(0);
        expect(r.automatableAnnualUsd).toBeLessThanOrEqual(r.totalAnnualCostUsd);
        for (const l of r.byLine) {
          eq(dec(l.automatableAnnualUsd).plus(l.residualAnnualUsd), l.annualCostUsd);
          expect(l.automatableAnnualUsd).toBeGreaterThanOrEqual(0);
          expect(l.automatableAnnualUsd).toBeLessThanOrEqual(l.annualCostUsd);
          // Within half a cent of line × share.
          expect(dec(l.automatableAnnualUsd).minus(dec(l.annualCostUsd).times(AUTOMATABLE_SHARES[l.item].share)).abs().lte('0.005')).toBe(
            true,
          );
        }
        // The operating cost total is the same.
        expect(r.totalAnnualCostUsd).toBe(computeOperatingCost(inputs(b)).totalAnnualCostUsd);
        // Share in percent agrees with the amounts (4 dp).
        if (r.totalAnnualCostUsd > 0) expect(r.automatableSharePct).toBeCloseTo((r.automatableAnnualUsd / r.totalAnnualCostUsd) * 100, 3);
        // At most 70 % (the largest share) of any cost is automatable.
        expect(r.automatableSharePct).toBeLessThanOrEqual(70);
      }),
      { numRuns: 200 },
    );
  });
});
