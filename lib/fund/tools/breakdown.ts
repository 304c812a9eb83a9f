/** `get_portfolio_breakdown` (and the REST GET of its file under functions/api/v1/fund/): market value by asset, source type and venue. */
import * as z from 'zod';
import { toMoney } from '../../decimal.ts';
import { defineFundTool } from '../definition.ts';
import { breakdownBy } from '../analytics/holdings.ts';
import { latestUsableRun, navOf } from '../analytics/runs.ts';
import { breakdownRowSchema, currency, date, money } from '../schemas.ts';

const rows = () => z.array(breakdownRowSchema());

export const breakdown = defineFundTool({
  tool: 'get_portfolio_breakdown',
  title: 'Portfolio breakdown',
  description:
    'Market value of the latest usable NAV run grouped by asset, by source type and by venue, largest first, each with its weight in NAV. Each list ends with "Other assets less liabilities" (fees and expenses payable), so that it sums exactly to NAV.',
  query: () => z.strictObject({}),
  output: () =>
    z.strictObject({
      asOf: date(),
      currency: currency(),
      nav: money(),
      byAsset: rows(),
      bySourceType: rows(),
      byVenue: rows(),
    }),
  example: {},
  problems: ['not_found'],
  async run(ctx) {
    const run = latestUsableRun(ctx.index.runs);
    const { positions: p } = await ctx.read({ positions: { navDates: [run.navDate] } });
    return {
      asOf: run.navDate,
      currency: ctx.currency,
      nav: toMoney(navOf(run)),
      byAsset: breakdownBy(run, p, (x) => x.asset),
      bySourceType: breakdownBy(run, p, (x) => x.sourceType),
      byVenue: breakdownBy(run, p, (x) => x.venue),
    };
  },
});
