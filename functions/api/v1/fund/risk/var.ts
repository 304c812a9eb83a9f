/** The fund-data endpoint of tool `get_value_at_risk` (lib/fund/tools/risk-var.ts), GET at this file's path. */
import { fundEndpoint } from '../../../../../lib/fund/endpoint.ts';
import { valueAtRiskTool } from '../../../../../lib/fund/tools/risk-var.ts';

export default fundEndpoint(valueAtRiskTool);
