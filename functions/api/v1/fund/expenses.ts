/** The fund-data endpoint of tool `get_expenses` (lib/fund/tools/expenses.ts), GET at this file's path. */
import { fundEndpoint } from '../../../../lib/fund/endpoint.ts';
import { expenses } from '../../../../lib/fund/tools/expenses.ts';

export default fundEndpoint(expenses);
