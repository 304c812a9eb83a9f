/** `get_capital_accounts` (and the REST GET of its file under functions/api/v1/fund/): investors' capital accounts, month to date. */
import * as z from 'zod';
import { defineFundTool } from '../definition.ts';
import { capitalAccounts, openingRunDate } from '../analytics/capital-accounts.ts';
import { latestCompleteRun } from '../analytics/runs.ts';
import { currency, date, label, money, pct } from '../schemas.ts';

const figures = {
  openingCapital: money(),
  contributions: money(),
  withdrawals: money(),
  pnlAllocation: money().describe("The investor's share of trading P&L less fund expenses."),
  mgmtFee: money(),
  perfFee: money().describe('Change in accrued performance fee (negative when an accrual reverses).'),
  closingCapital: money(),
};

export const capitalAccountsTool = defineFundTool({
  tool: 'get_capital_accounts',
  title: 'Capital accounts',
  description:
    "Each investor's capital account for the latest complete NAV run, month to date (opening at the latest complete run before the month began): opening capital, contributions, withdrawals, P&L allocation, management and performance fees, closing capital and ownership. Investors appear only as a stable pseudonymous investorRef. Closing capital sums to the run's NAV.",
  query: () => z.strictObject({}),
  output: () =>
    z.strictObject({
      navRunDate: date(),
      openingNavDate: date().nullable().describe('The run whose closing capital opens the period; null in the first month.'),
      currency: currency(),
      investors: z.array(
        z.strictObject({
          investorRef: z.string().regex(/^inv_[0-9a-f]{16}$/),
          shareClass: label(),
          ...figures,
          ownershipPct: pct(),
        }),
      ),
      totals: z.strictObject(figures),
    }),
  example: {},
  problems: ['not_found'],
  async run(ctx) {
    const run = latestCompleteRun(ctx.index.runs);
    const openingDate = openingRunDate(ctx.index.runs, run);
    const data = await ctx.read({ capital: { navDates: openingDate ? [openingDate, run.navDate] : [run.navDate] } });
    const refs = await ctx.investorRefs([...new Set(data.capital.map((r) => r.investorId))]);
    return capitalAccounts({ run, openingDate, investors: data.investorClasses, rows: data.capital, refs, currency: ctx.currency });
  },
});
