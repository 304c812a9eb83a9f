/** The fund-data endpoint of tool `get_fund_overview` (lib/fund/tools/overview.ts), GET at this file's path. */
import { fundEndpoint } from '../../../../lib/fund/endpoint.ts';
import { overview } from '../../../../lib/fund/tools/overview.ts';

export default fundEndpoint(overview);
