/** `get_fund_overview` (and the REST GET of its file under functions/api/v1/fund/): the fund, its share classes and its latest usable NAV. */
import * as z from 'zod';
import { dec, toMoney } from '../../decimal.ts';
import { defineFundTool } from '../definition.ts';
import { differenceBps, latestUsableRun, timeWeightedReturnPct } from '../analytics/runs.ts';
import { currency, date, label, money, pct } from '../schemas.ts';
import { RECON_STATUSES } from '../rows.ts';

export const overview = defineFundTool({
  tool: 'get_fund_overview',
  title: 'Fund overview',
  description:
    "The fund's name, base currency, inception date, AUM target and share classes, and its latest usable NAV (complete and reconciled): shadow and administrator NAV, their difference in basis points, and the month- and year-to-date time-weighted returns.",
  query: () => z.strictObject({}),
  output: () =>
    z.strictObject({
      name: label(),
      currency: currency(),
      baseCurrency: currency(),
      inceptionDate: date(),
      aumTarget: money(),
      shareClasses: z.array(z.strictObject({ id: label(), name: label() })),
      latestNav: z.strictObject({
        navDate: date(),
        nav: money().describe('The shadow NAV of the latest usable run.'),
        shadowNav: money(),
        adminNav: money().nullable(),
        differenceBps: z.number().nullable().describe('(shadow − administrator) / administrator × 10,000, 2 dp.'),
        reconStatus: z.enum(RECON_STATUSES),
        mtdReturnPct: pct().describe('Time-weighted return month to date, percent (flows excluded).'),
        ytdReturnPct: pct().describe('Time-weighted return year to date, percent (flows excluded).'),
      }),
    }),
  example: {},
  problems: ['not_found'],
  async run({ index, currency: ccy }) {
    const run = latestUsableRun(index.runs);
    return {
      name: index.fund.name,
      currency: ccy,
      baseCurrency: index.fund.baseCurrency,
      inceptionDate: index.fund.inceptionDate,
      aumTarget: toMoney(dec(index.fund.aumTarget)),
      shareClasses: index.shareClasses.map((c) => ({ id: c.shareClassId, name: c.name })),
      latestNav: {
        navDate: run.navDate,
        nav: toMoney(dec(run.shadowNav!)),
        shadowNav: toMoney(dec(run.shadowNav!)),
        adminNav: run.adminNav === null ? null : toMoney(dec(run.adminNav)),
        differenceBps: differenceBps(run),
        reconStatus: run.reconStatus!,
        mtdReturnPct: timeWeightedReturnPct(index.runs, run, `${run.navDate.slice(0, 8)}01`),
        ytdReturnPct: timeWeightedReturnPct(index.runs, run, `${run.navDate.slice(0, 4)}-01-01`),
      },
    };
  },
});
