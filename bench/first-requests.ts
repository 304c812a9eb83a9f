/**
 * The first request of an isolate, one per route of the route table (lib/registry.ts `ROUTES`), as both
 * first-request measurements send it: in Node (bench/cpu.ts, `cold-<id>`) and in workerd (bench/workerd.ts).
 * The cases are derived from the declarations, so an endpoint added under `functions/` is measured without
 * editing the bench, and a route this module cannot make a request for fails {@link firstRequests}
 * (test/bench-first-requests.test.ts holds every route to one case):
 * - a fund-data endpoint: `GET` with its declared example query and the demo key;
 * - a calculator: `POST` of its declared example body, with no key (a caller known by its address, as the
 *   public calculators are called);
 * - an MCP server (found by `mcpServerPaths`): a `tools/call` with a key of `sample-fund` — on the public
 *   server the fee calculator's tool, on the fund server `get_fund_overview`, each with no arguments;
 * - any other route with a `GET` that needs no key and takes no query (the OpenAPI document): a plain `GET`.
 *
 * Each case checks its answer (status 200 and the body's shape: a fund or calculator answer against its
 * declared output schema, an MCP answer as a tool result), so a figure is never that of an error. The check
 * runs after the measurement.
 */
import { CALCULATORS, FUND_TOOLS, ROUTES } from '../lib/registry.ts';
import type * as z from 'zod';
import { resultSchema, toolName } from '../lib/calculators/definition.ts';
import type { Route } from '../lib/endpoint.ts';
import { DEMO_API_KEY } from '../lib/keys.ts';
import { mcpServerPaths } from '../lib/mcp/endpoint.ts';
import { typicalCalculatorArgs } from './inputs.ts';

/** What a first request exercises; bench/cpu.ts says per kind why the first one costs what it does. */
export type FirstRequestKind = 'fund' | 'calc' | 'mcp' | 'get';

/** One first request. `init` receives a key of `sample-fund` minted for the bench (used by the MCP cases). */
export interface FirstRequest {
  /** Stable id (`fund-risk-var`, `calc-fee-calculator`, `mcp-public`, `get-openapi.json`). */
  id: string;
  /** Label of the tables (`GET fund/overview (demo key)`). */
  name: string;
  kind: FirstRequestKind;
  /** URL path and query. */
  path: string;
  init(key: string): RequestInit;
  /** A problem with the answer (wrong status or body shape), or null when it is what the case asks for. */
  check(status: number, body: string): string | null;
}

/** How the two measurements name a first request's figure: the prefix, then {@link FirstRequest.name}. */
export const FIRST_REQUEST_LABEL = { node: 'first request of an isolate: ', workerd: 'first request in workerd: ' } as const;

/** The client address calculator requests come from (TEST-NET-3). */
const CLIENT_IP = '203.0.113.7';

/** Status 200 and a JSON body the schema accepts (a declaration's output: the answer's exact shape). */
export function expectShape(schema: z.ZodType): FirstRequest['check'] {
  return (status, body) => {
    if (status !== 200) return `status ${status}: ${body.slice(0, 200)}`;
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return 'body is not JSON';
    }
    const parsed = schema.safeParse(value);
    return parsed.success ? null : `body does not match the declared output: ${parsed.error.issues[0]?.message ?? ''}`;
  };
}

/** Status 200 and a JSON object that is not a problem document. */
export function expectJsonObject(status: number, body: string): string | null {
  if (status !== 200) return `status ${status}: ${body.slice(0, 200)}`;
  try {
    const value = JSON.parse(body) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'body is not a JSON object';
    if ('type' in value && 'status' in value && 'title' in value) return 'body is a problem document';
    return null;
  } catch {
    return 'body is not JSON';
  }
}

/** Status 200 and a JSON-RPC result of a tool that did not answer `isError`. */
export function expectToolResult(status: number, body: string): string | null {
  if (status !== 200) return `status ${status}: ${body.slice(0, 200)}`;
  try {
    const rpc = JSON.parse(body) as { result?: { isError?: boolean; content?: unknown[] }; error?: { message?: string } };
    if (rpc.error) return `JSON-RPC error: ${rpc.error.message ?? ''}`;
    if (!rpc.result || rpc.result.isError) return 'the tool answered isError';
    if (!Array.isArray(rpc.result.content) || rpc.result.content.length === 0) return 'the tool result has no content';
    return null;
  } catch {
    return 'body is not JSON';
  }
}

/**
 * An MCP `tools/call` of tool `name` as a client of a 2025 revision sends it (no `MCP-Protocol-Version`),
 * with key `key`, JSON-RPC id `id`.
 */
export const toolCall = (key: string, name: string, args: Record<string, unknown> = {}, id = 1): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}` },
  body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
});

/** A tool's arguments from its query parameters: a numeric text as the number an MCP client sends, else the text. */
export function mcpArguments(query: Record<string, string>): Record<string, unknown> {
  const numeric = (v: string) => v.trim() !== '' && !Number.isNaN(Number(v));
  return Object.fromEntries(Object.entries(query).map(([k, v]) => [k, numeric(v) ? Number(v) : v]));
}

/** The headers of a request carrying `key` as its credential. */
const bearer = (key: string): RequestInit => ({ headers: { authorization: `Bearer ${key}` } });

/**
 * A fund request on the scale bench's database named as the A/B and profiling tools take it: a path under
 * `/api/v1/fund/` with its query (`nav-history?days=3660`), or `mcp:<tool>?<query>` for a `tools/call` of that
 * fund MCP tool with the query's parameters as its arguments; either carries the key minted for the fund.
 * `demo:<path>` is the REST request of that path with the demo key instead (it reads the embedded demo fund).
 * Its check takes status 200 and, over MCP, a result that is not an error (any query is allowed, so no
 * output shape is assumed).
 */
export function databaseCase(spec: string): { path: string; init: (key: string) => RequestInit; check: FirstRequest['check'] } {
  if (spec.startsWith('demo:')) return { path: `/api/v1/fund/${spec.slice(5)}`, init: () => bearer(DEMO_API_KEY), check: answered };
  if (!spec.startsWith('mcp:')) return { path: `/api/v1/fund/${spec}`, init: bearer, check: answered };
  const [tool, query = ''] = spec.slice(4).split('?');
  const args = mcpArguments(Object.fromEntries(new URLSearchParams(query)));
  return { path: '/api/mcp', init: (key) => toolCall(key, tool!, args), check: answered };
}

/** A database case's check ({@link databaseCase}): status 200, and no MCP tool result marked as an error. */
const answered: FirstRequest['check'] = (status, body) =>
  status === 200 && !body.includes('"isError":true') ? null : `status ${status}: ${body.slice(0, 200)}`;

/** The first request of one route; throws for a route none of the rules above covers. */
function requestFor(route: Route, mcp: ReturnType<typeof mcpServerPaths>): FirstRequest {
  const fund = FUND_TOOLS.find((def) => route.path === `/api/v1/fund/${def.path}`);
  if (fund) {
    const query = Object.keys(fund.example).length ? `?${new URLSearchParams(fund.example)}` : '';
    return {
      id: `fund-${fund.path.replace(/\//g, '-')}`,
      name: `GET fund/${fund.path}${query} (demo key)`,
      kind: 'fund',
      path: `${route.path}${query}`,
      init: () => bearer(DEMO_API_KEY),
      check: expectShape(fund.output),
    };
  }
  const calc = CALCULATORS.find((def) => route.path === `/api/v1/calc/${def.path}`);
  if (calc) {
    const body = JSON.stringify(typicalCalculatorArgs()[calc.slug] ?? {});
    return {
      id: `calc-${calc.slug}`,
      name: `POST calc/${calc.slug} (typical)`,
      kind: 'calc',
      path: route.path,
      init: () => ({ method: 'POST', headers: { 'content-type': 'application/json', 'cf-connecting-ip': CLIENT_IP }, body }),
      check: expectShape(resultSchema(calc)),
    };
  }
  if (route.path === mcp.public) {
    const tool = toolName(CALCULATORS.find((c) => c.slug === 'fee-calculator') ?? CALCULATORS[0]!);
    return {
      id: 'mcp-public',
      name: `MCP public ${tool}`,
      kind: 'mcp',
      path: route.path,
      init: (key) => toolCall(key, tool),
      check: expectToolResult,
    };
  }
  if (route.path === mcp.fund) {
    const tool = (FUND_TOOLS.find((t) => t.tool === 'get_fund_overview') ?? FUND_TOOLS[0]!).tool;
    return {
      id: 'mcp-fund',
      name: `MCP fund ${tool} (minted key, sample fund)`,
      kind: 'mcp',
      path: route.path,
      init: (key) => toolCall(key, tool),
      check: expectToolResult,
    };
  }
  const get = route.endpoint.methods.GET;
  if (get && get.auth === 'none' && !get.query) {
    const label = route.path.replace(/^\/api\/v1\//, '');
    return {
      id: `get-${label.replace(/\//g, '-')}`,
      name: `GET ${label}`,
      kind: 'get',
      path: route.path,
      init: () => ({}),
      check: expectJsonObject,
    };
  }
  throw new Error(`bench/first-requests.ts has no first request for ${route.path}: add a rule for its kind of endpoint`);
}

/**
 * One first request per route, in the route table's order.
 * @param routes the route table (default: the service's)
 * @throws {Error} for a route no rule covers (see the module's comment)
 */
export function firstRequests(routes: readonly Route[] = ROUTES): FirstRequest[] {
  const mcp = mcpServerPaths(routes);
  return routes.map((route) => requestFor(route, mcp));
}
