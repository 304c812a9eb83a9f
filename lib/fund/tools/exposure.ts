/** `get_exposure` (and the REST GET of its file under functions/api/v1/fund/): long, short, gross, net and cash exposure now. */
import * as z from 'zod';
import { defineFundTool } from '../definition.ts';
import { exposureSnapshot } from '../analytics/holdings.ts';
import { latestUsableRun } from '../analytics/runs.ts';
import { currency, date, exposureAmounts, pct } from '../schemas.ts';

export const exposure = defineFundTool({
  tool: 'get_exposure',
  title: 'Exposure snapshot',
  description:
    'Exposure of the latest usable NAV run: long (Σ positive non-cash market values), short (Σ |negative| ones, perpetuals at notional), gross = long + short, net = long − short, and cash (fiat and stablecoins), in money and as percent of NAV.',
  query: () => z.strictObject({}),
  output: () =>
    z.strictObject({
      asOf: date(),
      currency: currency(),
      ...exposureAmounts(),
      longPct: pct(),
      shortPct: pct(),
      grossPct: pct(),
      netPct: pct(),
      cashPct: pct(),
    }),
  example: {},
  problems: ['not_found'],
  async run(ctx) {
    const run = latestUsableRun(ctx.index.runs);
    const { positions: p } = await ctx.read({ positions: { navDates: [run.navDate] } });
    return { asOf: run.navDate, currency: ctx.currency, ...exposureSnapshot(run, p) };
  },
});
