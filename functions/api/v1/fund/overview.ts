/** `GET /api/v1/fund/overview` (tool `get_fund_overview`): see lib/fund/tools/overview.ts. */
import { fundEndpoint } from '../../../../lib/fund/endpoint.ts';
import { overview } from '../../../../lib/fund/tools/overview.ts';

export default fundEndpoint(overview);
