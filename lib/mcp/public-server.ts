/**
 * The public MCP server (`POST /api/mcp/public`, docs/mcp.md): the calculators as tools
 * `calc_<slug>`, generated from their declarations in `lib/calculators/`, with no key needed. Every
 * `tools/call` counts against the same daily calculator quota as a REST call (docs/api.md#limits); an optional key
 * raises it exactly as on REST. Besides them, `search_docs` searches the service's documentation; it reads
 * only the index bundled at build time and is not charged against the quota (docs/documentation.md).
 * The tools and their `tools/list` entries (computed at build time, lib/mcp/definitions.ts) come from the
 * catalog the composition root hands each request.
 */
import { toolName } from '../calculators/definition.ts';
import { CALC_PRINCIPAL, calculatorCall, chargeCalcCalls } from '../calculators/endpoint.ts';
import { parseInput } from '../validation.ts';
import { SEARCH_INDEX_PATH, searchDocs } from '../docs/search.ts';
import { assetText } from '../assets.ts';
import { publicOrigin } from '../origin.ts';
import { SEARCH_DOCS, searchDocsInput } from './search-docs.ts';
import { definitionsOf, perCatalog, type McpServerSpec, type McpTool } from './tools.ts';
import { MCP_SERVER_NAMES } from './clients.ts';
import { publicServerCredential } from './refusals.ts';

export { searchDocsInput, searchDocsOutput } from './search-docs.ts';

/**
 * `search_docs`: full-text search over the reference, the calculators' formulas and assumptions, the fund
 * data model, the errors and the MCP notes (lib/docs/search.ts), results' URLs made absolute with the origin
 * the service is reached at. Not charged against the calculator quota.
 */
const searchDocsTool: McpTool = {
  name: SEARCH_DOCS.name,
  free: true,
  async call(c, args) {
    const { query, limit } = parseInput(searchDocsInput(), args, 'arguments');
    const assets = c.env.ASSETS;
    const result = {
      results: await searchDocs(query, limit, publicOrigin(c), () => assetText(assets, SEARCH_INDEX_PATH, 'The search index')),
    };
    return { text: JSON.stringify(result), structured: result };
  },
};

/** One tool per calculator, answered by the calculator's one handler, the one REST calls. */
const calculatorTools = perCatalog((catalog): McpTool[] =>
  catalog.calculators.map((def) => ({
    name: toolName(def),
    async call(_c, args) {
      const result = calculatorCall(def, args, 'arguments');
      return { text: JSON.stringify(result), structured: result };
    },
  })),
);

/** The public server's spec. */
export const publicServer: McpServerSpec = {
  name: MCP_SERVER_NAMES.public,
  title: 'fund-edge calculators',
  summary: 'MCP server: the calculators',
  description:
    'Model Context Protocol (Streamable HTTP, stateless, JSON responses). Tools `calc_*`, one per calculator, with the same schemas and the same daily quota as the REST calculators, and `search_docs` over this documentation (not counted). No key needed; an optional Bearer key raises the quota. A credential that is not a valid key (malformed, unknown, revoked, another scheme) is refused with 403 `invalid_key` and no `WWW-Authenticate`, its `detail` saying what to do: MCP clients turn any 401 into an OAuth login, and this server has none.',
  instructions:
    'Stateless calculators for fund operations: management and performance fees with high-water mark and hurdle, NAV roll-forward validation from CSV, operating cost, back-office savings, fund health, exposure of pasted positions, and investor-letter grading. Every argument is optional with a documented default. Results are illustrative estimates, not advice. Each calculator tools/call counts against a daily quota (500 without a key). search_docs searches the service documentation (formulas, assumptions, data model, errors) and is free: use it to answer questions about how something is computed.',
  auth: 'optional',
  problems: ['invalid_key', 'origin_not_allowed', 'misdirected_request', 'payload_too_large', 'unsupported_media_type', 'rate_limited'],
  cacheControl: 'no-store',
  tools: perCatalog((catalog) => [...calculatorTools(catalog), searchDocsTool]),
  definitions: definitionsOf((catalog) => catalog.toolDefinitions.public),
  // No key, or a valid one (it raises the quota); anything else is 403 with no challenge (lib/mcp/refusals.ts).
  steps: [publicServerCredential],
  charge: (c, calls, now) => chargeCalcCalls(c, CALC_PRINCIPAL.get(c), calls, now),
};
