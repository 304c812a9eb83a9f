/** `GET /api/v1/fund/positions` (tool `get_positions`): see lib/fund/tools/positions.ts. */
import { fundEndpoint } from '../../../../lib/fund/endpoint.ts';
import { positions } from '../../../../lib/fund/tools/positions.ts';

export default fundEndpoint(positions);
