/** `get_pnl_attribution` (and the REST GET of its file under functions/api/v1/fund/): P&L between a run and the usable run before it. */
import * as z from 'zod';
import { NotFoundError } from '../../errors.ts';
import { isoDate } from '../../validation.ts';
import { defineFundTool } from '../definition.ts';
import { pnlAttribution } from '../analytics/attribution.ts';
import { previousUsableRun, usableRunOn } from '../analytics/runs.ts';
import { currency, date, label, money } from '../schemas.ts';

const effects = { priceEffect: money(), quantityEffect: money(), total: money() };

export const pnlAttributionTool = defineFundTool({
  tool: 'get_pnl_attribution',
  title: 'P&L attribution',
  description:
    'P&L from the usable NAV run before `date` to the run on `date`: totalPnl = closing NAV − opening NAV − flows, split by asset into price effect (opening quantity repriced) and quantity effect (P&L of what was traded), by source type and by venue, plus fees and expenses (negative) and a residual the books leave unexplained (0.00 when they tie). Components sum exactly to totalPnl. 404 when no run is dated `date`; 409 when that run is not complete and reconciled.',
  query: () => z.strictObject({ date: isoDate().describe('Date of the NAV run, YYYY-MM-DD (required).') }),
  output: () =>
    z.strictObject({
      date: date(),
      previousDate: date(),
      currency: currency(),
      openingNav: money(),
      closingNav: money(),
      totalPnl: money(),
      byAsset: z.array(z.strictObject({ asset: label(), ...effects })),
      bySourceType: z.array(z.strictObject({ key: label(), ...effects })),
      byVenue: z.array(z.strictObject({ key: label(), ...effects })),
      fees: money().describe('Management and performance fees accrued in the span, as (negative) P&L.'),
      expenses: money().describe('Operating expenses accrued in the span, as (negative) P&L.'),
      flows: money().describe('Contributions less withdrawals dealt in the span (not P&L).'),
      residual: money().describe('totalPnl − (Σ byAsset.total + fees + expenses): 0.00 when positions, ledger and NAV tie.'),
    }),
  example: { date: '2026-10-30' },
  problems: ['not_found', 'not_usable'],
  async run(ctx, query) {
    // The run of that day and the usable run before it, read with the runs from the day on (none for a day
    // before the first run: the index's runs say it has none).
    const first = ctx.index.firstRunDate;
    const runs = first === null || query.date < first ? ctx.index.runs : await ctx.runsFrom(query.date);
    const run = usableRunOn(runs, query.date, first);
    const previous = previousUsableRun(runs, run.navDate);
    if (!previous) throw new NotFoundError('No usable NAV run precedes that date, so there is nothing to attribute from.');
    const data = await ctx.read({
      positions: { navDates: [previous.navDate, run.navDate] },
      ledger: { after: previous.navDate, through: run.navDate },
    });
    return pnlAttribution({
      run,
      previous,
      opening: data.positions.filter((p) => p.navDate === previous.navDate),
      closing: data.positions.filter((p) => p.navDate === run.navDate),
      accounts: data.accounts,
      ledger: data.ledger,
      currency: ctx.currency,
    });
  },
});
