/** `GET /api/v1/fund/nav-history` (tool `get_nav_history`): see lib/fund/tools/nav-history.ts. */
import { fundEndpoint } from '../../../../lib/fund/endpoint.ts';
import { navHistoryTool } from '../../../../lib/fund/tools/nav-history.ts';

export default fundEndpoint(navHistoryTool);
