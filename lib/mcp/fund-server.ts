/**
 * The fund MCP server (`POST /api/mcp`, docs/mcp.md): one read-only tool per fund-data endpoint, generated
 * from the declarations in `lib/fund/tools/`. Arguments are the endpoint's query parameters; results are
 * the REST body, byte for byte, as text content and as `structuredContent`, after the same fail-closed
 * redaction (every call goes through `callFundTool`). The tools and their `tools/list` entries (computed at
 * build time, lib/mcp/definitions.ts) come from the catalog the composition root hands each request.
 *
 * Only a real fund key or an OAuth access token of an account with this fund (lib/oauth/, docs/oauth.md) is
 * admitted. Without a credential the answer is 401 with a `WWW-Authenticate: Bearer` challenge naming the
 * server's protected resource metadata (OAuth discovery), as for an access token that is not valid here; any
 * other credential that is refused (a bad key, the demo key, a calc key, another fund's key) is 403 with no
 * challenge and a sentence saying what to do, so that no client turns a key problem into an OAuth login
 * (lib/mcp/refusals.ts). Each `tools/call` counts against the key's fund-data burst limit (120 per 60 s),
 * as each REST request does.
 */
import { FUND_READ_SCOPE } from '../auth.ts';
import { FUND_PRINCIPAL, chargeFundCalls, fundCall, fundScope } from '../fund/endpoint.ts';
import { definitionsOf, perCatalog, structuredOf, type McpServerSpec, type McpTool } from './tools.ts';
import { MCP_SERVER_NAMES } from './clients.ts';
import { fundServerCredential } from './refusals.ts';

/** One tool per fund-data endpoint, answered by the fund data's one handler, the one REST calls. */
const fundTools = perCatalog((catalog): McpTool[] =>
  catalog.fundTools.map((def) => ({
    name: def.tool,
    async call(c, args) {
      const text = await fundCall(def, c, args, 'arguments');
      return { text, structured: structuredOf(text) };
    },
  })),
);

/** The fund server's spec. */
export const fundServer: McpServerSpec = {
  name: MCP_SERVER_NAMES.fund,
  title: 'fund-edge fund data',
  summary: "MCP server: the fund's data, read-only",
  description:
    "Model Context Protocol (Streamable HTTP, stateless, JSON responses). One read-only tool `get_*` per fund-data endpoint, with the endpoint's query parameters as arguments and its redacted JSON as result. Needs a fund key (`Authorization: Bearer svc_dk_...`) or an OAuth 2.1 access token from this service. Without an `Authorization` header the answer is 401 whose `WWW-Authenticate` names the protected resource metadata (OAuth discovery); an access token that is expired or not valid here is 401 `invalid_token`, one without `fund:read` 403 `insufficient_scope`, both with that challenge. Any other credential is refused with 403 and no `WWW-Authenticate` (`invalid_key` for a malformed, unknown or revoked key or another scheme; `insufficient_scope` for the demo key, a calc key or another fund's key), its `detail` saying what is wrong and what to do: MCP clients turn any 401 into an OAuth login, which cannot fix a key.",
  instructions:
    "Read-only access to one fund's shadow NAV data, reconciled against the fund administrator: overview, positions, breakdowns, exposure (and its series), P&L attribution, parametric VaR, trial balance, capital accounts, expenses, fee terms and NAV history. Money and quantities are decimal strings in the fund's base currency; percentages are numbers in percent. Investors appear only as pseudonymous investorRef values. Start with get_fund_overview.",
  auth: 'required',
  oauthScopes: [FUND_READ_SCOPE],
  problems: [
    'unauthorized',
    'insufficient_scope',
    'invalid_key',
    'origin_not_allowed',
    'misdirected_request',
    'payload_too_large',
    'unsupported_media_type',
    'rate_limited',
    'upstream_unavailable',
  ],
  cacheControl: 'private, no-store',
  tools: fundTools,
  definitions: definitionsOf((catalog) => catalog.toolDefinitions.fund),
  // API keys and this service's OAuth access tokens through the one authentication step, a refusal a 401
  // with the discovery challenge only where OAuth can fix it (lib/mcp/refusals.ts); then the fund route
  // group's scope step, as on REST.
  steps: [fundServerCredential, fundScope],
  charge: async (c, calls) => {
    await chargeFundCalls(c, FUND_PRINCIPAL.get(c), calls);
    return {};
  },
};
