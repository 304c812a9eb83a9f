/** `GET /api/v1/fund/capital-accounts` (tool `get_capital_accounts`): see lib/fund/tools/capital-accounts.ts. */
import { fundEndpoint } from '../../../../lib/fund/endpoint.ts';
import { capitalAccountsTool } from '../../../../lib/fund/tools/capital-accounts.ts';

export default fundEndpoint(capitalAccountsTool);
