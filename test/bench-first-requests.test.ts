/**
 * The bench's first-request measurement (bench/first-requests.ts, bench/schedstat.ts): one case per route of
 * the route table, derived from the declarations, refusing a route it has no rule for; answers checked
 * against the declared output; and the schedstat reading that gives workerd's CPU time. No timing.
 */
import { describe, expect, it } from 'vitest';
import { CALCULATORS, FUND_TOOLS, ROUTES } from '../lib/registry.ts';
import type { Route } from '../lib/endpoint.ts';
import { databaseCase, expectShape, expectToolResult, firstRequests } from '../bench/first-requests.ts';
import { DEMO_API_KEY } from '../lib/keys.ts';
import { cpuBetween, parseSchedstat, threadTimes } from '../bench/schedstat.ts';
import { calcPath, fundPath } from './support/declared.ts';

describe('databaseCase', () => {
  const auth = (init: RequestInit) => new Headers(init.headers).get('authorization');

  const declared = (tool: string) => FUND_TOOLS.find((def) => def.tool === tool)!;

  it('sends a fund path and an MCP tool call with the fund key, and a demo: path with the demo key', () => {
    const history = declared('get_nav_history');
    const rest = databaseCase(`${history.path}?days=3660`);
    expect(rest.path).toBe(`${fundPath(history)}?days=3660`);
    expect(auth(rest.init('svc_dk_fund'))).toBe('Bearer svc_dk_fund');
    const mcp = databaseCase('mcp:get_nav_history?days=3660');
    expect(mcp.path).toBe('/api/mcp');
    expect(JSON.parse(String(mcp.init('svc_dk_fund').body)).params).toEqual({ name: 'get_nav_history', arguments: { days: 3660 } });
    const feeTerms = declared('get_fee_terms');
    const demo = databaseCase(`demo:${feeTerms.path}`);
    expect(demo.path).toBe(fundPath(feeTerms));
    expect(auth(demo.init('svc_dk_fund'))).toBe(`Bearer ${DEMO_API_KEY}`);
  });
});

describe('first requests of the bench', () => {
  const cases = firstRequests();

  it('has one case per route, in the route table order, with distinct ids', () => {
    expect(cases.map((c) => c.path.split('?')[0])).toEqual(ROUTES.map((r) => r.path));
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
  });

  it('sends every fund endpoint its example query with the demo key, and every calculator its example body', () => {
    for (const def of FUND_TOOLS) {
      const c = cases.find((x) => x.path.split('?')[0] === fundPath(def))!;
      expect(c.kind).toBe('fund');
      expect(Object.fromEntries(new URL(c.path, 'http://x').searchParams)).toEqual(def.example);
      expect(new Headers(c.init('k').headers).get('authorization')).toMatch(/^Bearer svc_dk_Demo/);
    }
    for (const def of CALCULATORS) {
      const c = cases.find((x) => x.path === calcPath(def))!;
      expect(c.kind).toBe('calc');
      expect(JSON.parse(String(c.init('k').body))).toEqual(def.example);
    }
    expect(cases.filter((c) => c.kind === 'mcp').map((c) => c.id)).toEqual(['mcp-fund', 'mcp-public']);
    const mcp = cases.find((c) => c.id === 'mcp-public')!.init('svc_dk_x');
    expect(JSON.parse(String(mcp.body))).toMatchObject({ method: 'tools/call', params: { name: 'calc_fee_calculator' } });
    expect(new Headers(mcp.headers).get('authorization')).toBe('Bearer svc_dk_x');
  });

  it('refuses a route it has no rule for, naming it', () => {
    const post: Route = { path: '/api/v1/other', endpoint: { methods: { POST: { ...ROUTES[0]!.endpoint.methods.POST! } } } };
    expect(() => firstRequests([...ROUTES, post])).toThrow('/api/v1/other');
    const keyed = ROUTES.find((r) => r.path.endsWith('openapi.json'))!;
    const get = keyed.endpoint.methods.GET!;
    const withKey: Route = { path: '/api/v1/keyed', endpoint: { methods: { GET: { ...get, auth: 'required' } } } };
    expect(() => firstRequests([withKey])).toThrow('/api/v1/keyed');
  });

  it('accepts only a 200 answer of the declared shape', () => {
    const check = cases.find((c) => c.id === 'calc-fee-calculator')!.check;
    expect(check(200, '{}')).toMatch(/declared output/);
    expect(check(429, '{"type":"x"}')).toMatch(/^status 429/);
    expect(check(200, 'not json')).toBe('body is not JSON');
    expect(expectShape(FUND_TOOLS[0]!.output)(200, '[]')).toMatch(/declared output/);
    const ok = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '{}' }] } });
    expect(expectToolResult(200, ok)).toBeNull();
    expect(expectToolResult(200, JSON.stringify({ jsonrpc: '2.0', id: 1, result: { isError: true, content: [] } }))).toMatch(/isError/);
    expect(expectToolResult(200, JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'bad' } }))).toMatch(/bad/);
  });
});

describe('schedstat', () => {
  it('reads the nanoseconds on CPU, the first of three fields', () => {
    expect(parseSchedstat('138457624 18228377 138\n')).toBe(138_457_624);
    expect(parseSchedstat('0 0 0')).toBe(0);
    for (const bad of ['', '1 2', '1 2 3 4', 'a 2 3', '-1 2 3', '1.5 2 3']) expect(() => parseSchedstat(bad)).toThrow(/schedstat/);
  });

  it("tells the main thread's time from the others' and which thread ran most", () => {
    const before = new Map([
      [10, 1_000_000],
      [11, 5_000_000],
    ]);
    const after = new Map([
      [10, 4_000_000],
      [11, 5_500_000],
      [12, 250_000], // started meanwhile
    ]);
    expect(cpuBetween(10, before, after)).toEqual({ mainMs: 3, otherMs: 0.75, mainRanMost: true });
    expect(cpuBetween(11, before, after)).toEqual({ mainMs: 0.5, otherMs: 3.25, mainRanMost: false });
  });

  it.runIf(process.platform === 'linux')("reads this process's threads, its main thread among them", () => {
    const times = threadTimes(process.pid);
    expect(times.get(process.pid)).toBeGreaterThan(0);
  });
});
