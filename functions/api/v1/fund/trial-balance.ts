/** `GET /api/v1/fund/trial-balance` (tool `get_trial_balance`): see lib/fund/tools/trial-balance.ts. */
import { fundEndpoint } from '../../../../lib/fund/endpoint.ts';
import { trialBalanceTool } from '../../../../lib/fund/tools/trial-balance.ts';

export default fundEndpoint(trialBalanceTool);
