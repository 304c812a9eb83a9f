/** The fund-data endpoint of tool `get_nav_history` (lib/fund/tools/nav-history.ts), GET at this file's path. */
import { fundEndpoint } from '../../../../lib/fund/endpoint.ts';
import { navHistoryTool } from '../../../../lib/fund/tools/nav-history.ts';

export default fundEndpoint(navHistoryTool);
