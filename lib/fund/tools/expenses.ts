/** `get_expenses` (and the REST GET of its file under functions/api/v1/fund/): expense accruals and payments, newest first. */
import * as z from 'zod';
import { dec, toMoney } from '../../decimal.ts';
import { defineFundTool } from '../definition.ts';
import { currency, date, label, money } from '../schemas.ts';
import { EXPENSE_STATUSES } from '../rows.ts';

export const expenses = defineFundTool({
  tool: 'get_expenses',
  title: 'Expenses',
  description:
    "The newest `limit` expense accruals, newest first: category, description, amount, status (accrued or paid) and payment date. In the category and description, investors' names, e-mail addresses, tax ids and account numbers are masked as [redacted].",
  query: () => z.strictObject({ limit: z.number().int().min(1).max(500).default(50).describe('How many expenses (1..500).') }),
  output: () =>
    z.strictObject({
      currency: currency(),
      expenses: z.array(
        z.strictObject({
          id: label(),
          date: date(),
          category: label(),
          description: z.string().max(2000),
          amount: money(),
          status: z.enum(EXPENSE_STATUSES),
          paidDate: date().nullable(),
        }),
      ),
    }),
  example: { limit: '5' },
  problems: [],
  async run(ctx, { limit }) {
    const data = await ctx.read({ expenses: { limit } });
    return {
      currency: ctx.currency,
      expenses: data.expenses.map((e) => ({
        id: e.id,
        date: e.date,
        category: ctx.maskFreeText(e.category),
        description: ctx.maskFreeText(e.description),
        amount: toMoney(dec(e.amount)),
        status: e.status,
        paidDate: e.paidDate,
      })),
    };
  },
});
