/** `POST /api/mcp`: the fund MCP server, one read-only tool per fund-data endpoint, behind a fund key (docs/mcp.md). */
import { mcpEndpoint } from '../../lib/mcp/endpoint.ts';
import { fundServer } from '../../lib/mcp/fund-server.ts';

export default mcpEndpoint(fundServer);
