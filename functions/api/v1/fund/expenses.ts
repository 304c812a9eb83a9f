/** `GET /api/v1/fund/expenses` (tool `get_expenses`): see lib/fund/tools/expenses.ts. */
import { fundEndpoint } from '../../../../lib/fund/endpoint.ts';
import { expenses } from '../../../../lib/fund/tools/expenses.ts';

export default fundEndpoint(expenses);
