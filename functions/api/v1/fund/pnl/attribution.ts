/** The fund-data endpoint of tool `get_pnl_attribution` (lib/fund/tools/pnl-attribution.ts), GET at this file's path. */
import { fundEndpoint } from '../../../../../lib/fund/endpoint.ts';
import { pnlAttributionTool } from '../../../../../lib/fund/tools/pnl-attribution.ts';

export default fundEndpoint(pnlAttributionTool);
