/** `get_trial_balance` (and the REST GET of its file under functions/api/v1/fund/): account balances as of a date. */
import * as z from 'zod';
import { NotFoundError } from '../../errors.ts';
import { isoDate } from '../../validation.ts';
import { defineFundTool } from '../definition.ts';
import { trialBalance } from '../analytics/trial-balance.ts';
import { latestUsableRun } from '../analytics/runs.ts';
import { currency, date, label, money } from '../schemas.ts';

export const trialBalanceTool = defineFundTool({
  tool: 'get_trial_balance',
  title: 'Trial balance',
  description:
    'The general ledger as of `asOf` (default: the latest usable NAV run date): each account with postings, its balance in the debit or credit column, and the column totals, which are equal (`balanced`). Income and expense accounts accumulate since inception. 404 for a date before inception or after the latest NAV run.',
  query: () => z.strictObject({ asOf: isoDate().optional().describe('As-of date, YYYY-MM-DD; default the latest usable NAV run date.') }),
  output: () =>
    z.strictObject({
      asOf: date(),
      currency: currency(),
      accounts: z.array(
        z.strictObject({
          code: label(),
          name: label(),
          type: z.enum(['asset', 'liability', 'equity', 'income', 'expense']),
          debit: money(),
          credit: money(),
        }),
      ),
      totalDebit: money(),
      totalCredit: money(),
      balanced: z.boolean(),
    }),
  example: {},
  problems: ['not_found'],
  async run(ctx, query) {
    const asOf = query.asOf ?? latestUsableRun(ctx.index.runs).navDate;
    const last = ctx.index.runs[ctx.index.runs.length - 1];
    if (asOf < ctx.index.fund.inceptionDate || !last || asOf > last.navDate) {
      throw new NotFoundError('The ledger has no balances for that date: it runs from inception to the latest NAV run.');
    }
    const data = await ctx.read({ balances: { through: asOf } });
    return trialBalance(data.accounts, data.balances, asOf, ctx.currency);
  },
});
