/** `GET /api/v1/fund/breakdown` (tool `get_portfolio_breakdown`): see lib/fund/tools/breakdown.ts. */
import { fundEndpoint } from '../../../../lib/fund/endpoint.ts';
import { breakdown } from '../../../../lib/fund/tools/breakdown.ts';

export default fundEndpoint(breakdown);
