/** `get_positions` (and the REST GET of its file under functions/api/v1/fund/): the live positions of the latest usable NAV run. */
import * as z from 'zod';
import { toMoney } from '../../decimal.ts';
import { defineFundTool } from '../definition.ts';
import { positionsView } from '../analytics/holdings.ts';
import { latestUsableRun, navOf } from '../analytics/runs.ts';
import { currency, date, money, positionViewSchema } from '../schemas.ts';

export const positions = defineFundTool({
  tool: 'get_positions',
  title: 'Positions',
  description:
    'Live positions of the latest usable NAV run, one row per asset and venue, largest absolute market value first: asset class, source type (exchange, custodian, on-chain wallet, DeFi, bank), venue, quantity, price, market value and weight in NAV. Shorts (perpetuals) have negative quantity and value. Paper-trading holdings are never included.',
  query: () => z.strictObject({}),
  output: () =>
    z.strictObject({
      asOf: date(),
      currency: currency(),
      nav: money(),
      positions: z.array(positionViewSchema()),
    }),
  example: {},
  problems: ['not_found'],
  async run(ctx) {
    const run = latestUsableRun(ctx.index.runs);
    const { positions: rows } = await ctx.read({ positions: { navDates: [run.navDate] } });
    return { asOf: run.navDate, currency: ctx.currency, nav: toMoney(navOf(run)), positions: positionsView(run, rows) };
  },
});
