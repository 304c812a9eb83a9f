/**
 * The fund MCP server (`POST /api/mcp`, docs/mcp.md): one read-only tool per fund-data endpoint, generated
 * from the declarations in `lib/fund/tools/`. Arguments are the endpoint's query parameters; results are
 * the REST body, byte for byte, as text content and as `structuredContent`, after the same fail-closed
 * redaction (every call goes through `callFundTool`). The tools and their `tools/list` entries (computed at
 * build time, lib/mcp/definitions.ts) come from the catalog the composition root hands each request.
 *
 * Only a real fund key or an OAuth access token of an account with this fund (lib/oauth/, docs/oauth.md) is
 * admitted: none or a bad one is 401, the demo key, a calc key, a key of another fund and a calc-only
 * account's token are 403, each with a `WWW-Authenticate: Bearer` challenge naming the server's protected
 * resource metadata. Each `tools/call` counts against the key's fund-data burst limit
 * (120 per 60 s), as each REST request does.
 */
import type { Config } from '../config.ts';
import { logContextOf, logFailure, type LogContext } from '../log.ts';
import { ApiError, InsufficientScopeError, UnauthorizedError } from '../errors.ts';
import type { Principal } from '../keys.ts';
import { authenticate } from '../auth.ts';
import { NO_CREDENTIAL_DETAIL, accessTokens, withDiscovery } from '../oauth/resource.ts';
import { consumeFundBurst } from '../rate-limit.ts';
import { callFundTool } from '../fund/definition.ts';
import { fundSource, releaseAfterResponse, type FundSource } from '../fund/source.ts';
import { definitionsOf, perCatalog, structuredOf, type McpServerSpec, type McpTool } from './tools.ts';

/** An admitted caller of the fund server: its key, its fund's source, the configuration, and where to log. */
export interface FundCaller {
  principal: Principal;
  source: FundSource;
  config: Config;
  connectingIp: string | undefined;
  at: LogContext;
}

const fundTools = perCatalog((catalog): McpTool<FundCaller>[] =>
  catalog.fundTools.map((def) => ({
    name: def.tool,
    async call(caller, args) {
      try {
        const text = await callFundTool(def, caller.source, caller.config, args, 'arguments');
        return { text, structured: structuredOf(text) };
      } catch (err) {
        // Answered as an isError result (not through the app's error handler): log it here, once.
        logFailure(err, err instanceof ApiError ? err.status : 500, caller.at);
        throw err;
      }
    },
  })),
);

/** The fund server's spec. */
export const fundServer: McpServerSpec<FundCaller> = {
  name: 'fund-edge-fund-data',
  title: 'fund-edge fund data',
  summary: "MCP server: the fund's data, read-only",
  description:
    "Model Context Protocol (Streamable HTTP, stateless, JSON responses). One read-only tool `get_*` per fund-data endpoint, with the endpoint's query parameters as arguments and its redacted JSON as result. Needs a fund key (`Authorization: Bearer svc_dk_...`) or an OAuth 2.1 access token from this service (discovery: the `resource_metadata` of the 401); the demo key is refused.",
  instructions:
    "Read-only access to one fund's shadow NAV data, reconciled against the fund administrator: overview, positions, breakdowns, exposure (and its series), P&L attribution, parametric VaR, trial balance, capital accounts, expenses, fee terms and NAV history. Money and quantities are decimal strings in the fund's base currency; percentages are numbers in percent. Investors appear only as pseudonymous investorRef values. Start with get_fund_overview.",
  auth: 'required',
  problems: [
    'unauthorized',
    'insufficient_scope',
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
  async admit(c, ctx) {
    try {
      // API keys, and this service's OAuth access tokens (lib/oauth/resource.ts), through the one authentication step.
      const access = ctx.access(c.env);
      const principal = await authenticate(c.req.header('authorization'), { ...access, token: accessTokens(c, access.accounts) });
      if (!principal) throw new UnauthorizedError(NO_CREDENTIAL_DETAIL, false);
      if (principal.kind === 'demo') {
        throw new InsufficientScopeError(
          'The demo key reads only the demo fixture over REST; the fund MCP server needs a key minted for this fund, or OAuth.',
        );
      }
      const config = c.get('config');
      return {
        principal,
        source: fundSource(principal, config, { binding: c.env.ASSETS, fingerprints: ctx.catalog.fundAssetFingerprints }),
        config,
        connectingIp: c.req.header('cf-connecting-ip'),
        at: logContextOf(c),
      };
    } catch (err) {
      // Every 401/403 names the OAuth discovery document (lib/oauth/resource.ts).
      if (err instanceof ApiError && (err.status === 401 || err.code === 'insufficient_scope')) throw withDiscovery(c, err);
      throw err;
    }
  },
  finish(c, caller, answered) {
    releaseAfterResponse(c, caller.source, answered);
  },
  async charge(c, caller, calls) {
    for (let i = 0; i < calls; i++) await consumeFundBurst(c.env, caller.principal, caller.connectingIp);
    return {};
  },
};
