/**
 * Operating cost calculator: a fund's yearly back-office cost (docs/calculators.md).
 *
 * total = financeHire + fundAdmin + compliance + riskDesk + lpReportsPerYear × costPerReport + audit + legal
 * + software, all USD per year, each line rounded to cents and summed exactly; cost in basis points of
 * AUM = total / AUM × 10,000.
 * Omitted lines are 0 (an omitted cost is taken as one the fund does not have).
 */
import * as z from 'zod';
import { cents, dec, roundCents, share6, sum, type Dec } from '../decimal.ts';
import { usd, lazy } from '../validation.ts';
import { defineCalculator } from './definition.ts';

const yearlyUsd = (what: string) => usd({ min: 0 }).default(0).describe(`${what}, USD per year.`);

/** Request body shared by the operating cost and back-office savings calculators. */
export const operatingCostInput = lazy(() =>
  z.strictObject({
    financeHireUsd: yearlyUsd('Fully loaded cost of in-house finance / fund accounting staff'),
    fundAdminUsd: yearlyUsd('Fund administrator fees'),
    complianceUsd: yearlyUsd('Compliance (staff, outsourced CCO, filings)'),
    riskDeskUsd: yearlyUsd('Risk monitoring (staff or service)'),
    lpReportsPerYear: z.number().int().min(0).max(10_000).default(0).describe('Investor (LP) reports produced per year.'),
    costPerReportUsd: usd({ min: 0, max: 1e9 }).default(0).describe('Cost to produce one LP report, USD.'),
    auditUsd: yearlyUsd('Annual audit'),
    legalUsd: yearlyUsd('Fund legal counsel'),
    softwareUsd: yearlyUsd('Portfolio, accounting and reporting software'),
    aumUsd: usd({ min: 0 }).default(0).describe('Assets under management, USD; 0 leaves costBpsOfAum null.'),
  }),
);

/** Resolved inputs of {@link operatingCostInput()}. */
export type OperatingCostInputs = z.output<ReturnType<typeof operatingCostInput>>;

/** The cost lines, in the order they are reported. */
export const COST_LINES = ['financeHire', 'fundAdmin', 'compliance', 'riskDesk', 'lpReports', 'audit', 'legal', 'software'] as const;
/** One cost line's name. */
export type CostLine = (typeof COST_LINES)[number];

/**
 * Yearly cost of each line in USD, rounded half-up to cents, so the published lines sum exactly to the
 * published total. `lpReports` = lpReportsPerYear × costPerReportUsd.
 */
export function costLines(inputs: OperatingCostInputs): { item: CostLine; annualCost: Dec }[] {
  const value: Record<CostLine, Dec> = {
    financeHire: dec(inputs.financeHireUsd),
    fundAdmin: dec(inputs.fundAdminUsd),
    compliance: dec(inputs.complianceUsd),
    riskDesk: dec(inputs.riskDeskUsd),
    lpReports: dec(inputs.lpReportsPerYear).times(inputs.costPerReportUsd),
    audit: dec(inputs.auditUsd),
    legal: dec(inputs.legalUsd),
    software: dec(inputs.softwareUsd),
  };
  return COST_LINES.map((item) => ({ item, annualCost: roundCents(value[item]) }));
}

/** Result of the operating cost calculator. */
export const operatingCostOutput = lazy(() =>
  z.object({
    totalAnnualCostUsd: z.number(),
    costBpsOfAum: z.number().nullable().describe('Total cost / AUM × 10,000, 2 dp; null when AUM is 0.'),
    lineItems: z.array(
      z.object({
        item: z.enum(COST_LINES),
        annualCostUsd: z.number(),
        shareOfTotal: z.number().describe('Fraction of the total, 6 dp; 0 when the total is 0.'),
      }),
    ),
  }),
);

/** Computes the yearly cost. Pure. */
export function computeOperatingCost(inputs: OperatingCostInputs): z.output<ReturnType<typeof operatingCostOutput>> {
  const lines = costLines(inputs);
  const total = sum(lines.map((l) => l.annualCost));
  return {
    totalAnnualCostUsd: cents(total),
    costBpsOfAum: inputs.aumUsd > 0 ? total.div(inputs.aumUsd).times(10_000).toDecimalPlaces(2).toNumber() : null,
    lineItems: lines.map(({ item, annualCost }) => ({
      item,
      annualCostUsd: cents(annualCost),
      shareOfTotal: total.isZero() ? 0 : share6(annualCost.div(total)),
    })),
  };
}

/** The operating cost calculator (REST, and its MCP tool). */
/**
 * A typical small fund's yearly costs (USD; AUM 150 M USD): the request example of this calculator and of
 * back-office savings, which takes the same body.
 */
export const operatingCostExample = {
  financeHireUsd: 180_000,
  fundAdminUsd: 120_000,
  complianceUsd: 60_000,
  riskDeskUsd: 90_000,
  lpReportsPerYear: 4,
  costPerReportUsd: 5_000,
  auditUsd: 45_000,
  legalUsd: 30_000,
  softwareUsd: 25_000,
  aumUsd: 150_000_000,
};

export const operatingCostCalculator = defineCalculator({
  slug: 'operating-cost-calculator',
  title: 'Operating cost calculator',
  description: 'Yearly back-office cost of running a fund, by line, and in basis points of AUM.',
  input: operatingCostInput,
  output: operatingCostOutput,
  example: operatingCostExample,
  run: computeOperatingCost,
});
