/** The fund-data endpoint of tool `get_fee_terms` (lib/fund/tools/fee-terms.ts), GET at this file's path. */
import { fundEndpoint } from '../../../../lib/fund/endpoint.ts';
import { feeTerms } from '../../../../lib/fund/tools/fee-terms.ts';

export default fundEndpoint(feeTerms);
