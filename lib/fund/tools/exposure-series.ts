/** `get_exposure_series` (and the REST GET of its file under functions/api/v1/fund/): exposure over a trailing window of days. */
import * as z from 'zod';
import { defineFundTool } from '../definition.ts';
import { exposureSeries as series } from '../analytics/holdings.ts';
import { addDays, isUsable, latestUsableRun } from '../analytics/runs.ts';
import { currency, date, exposureAmounts } from '../schemas.ts';

export const exposureSeries = defineFundTool({
  tool: 'get_exposure_series',
  title: 'Exposure series',
  description:
    'Exposure (NAV, long, short, gross, net, cash) of every usable NAV run in the trailing `days` calendar days ending at the latest usable run, oldest first. The response is a top-level array.',
  query: () =>
    z.strictObject({
      days: z
        .number()
        .int()
        .min(1)
        .max(366)
        .default(30)
        .describe('Trailing window in calendar days, ending at the latest usable run (1..366).'),
    }),
  output: () =>
    z.array(
      z.strictObject({
        date: date(),
        currency: currency(),
        ...exposureAmounts(),
      }),
    ),
  example: { days: '7' },
  problems: ['not_found'],
  async run(ctx, { days }) {
    const anchor = latestUsableRun(ctx.index.runs);
    const after = addDays(anchor.navDate, -days);
    const runs = (await ctx.runsFrom(addDays(after, 1))).filter((r) => r.navDate > after && r.navDate <= anchor.navDate && isUsable(r));
    const { positionSums } = await ctx.read({ positionSums: { navDates: runs.map((r) => r.navDate) } });
    return series(runs, positionSums, ctx.currency);
  },
});
