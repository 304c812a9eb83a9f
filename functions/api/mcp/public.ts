/** `POST /api/mcp/public`: the public MCP server, the seven calculators as tools, no key (contract §6). */
import { mcpEndpoint } from '../../../lib/mcp/dispatch.ts';
import { publicServer } from '../../../lib/mcp/public-server.ts';

export default mcpEndpoint(publicServer);
