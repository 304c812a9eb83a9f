/**
 * Back-office savings: the share of the yearly back-office cost that software can take over (docs/calculators.md).
 *
 * Same body as the operating cost calculator. Each cost line has an automatable share from
 * {@link AUTOMATABLE_SHARES}; a line's automatable cost is line × share rounded half-up to cents, its residual
 * is line − automatable, and the totals are the exact sums of the lines (so the published figures add up:
 * automatable + residual = total, and the lines sum to each total).
 * The shares are fund-edge's planning assumptions for a small fund that runs a daily shadow NAV with
 * automated reconciliation and LP reporting; they are returned with every result so a reader can judge
 * them, and they are not a published benchmark.
 */
import * as z from 'zod';
import { lazy } from '../validation.ts';
import { cents, dec, pct4, roundCents, sum } from '../decimal.ts';
import { defineCalculator } from './definition.ts';
import {
  COST_LINES,
  costLines,
  operatingCostExample,
  operatingCostInput,
  type CostLine,
  type OperatingCostInputs,
} from './operating-cost-calculator.ts';

/** Automatable share (fraction 0..1) of each cost line, with the reason. */
export const AUTOMATABLE_SHARES: Record<CostLine, { share: string; rationale: string }> = {
  financeHire: {
    share: '0.50',
    rationale: "Daily NAV, reconciliations and fee accruals done by hand are the bulk of a fund accountant's time.",
  },
  fundAdmin: {
    share: '0.15',
    rationale: "A shadow NAV narrows the administrator's scope and shortens NAV sign-off, but the independent administrator stays.",
  },
  compliance: {
    share: '0.20',
    rationale: 'Position limits, concentration and exposure checks can run on every NAV; judgement and filings stay manual.',
  },
  riskDesk: { share: '0.40', rationale: 'Exposure, VaR and attribution reports can be produced automatically from the daily NAV.' },
  lpReports: {
    share: '0.70',
    rationale: 'Figures, tables and capital account statements of an LP report can be generated; the commentary is written.',
  },
  audit: { share: '0.10', rationale: 'Clean, reconciled books shorten audit preparation; the audit fee itself is fixed by the auditor.' },
  legal: { share: '0.00', rationale: 'Legal counsel is not automatable.' },
  software: { share: '0.00', rationale: 'Software is the cost of the automation itself.' },
};

/** Result of the back-office savings calculator. */
export const backOfficeSavingsOutput = lazy(() =>
  z.object({
    totalAnnualCostUsd: z.number(),
    automatableAnnualUsd: z.number(),
    automatableSharePct: z.number().describe('Automatable / total, percent; 0 when the total is 0.'),
    residualAnnualCostUsd: z.number().describe('Total − automatable, USD per year.'),
    byLine: z.array(
      z.object({
        item: z.enum(COST_LINES),
        annualCostUsd: z.number(),
        automatableShare: z.number().describe('Assumed automatable fraction 0..1.'),
        automatableAnnualUsd: z.number(),
        residualAnnualUsd: z.number(),
      }),
    ),
    assumptions: z.array(z.object({ item: z.enum(COST_LINES), automatableShare: z.number(), rationale: z.string() })),
  }),
);

/** Computes the automatable share of the yearly cost. Pure. */
export function computeBackOfficeSavings(inputs: OperatingCostInputs): z.output<ReturnType<typeof backOfficeSavingsOutput>> {
  const lines = costLines(inputs).map(({ item, annualCost }) => {
    const automatable = roundCents(annualCost.times(AUTOMATABLE_SHARES[item].share));
    return { item, annualCost, automatable, residual: annualCost.minus(automatable) };
  });
  const total = sum(lines.map((l) => l.annualCost));
  const automatable = sum(lines.map((l) => l.automatable));
  return {
    totalAnnualCostUsd: cents(total),
    automatableAnnualUsd: cents(automatable),
    automatableSharePct: total.isZero() ? 0 : pct4(automatable.div(total).times(100)),
    residualAnnualCostUsd: cents(total.minus(automatable)),
    byLine: lines.map((l) => ({
      item: l.item,
      annualCostUsd: cents(l.annualCost),
      automatableShare: dec(AUTOMATABLE_SHARES[l.item].share).toNumber(),
      automatableAnnualUsd: cents(l.automatable),
      residualAnnualUsd: cents(l.residual),
    })),
    assumptions: COST_LINES.map((item) => ({
      item,
      automatableShare: dec(AUTOMATABLE_SHARES[item].share).toNumber(),
      rationale: AUTOMATABLE_SHARES[item].rationale,
    })),
  };
}

/** The back-office savings calculator (REST, and its MCP tool). */
export const backOfficeSavings = defineCalculator({
  slug: 'back-office-savings',
  title: 'Back-office savings',
  description: "The automatable share of a fund's yearly back-office cost, by line, with the assumptions used.",
  input: operatingCostInput,
  output: backOfficeSavingsOutput,
  example: operatingCostExample,
  run: computeBackOfficeSavings,
});
