/** `GET /api/v1/fund/exposure` (tool `get_exposure`): see lib/fund/tools/exposure.ts. */
import { fundEndpoint } from '../../../../lib/fund/endpoint.ts';
import { exposure } from '../../../../lib/fund/tools/exposure.ts';

export default fundEndpoint(exposure);
