/**
 * The public MCP server (`POST /api/mcp/public`, docs/mcp.md): the calculators as tools
 * `calc_<slug>`, generated from their declarations in `lib/calculators/`, with no key needed. Every
 * `tools/call` counts against the same daily calculator quota as a REST call (docs/api.md#limits); an optional key
 * raises it exactly as on REST. Besides them, `search_docs` searches the service's documentation; it reads
 * only the index bundled at build time and is not charged against the quota (README "Documentation").
 */
import { CALCULATORS } from '../calculators/index.ts';
import { resultSchema, runCalculator, toolName } from '../calculators/definition.ts';
import { authenticate, type Principal } from '../keys.ts';
import { calcCaller, consumeCalcQuota, deferOf, rateLimitHeaders } from '../rate-limit.ts';
import { atLocation, parseInput } from '../validation.ts';
import * as z from 'zod';
import { MAX_QUERY_LENGTH, MAX_RESULTS, SEARCH_INDEX_PATH, searchDocs } from '../docs/search.ts';
import type { Env } from '../env.ts';
import { publicOrigin } from '../origin.ts';
import { ApiError } from '../errors.ts';
import { logContextOf, logFailure, type LogContext } from '../log.ts';
import { READ_ONLY, once, toolInputSchema, toolOutputSchema, type McpServerSpec, type McpTool } from './tools.ts';

/** Who is calling the public server: a key's principal or nobody, and the client address for the quota. */
export interface PublicCaller {
  principal: Principal | null;
  connectingIp: string | undefined;
  /** The origin the service is reached at: search results' URLs are made absolute with it. */
  origin: string;
  /** The static assets, where the search index is (lib/docs/search.ts). */
  assets: Env['ASSETS'];
  /** Where a tool's unexpected failure is logged. */
  at: LogContext;
}

/** Arguments of `search_docs`. */
export const searchDocsInput = z.strictObject({
  query: z
    .string()
    .trim()
    .min(1)
    .max(MAX_QUERY_LENGTH)
    .describe(
      `What to look for: plain words or a question, 1..${MAX_QUERY_LENGTH} characters (e.g. "how is the performance fee computed?").`,
    ),
  limit: z.number().int().min(1).max(MAX_RESULTS).default(5).describe(`Most passages returned, 1..${MAX_RESULTS}.`),
});

/** Result of `search_docs`: the best passages first (none when no word of the query occurs in the docs). */
export const searchDocsOutput = z.strictObject({
  results: z.array(
    z.strictObject({
      title: z.string().describe('Heading of the passage.'),
      url: z.string().describe('Absolute URL where the passage is published (API reference, design notes, README).'),
      text: z.string().describe('The passage, Markdown.'),
      score: z.number().describe('Relevance (BM25, higher is better; comparable within one search only).'),
    }),
  ),
});

/**
 * The serialized search index from the static assets.
 * @throws Error when the assets binding is missing or the index is not there (a deployment fault: the
 *   caller sees a generic internal_error result)
 */
async function readSearchIndex(caller: PublicCaller): Promise<string> {
  if (!caller.assets) throw new Error('The ASSETS binding is missing.');
  const res = await caller.assets.fetch(`${caller.origin}${SEARCH_INDEX_PATH}`);
  if (!res.ok) throw new Error(`The search index answered ${res.status}.`);
  return res.text();
}

/**
 * `search_docs`: full-text search over the reference, the calculators' formulas and assumptions, the fund
 * data model, the errors and the MCP notes (lib/docs/search.ts). Not charged against the calculator quota.
 */
const searchDocsTool: McpTool<PublicCaller> = {
  definition: {
    name: 'search_docs',
    title: 'Search the documentation',
    description:
      "Searches this service's documentation (API reference, calculator formulas, sources and assumptions, fund data model, errors, limits, MCP servers) and returns the best passages in Markdown with their URLs, best first. Amounts in the passages are in USD for calculators and the fund's base currency for fund data; percentages in percent units. Free: does not count against the calculator quota.",
    inputSchema: toolInputSchema(searchDocsInput),
    outputSchema: toolOutputSchema(searchDocsOutput),
    annotations: { title: 'Search the documentation', ...READ_ONLY },
  },
  free: true,
  async call(caller, args) {
    const { query, limit } = parseInput(searchDocsInput, args, 'arguments');
    const result = { results: await searchDocs(query, limit, caller.origin, () => readSearchIndex(caller)) };
    return { text: JSON.stringify(result), structured: result };
  },
};

const calculatorTools = once((): McpTool<PublicCaller>[] =>
  CALCULATORS.map((def) => ({
    definition: {
      name: toolName(def),
      title: def.title,
      description: `${def.description} Units: money in USD (fields ending Usd), rates and returns in percent units (fields ending Pct, so 2 means 2 %). Every argument is optional; the result echoes the resolved inputs. Counts against the caller's daily calculator quota.`,
      inputSchema: toolInputSchema(def.input),
      outputSchema: toolOutputSchema(resultSchema(def)),
      annotations: { title: def.title, ...READ_ONLY },
    },
    async call(caller, args) {
      try {
        const inputs = parseInput(def.input, args, 'arguments');
        const result = atLocation('arguments', () => runCalculator(def, inputs));
        return { text: JSON.stringify(result), structured: result as Record<string, unknown> };
      } catch (err) {
        // Answered as an isError result (not through the app's error handler): log it here, once.
        logFailure(err, err instanceof ApiError ? err.status : 500, caller.at);
        throw err;
      }
    },
  })),
);

/** The public server's spec. */
export const publicServer: McpServerSpec<PublicCaller> = {
  name: 'fund-edge-calculators',
  title: 'fund-edge calculators',
  summary: 'MCP server: the calculators',
  description:
    'Model Context Protocol (Streamable HTTP, stateless, JSON responses). Tools `calc_*`, one per calculator, with the same schemas and the same daily quota as the REST calculators, and `search_docs` over this documentation (not counted). No key needed; an optional Bearer key raises the quota.',
  instructions:
    'Stateless calculators for fund operations: management and performance fees with high-water mark and hurdle, NAV roll-forward validation from CSV, operating cost, back-office savings, fund health, exposure of pasted positions, and investor-letter grading. Every argument is optional with a documented default. Results are illustrative estimates, not advice. Each calculator tools/call counts against a daily quota (500 without a key). search_docs searches the service documentation (formulas, assumptions, data model, errors) and is free: use it to answer questions about how something is computed.',
  auth: 'optional',
  problems: ['unauthorized', 'origin_not_allowed', 'misdirected_request', 'payload_too_large', 'unsupported_media_type', 'rate_limited'],
  cacheControl: 'no-store',
  tools: once(() => [...calculatorTools(), searchDocsTool]),
  async admit(c) {
    return {
      principal: await authenticate(c.req.header('authorization'), c.env.API_KEYS, c.env.CONSOLE),
      connectingIp: c.req.header('cf-connecting-ip'),
      origin: publicOrigin(c),
      assets: c.env.ASSETS,
      at: logContextOf(c),
    };
  },
  async charge(c, caller, calls, now) {
    return rateLimitHeaders(await consumeCalcQuota(c.env, calcCaller(caller.principal, caller.connectingIp), now, calls, deferOf(c)));
  },
};
