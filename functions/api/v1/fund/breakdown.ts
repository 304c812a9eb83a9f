/** The fund-data endpoint of tool `get_portfolio_breakdown` (lib/fund/tools/breakdown.ts), GET at this file's path. */
import { fundEndpoint } from '../../../../lib/fund/endpoint.ts';
import { breakdown } from '../../../../lib/fund/tools/breakdown.ts';

export default fundEndpoint(breakdown);
