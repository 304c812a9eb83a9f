/** The fund-data endpoint of tool `get_trial_balance` (lib/fund/tools/trial-balance.ts), GET at this file's path. */
import { fundEndpoint } from '../../../../lib/fund/endpoint.ts';
import { trialBalanceTool } from '../../../../lib/fund/tools/trial-balance.ts';

export default fundEndpoint(trialBalanceTool);
