/** `get_nav_history` (and the REST GET of its file under functions/api/v1/fund/): daily NAV runs with their reconciliation. */
import * as z from 'zod';
import { defineFundTool } from '../definition.ts';
import { addDays, navHistory } from '../analytics/runs.ts';
import { currency, navHistoryRowSchema } from '../schemas.ts';

export const navHistoryTool = defineFundTool({
  tool: 'get_nav_history',
  title: 'NAV history',
  description:
    'Every NAV run of the trailing `days` calendar days ending at the latest run, newest first: status (complete, partial, failed), shadow and administrator NAV, their difference in basis points, reconciliation (matched within tolerance, or break; null when no NAV was struck) and whether the run is usable (complete and matched).',
  query: () =>
    z.strictObject({ days: z.number().int().min(1).max(3660).default(90).describe('Trailing window in calendar days (1..3660).') }),
  output: () =>
    z.strictObject({
      currency: currency(),
      runs: z.array(navHistoryRowSchema()),
    }),
  example: { days: '7' },
  problems: [],
  async run(ctx, { days }) {
    const last = ctx.index.runs.at(-1);
    const runs = last ? await ctx.runsFrom(addDays(last.navDate, 1 - days)) : [];
    return { currency: ctx.currency, runs: navHistory(runs, days) };
  },
});
