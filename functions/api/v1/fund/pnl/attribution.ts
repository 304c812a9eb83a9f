/** `GET /api/v1/fund/pnl/attribution` (tool `get_pnl_attribution`): see lib/fund/tools/pnl-attribution.ts. */
import { fundEndpoint } from '../../../../../lib/fund/endpoint.ts';
import { pnlAttributionTool } from '../../../../../lib/fund/tools/pnl-attribution.ts';

export default fundEndpoint(pnlAttributionTool);
