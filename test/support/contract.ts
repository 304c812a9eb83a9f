/** What the tests hold the service to that is written apart from the code: documented rules, and the requests clients send. */

/**
 * The "usable" NAV run of docs/fund-data.md#nav-runs-and-which-one-an-endpoint-reads (complete and matched, with a shadow NAV), written here independently of
 * `lib/fund/analytics/runs.ts` so that tests check the library against the documented rule.
 */
export const isUsableRun = (r: { status: string; reconStatus: string | null; shadowNav: string | null }): boolean =>
  r.status === 'complete' && r.reconStatus === 'matched' && r.shadowNav !== null;

/** The request headers every MCP client sends (docs/mcp.md). */
export const SPEC_MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A client's `initialize` request (docs/mcp.md), with a protocol revision newer than the SDK's (2026-06-18). */
export function specInitialize(clientName = 'spec-client') {
  return {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2026-06-18', capabilities: {}, clientInfo: { name: clientName, version: '1.0.0' } },
  };
}
