/** `POST /api/mcp/public`: the public MCP server, the calculators as tools, no key (docs/mcp.md). */
import { mcpEndpoint } from '../../../lib/mcp/endpoint.ts';
import { publicServer } from '../../../lib/mcp/public-server.ts';

export default mcpEndpoint(publicServer);
