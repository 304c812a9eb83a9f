/**
 * The public MCP server (`POST /api/mcp/public`, contract §6): the seven calculators as tools
 * `calc_<slug>`, generated from their declarations in `lib/calculators/`, with no key needed. Every
 * `tools/call` counts against the same daily calculator quota as a REST call (contract §3); an optional key
 * raises it exactly as on REST.
 */
import { CALCULATORS } from '../calculators/index.ts';
import { resultSchema, runCalculator, toolName } from '../calculators/definition.ts';
import { authenticate, type Principal } from '../keys.ts';
import { calcCaller, consumeCalcQuota, deferOf, rateLimitHeaders } from '../rate-limit.ts';
import { parseInput } from '../validation.ts';
import { READ_ONLY, once, toolInputSchema, toolOutputSchema, type McpServerSpec, type McpTool } from './dispatch.ts';

/** Who is calling the public server: a key's principal or nobody, and the client address for the quota. */
export interface PublicCaller {
  principal: Principal | null;
  connectingIp: string | undefined;
}

const calculatorTools = once((): McpTool<PublicCaller>[] =>
  CALCULATORS.map((def) => ({
    definition: {
      name: toolName(def),
      title: def.title,
      description: `${def.description} Every argument is optional; the result echoes the resolved inputs. Counts against the caller's daily calculator quota.`,
      inputSchema: toolInputSchema(def.input),
      outputSchema: toolOutputSchema(resultSchema(def)),
      annotations: { title: def.title, ...READ_ONLY },
    },
    async call(_caller, args) {
      const result = runCalculator(def, parseInput(def.input, args, 'arguments'));
      return { text: JSON.stringify(result), structured: result as Record<string, unknown> };
    },
  })),
);

/** The public server's spec. */
export const publicServer: McpServerSpec<PublicCaller> = {
  name: 'fund-edge-calculators',
  title: 'fund-edge calculators',
  summary: 'MCP server: the seven calculators',
  description:
    'Model Context Protocol (Streamable HTTP, stateless, JSON responses). Tools `calc_*`, one per calculator, with the same schemas and the same daily quota as the REST calculators. No key needed; an optional Bearer key raises the quota.',
  instructions:
    'Stateless calculators for fund operations: management and performance fees with high-water mark and hurdle, NAV roll-forward validation from CSV, operating cost, back-office savings, fund health, exposure of pasted positions, and investor-letter grading. Every argument is optional with a documented default. Results are illustrative estimates, not advice. Each tools/call counts against a daily quota (500 without a key).',
  auth: 'optional',
  problems: ['unauthorized', 'origin_not_allowed', 'payload_too_large', 'unsupported_media_type', 'rate_limited'],
  cacheControl: 'no-store',
  tools: calculatorTools,
  async admit(c) {
    return { principal: await authenticate(c.req.header('authorization'), c.env.API_KEYS), connectingIp: c.req.header('cf-connecting-ip') };
  },
  async charge(c, caller, calls, now) {
    return rateLimitHeaders(await consumeCalcQuota(c.env, calcCaller(caller.principal, caller.connectingIp), now, calls, deferOf(c)));
  },
};
