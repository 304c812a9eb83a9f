/** The fund-data endpoint of tool `get_exposure` (lib/fund/tools/exposure.ts), GET at this file's path. */
import { fundEndpoint } from '../../../../lib/fund/endpoint.ts';
import { exposure } from '../../../../lib/fund/tools/exposure.ts';

export default fundEndpoint(exposure);
