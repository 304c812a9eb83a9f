/** The fund-data endpoint of tool `get_capital_accounts` (lib/fund/tools/capital-accounts.ts), GET at this file's path. */
import { fundEndpoint } from '../../../../lib/fund/endpoint.ts';
import { capitalAccountsTool } from '../../../../lib/fund/tools/capital-accounts.ts';

export default fundEndpoint(capitalAccountsTool);
