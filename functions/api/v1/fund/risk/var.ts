/** `GET /api/v1/fund/risk/var` (tool `get_value_at_risk`): see lib/fund/tools/risk-var.ts. */
import { fundEndpoint } from '../../../../../lib/fund/endpoint.ts';
import { valueAtRiskTool } from '../../../../../lib/fund/tools/risk-var.ts';

export default fundEndpoint(valueAtRiskTool);
