/** `get_value_at_risk` (and the REST GET of its file under functions/api/v1/fund/): parametric VaR of the live portfolio. */
import * as z from 'zod';
import { defineFundTool } from '../definition.ts';
import { VAR_WINDOW, valueAtRiskOf } from '../analytics/var.ts';
import { latestUsableRun } from '../analytics/runs.ts';
import { currency, date, label, money, pct } from '../schemas.ts';

/**
 * A number that must be one of `values` (a JSON number over MCP; in a query string, read by the decimal
 * grammar of `queryStringSchema` in lib/validation.ts).
 */
const oneOf = <const T extends readonly [number, ...number[]]>(values: T, fallback: T[number], description: string) =>
  z.literal(values).default(fallback).describe(description);

export const valueAtRiskTool = defineFundTool({
  tool: 'get_value_at_risk',
  title: 'Value at risk',
  description:
    'Parametric (delta-normal) VaR of the live holdings of the latest usable run, as a positive loss in money and percent of NAV, from the last `windowDays` daily returns (on the dates every held asset has a close): `ewma` (RiskMetrics 1996, λ = 0.94, zero mean) or `sample` (demeaned, n − 1). VaR = z × σ × √horizonDays; componentVar is the Euler allocation per asset and sums exactly to var. Fiat and stablecoins carry no price risk.',
  query: () =>
    z.strictObject({
      confidence: oneOf([0.95, 0.99], 0.95, 'Confidence level: 0.95 or 0.99.'),
      horizonDays: oneOf([1, 10], 1, 'Horizon in days: 1 or 10 (square-root-of-time scaling).'),
      method: z.enum(['sample', 'ewma']).default('ewma').describe('Volatility estimator: ewma (λ = 0.94) or sample.'),
      windowDays: z
        .number()
        .int()
        .min(VAR_WINDOW.min)
        .max(VAR_WINDOW.max)
        .default(250)
        .describe(`Daily returns used (${VAR_WINDOW.min}..${VAR_WINDOW.max}).`),
    }),
  output: () =>
    z.strictObject({
      asOf: date(),
      currency: currency(),
      confidence: z.number(),
      horizonDays: z.number().int(),
      method: z.enum(['sample', 'ewma']),
      lambda: z.number().nullable().describe('EWMA decay (0.94), null for sample.'),
      windowDays: z.number().int(),
      observationsUsed: z.number().int().describe('Daily returns available and used (≤ windowDays).'),
      z: z.number().describe('Standard normal quantile of the confidence, 6 dp.'),
      sigmaDailyPct: pct().describe('Daily P&L standard deviation as percent of NAV.'),
      portfolioValue: money().describe('NAV of the run.'),
      var: money(),
      varPct: pct(),
      componentVar: z.array(z.strictObject({ asset: label(), var: money() })),
    }),
  example: { confidence: '0.99', horizonDays: '10', method: 'ewma', windowDays: '250' },
  problems: ['not_found', 'not_usable'],
  async run(ctx, query) {
    const run = latestUsableRun(ctx.index.runs);
    const data = await ctx.read({
      varMoments: { heldAt: run.navDate, through: run.navDate, returns: query.windowDays, method: query.method },
    });
    return valueAtRiskOf(run, data.varMoments, query, ctx.currency);
  },
});
