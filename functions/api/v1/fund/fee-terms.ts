/** `GET /api/v1/fund/fee-terms` (tool `get_fee_terms`): see lib/fund/tools/fee-terms.ts. */
import { fundEndpoint } from '../../../../lib/fund/endpoint.ts';
import { feeTerms } from '../../../../lib/fund/tools/fee-terms.ts';

export default fundEndpoint(feeTerms);
