/** The fund-data endpoint of tool `get_positions` (lib/fund/tools/positions.ts), GET at this file's path. */
import { fundEndpoint } from '../../../../lib/fund/endpoint.ts';
import { positions } from '../../../../lib/fund/tools/positions.ts';

export default fundEndpoint(positions);
