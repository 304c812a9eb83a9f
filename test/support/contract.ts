/** Literal tool names as docs/mcp.md and the README list them, so that tests check the servers against the documentation, not against the code. */

/** The public MCP server's calculator tools (the server lists them in the path order of their files under functions/). */
export const PUBLIC_TOOL_NAMES = [
  'calc_fee_calculator',
  'calc_nav_validator',
  'calc_operating_cost_calculator',
  'calc_back_office_savings',
  'calc_fund_health_check',
  'calc_exposure_analysis',
  'calc_lp_report_grader',
];

/** The fund MCP server's tools (listed in the path order of their files under functions/). */
export const FUND_TOOL_NAMES = [
  'get_fund_overview',
  'get_positions',
  'get_portfolio_breakdown',
  'get_exposure',
  'get_exposure_series',
  'get_pnl_attribution',
  'get_value_at_risk',
  'get_trial_balance',
  'get_capital_accounts',
  'get_expenses',
  'get_fee_terms',
  'get_nav_history',
];

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
