/**
 * The MCP servers' tools (docs/mcp.md): `tools/list` of both servers, and `tools/call` of every calculator
 * and fund tool, proven equal to the REST body, with `isError` results at `/arguments/...` pointers.
 * The app runs on a fixed clock, so every RateLimit header value is asserted exactly.
 */
import { describe, expect, it } from 'vitest';
import { CALCULATORS, FUND_TOOLS } from '../../lib/registry.ts';
import { toolName } from '../../lib/calculators/definition.ts';
import { SAMPLE_FUND, generateFund } from '../../lib/fund/synthetic.ts';
import { quotaWritesSettled } from '../../lib/rate-limit.ts';
import { fakeEnv } from '../support/fakes.ts';
import { CALC_TOOL_NAMES, FUND_TOOL_NAMES } from '../support/declared.ts';
import { fundExample } from '../support/examples.ts';
import {
  T,
  app,
  IP,
  QUOTA_KEY,
  PUBLIC,
  FUND,
  SECRET,
  type ToolDefinition,
  post,
  toolsList,
  toolsCall,
  okJson,
  toolResult,
  toolProblem,
  expectNoInternals,
  fundFixture,
} from './support.ts';

describe('tools/list', () => {
  function checkCommon(tool: ToolDefinition): void {
    expect(typeof tool.title).toBe('string');
    expect(tool.title!.length).toBeGreaterThan(0);
    expect(typeof tool.description).toBe('string');
    expect(tool.description!.length).toBeGreaterThan(20);
    expect(tool.inputSchema.type).toBe('object');
    expect(tool.outputSchema?.type).toBe('object');
    expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, title: tool.title });
  }

  it('the public server lists exactly the declared calc_* tools, then search_docs', async () => {
    expect(CALCULATORS.map(toolName)).toEqual(CALC_TOOL_NAMES);
    const { body } = await okJson(await post(PUBLIC, toolsList()));
    const tools = body.result!.tools as ToolDefinition[];
    expect(tools.map((t) => t.name)).toEqual([...CALCULATORS.map(toolName), 'search_docs']);
    checkCommon(tools.at(-1)!);
    for (const [i, tool] of tools.slice(0, -1).entries()) {
      const def = CALCULATORS[i]!;
      checkCommon(tool);
      expect(tool.title).toBe(def.title);
      expect(Object.keys(tool.inputSchema.properties ?? {}).sort()).toEqual(Object.keys(def.input.shape).sort());
      // Every calculator argument is optional.
      expect(tool.inputSchema.required ?? []).toEqual([]);
      expect(Object.keys(tool.outputSchema!.properties ?? {})).toEqual(expect.arrayContaining(['inputs', 'disclaimer']));
    }
  });

  it('the fund server lists exactly the declared get_* tools', async () => {
    expect(FUND_TOOLS.map((t) => t.tool)).toEqual(FUND_TOOL_NAMES);
    const { env, auth } = await fundFixture();
    const { body } = await okJson(await post(FUND, toolsList(), { env, auth }));
    const tools = body.result!.tools as ToolDefinition[];
    expect(tools.map((t) => t.name)).toEqual(FUND_TOOLS.map((t) => t.tool));
    for (const [i, tool] of tools.entries()) {
      const def = FUND_TOOLS[i]!;
      checkCommon(tool);
      expect(tool.title).toBe(def.title);
      expect(tool.description).toContain(`/api/v1/fund/${def.path}`);
      expect(Object.keys(tool.inputSchema.properties ?? {}).sort()).toEqual(Object.keys(def.query.shape).sort());
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('get_pnl_attribution')!.inputSchema.required).toEqual(['date']);
    expect(Object.keys(byName.get('get_fund_overview')!.inputSchema.properties ?? {})).toEqual([]);
    const series = byName.get('get_exposure_series')!.outputSchema!;
    expect(series.required).toEqual(['items']);
    expect(series.properties!.items).toMatchObject({ type: 'array', items: { type: 'object' } });
  });
});

describe('public server tools/call', () => {
  it.each(CALCULATORS.map((def) => [toolName(def), def.path] as const))(
    '%s with {} answers the REST body of /api/v1/calc/%s as structuredContent and text, counted on the daily quota',
    async (name, slug) => {
      const { env, RATE_LIMITS } = fakeEnv();
      const first = await post(PUBLIC, toolsCall(name), { env });
      expect(first.headers.get('ratelimit-policy')).toBe('"daily";q=500;w=86400');
      expect(first.headers.get('ratelimit')).toBe(`"daily";r=499;t=${T}`);
      expect(first.headers.get('cache-control')).toBe('no-store');
      const { result } = await toolResult(first);

      const rest = await app.request(
        `/api/v1/calc/${slug}`,
        { method: 'POST', headers: { 'content-type': 'application/json', 'cf-connecting-ip': IP }, body: '{}' },
        env,
      );
      expect(rest.status).toBe(200);
      expect(rest.headers.get('ratelimit')).toBe(`"daily";r=498;t=${T}`);
      const restText = await rest.text();

      expect(result.isError).toBeUndefined();
      expect(result.content).toEqual([{ type: 'text', text: restText }]);
      expect(result.structuredContent).toEqual(JSON.parse(restText));
      expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);

      const second = await post(PUBLIC, toolsCall(name), { env });
      expect(second.headers.get('ratelimit')).toBe(`"daily";r=497;t=${T}`);
      await quotaWritesSettled(RATE_LIMITS as unknown as KVNamespace); // the count is written behind the response
      expect(await RATE_LIMITS.get(QUOTA_KEY)).toBe('3');
    },
  );

  it.each([
    ['a wrong type', { horizonYears: SECRET }, '/arguments/horizonYears', 'must be of type number'],
    ['an out-of-range value', { horizonYears: 987654321 }, '/arguments/horizonYears', undefined],
    ['an unknown argument', { [`x${SECRET}`]: SECRET }, `/arguments/x${SECRET}`, 'is not a known field'],
  ] as const)('answers %s as an isError result with an /arguments pointer, counted', async (_label, args, pointer, detail) => {
    const { env } = fakeEnv();
    const res = await post(PUBLIC, toolsCall('calc_fee_calculator', args), { env });
    const { result } = await toolResult(res);
    const problem = toolProblem(result, res);
    expect(problem).toMatchObject({ type: '/problems/invalid_request', title: 'Invalid request', status: 400, code: 'invalid_request' });
    expect(problem.errors!.length).toBeGreaterThan(0);
    for (const e of problem.errors!) expect(e.pointer).toBe(pointer);
    if (detail) expect(problem.errors).toEqual([{ pointer, detail }]);
    // The value is never echoed (an unknown argument's name is, as its pointer).
    const values = JSON.stringify(problem.errors!.map((e) => e.detail)) + problem.detail;
    expect(values).not.toContain(SECRET);
    expect(values).not.toContain('987654321');
    expect(res.headers.get('ratelimit')).toBe(`"daily";r=499;t=${T}`);
    expectNoInternals(result.content[0]!.text);
  });

  it('names the field of a cross-field rule', async () => {
    const res = await post(PUBLIC, toolsCall('calc_fee_calculator', { horizonYears: 2, annualGrossReturnPctByYear: [5, 6, 7] }));
    const { result } = await toolResult(res);
    expect(toolProblem(result, res).errors).toEqual([
      { pointer: '/arguments/annualGrossReturnPctByYear', detail: 'has more years than horizonYears covers' },
    ]);
  });

  // A CSV is checked by the calculator, not its schema; the core names the field, the edge adds where it came from.
  it.each([
    [
      'calc_exposure_analysis',
      { positionsCsv: 'Asset,Value\nBTC,lots' },
      '/arguments/positionsCsv',
      'line 2: Value is not a number within ±1e15',
    ],
    ['calc_exposure_analysis', { positionsCsv: 'Asset\nBTC' }, '/arguments/positionsCsv', 'header lacks the column Value'],
    ['calc_fund_health_check', { positionsCsv: 'Asset,Value\n"BTC,1' }, '/arguments/positionsCsv', undefined],
    ['calc_nav_validator', { lpRowsCsv: 'nope\n1' }, '/arguments/lpRowsCsv', undefined],
  ] as const)('%s reports a bad CSV at %j → %s', async (name, args, pointer, detail) => {
    const res = await post(PUBLIC, toolsCall(name, args));
    const { result } = await toolResult(res);
    const errors = toolProblem(result, res).errors!;
    expect(errors.length).toBeGreaterThan(0);
    for (const e of errors) expect(e.pointer).toBe(pointer);
    if (detail) expect(errors[0]!.detail).toBe(detail);
  });
});

/** Every fund tool's declared example, as MCP arguments and as a REST query string. */
const FUND_ARGS = Object.fromEntries(FUND_TOOLS.map((def) => [def.tool, fundExample(def)]));

const sampleRuns = generateFund(SAMPLE_FUND).runs;
const usable = (r: (typeof sampleRuns)[number]) => r.status === 'complete' && r.reconStatus === 'matched' && r.shadowNav !== null;

describe('fund server tools/call', () => {
  it('the argument table covers every fund tool, and the declared dates are usable runs of the sample fund', () => {
    expect(Object.keys(FUND_ARGS).sort()).toEqual([...FUND_TOOL_NAMES].sort());
    const dates = FUND_TOOLS.flatMap((def) => Object.values(def.example).filter((v) => /^\d{4}-\d{2}-\d{2}$/.test(v)));
    expect(dates.length).toBeGreaterThan(0);
    for (const date of dates) expect(usable(sampleRuns.find((r) => r.navDate === date)!), date).toBe(true);
  });

  it.each(FUND_TOOLS.map((def) => [def.tool, def.path] as const))(
    '%s answers the REST body of GET /api/v1/fund/%s byte for byte',
    async (name, path) => {
      const { env, auth, record, FUND_BURST } = await fundFixture();
      const { args, query } = FUND_ARGS[name]!;
      const res = await post(FUND, toolsCall(name, args), { env, auth });
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      expect(res.headers.get('ratelimit')).toBeNull();
      const { result } = await toolResult(res);
      expect(FUND_BURST.counts.get(`key:${record.keyId}`)).toBe(1);

      const rest = await app.request(`/api/v1/fund/${path}${query}`, { headers: { authorization: auth, 'cf-connecting-ip': IP } }, env);
      const restText = await rest.text();
      expect(rest.status, restText).toBe(200);
      expect(FUND_BURST.counts.get(`key:${record.keyId}`)).toBe(2);

      expect(result.isError).toBeUndefined();
      expect(result.content).toHaveLength(1);
      expect(result.content[0]).toEqual({ type: 'text', text: restText });
      const parsed: unknown = JSON.parse(restText);
      if (name === 'get_exposure_series') {
        expect(Array.isArray(parsed)).toBe(true);
        expect((parsed as unknown[]).length).toBeGreaterThan(0);
        expect(result.structuredContent).toEqual({ items: parsed });
      } else {
        expect(result.structuredContent).toEqual(parsed);
      }
      // The sample fund (Meridian), not the demo fund.
      expect(restText).not.toContain('Northstar');
    },
  );

  it('the non-default arguments take effect', async () => {
    const { env, auth } = await fundFixture();
    const structured = async (name: string, args: Record<string, unknown>) =>
      (await toolResult(await post(FUND, toolsCall(name, args), { env, auth }))).result.structuredContent!;
    expect((await structured('get_nav_history', { days: 7 })).runs).toHaveLength(7);
    expect((await structured('get_expenses', { limit: 3 })).expenses).toHaveLength(3);
    expect(await structured('get_value_at_risk', { confidence: 0.99, method: 'sample', windowDays: 100 })).toMatchObject({
      confidence: 0.99,
      method: 'sample',
      windowDays: 100,
      lambda: null,
    });
    expect(await structured('get_pnl_attribution', { date: '2026-10-20' })).toMatchObject({ date: '2026-10-20' });
  });

  const failed = sampleRuns.find((r) => r.status === 'failed')!;
  const partial = sampleRuns.find((r) => r.status === 'partial')!;
  const brk = sampleRuns.find((r) => r.status === 'complete' && r.reconStatus === 'break')!;

  it.each([
    ['get_exposure_series', { days: 0 }, '/arguments/days'],
    ['get_exposure_series', { days: 367 }, '/arguments/days'],
    ['get_exposure_series', { days: SECRET }, '/arguments/days'],
    ['get_exposure_series', { dayz: SECRET }, '/arguments/dayz'],
    ['get_nav_history', { days: 1.5 }, '/arguments/days'],
    ['get_expenses', { limit: 501 }, '/arguments/limit'],
    ['get_value_at_risk', { method: SECRET }, '/arguments/method'],
    ['get_value_at_risk', { confidence: 0.9 }, '/arguments/confidence'],
    ['get_pnl_attribution', {}, '/arguments/date'],
    ['get_pnl_attribution', { date: '2026-02-30' }, '/arguments/date'],
    ['get_fund_overview', { verbose: SECRET }, '/arguments/verbose'],
    // Arguments must be of the JSON type tools/list advertises: no coercion (docs/mcp.md: argument types).
    ['get_nav_history', { days: [90] }, '/arguments/days'],
    ['get_nav_history', { days: true }, '/arguments/days'],
    ['get_nav_history', { days: '90' }, '/arguments/days'],
    ['get_nav_history', { days: null }, '/arguments/days'],
    ['get_expenses', { limit: '0x1F' }, '/arguments/limit'],
    ['get_value_at_risk', { confidence: '0.99' }, '/arguments/confidence'],
    ['get_value_at_risk', { horizonDays: [10] }, '/arguments/horizonDays'],
    ['get_value_at_risk', { windowDays: false }, '/arguments/windowDays'],
  ] as const)('%s with %j is an isError invalid_request result at %s', async (name, args, pointer) => {
    const { env, auth, key } = await fundFixture();
    const res = await post(FUND, toolsCall(name, args), { env, auth });
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const { result, text } = await toolResult(res);
    const problem = toolProblem(result, res);
    expect(problem).toMatchObject({ type: '/problems/invalid_request', status: 400, code: 'invalid_request' });
    expect(problem.errors!.length).toBeGreaterThan(0);
    for (const e of problem.errors!) expect(e.pointer).toBe(pointer);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('2026-02-30');
    expectNoInternals(text, [key]);
  });

  it('get_pnl_attribution without its date says the argument is required', async () => {
    const { env, auth } = await fundFixture();
    const res = await post(FUND, toolsCall('get_pnl_attribution', {}), { env, auth });
    const { result } = await toolResult(res);
    expect(toolProblem(result, res).errors).toEqual([{ pointer: '/arguments/date', detail: 'is required' }]);
  });

  it('get_exposure_series names both a bad value and an unknown argument', async () => {
    const { env, auth } = await fundFixture();
    const res = await post(FUND, toolsCall('get_exposure_series', { days: SECRET, dayz: SECRET }), { env, auth });
    const { result, text } = await toolResult(res);
    expect(toolProblem(result, res).errors).toEqual([
      { pointer: '/arguments/days', detail: 'must be of type number' },
      { pointer: '/arguments/dayz', detail: 'is not a known field' },
    ]);
    expect(text).not.toContain(SECRET);
  });

  it.each(['2020-01-01', '2026-11-01'])('get_pnl_attribution for %s (no run) is an isError not_found result', async (date) => {
    expect(sampleRuns.some((r) => r.navDate === date)).toBe(false);
    const { env, auth } = await fundFixture();
    const res = await post(FUND, toolsCall('get_pnl_attribution', { date }), { env, auth });
    const { result, text } = await toolResult(res);
    expect(toolProblem(result, res)).toMatchObject({ type: '/problems/not_found', status: 404, code: 'not_found' });
    expect(text).not.toContain(date);
    expectNoInternals(text);
  });

  it.each([
    ['failed', failed],
    ['partial', partial],
    ['break', brk],
  ] as const)('get_pnl_attribution for a %s run is an isError not_usable result', async (_kind, run) => {
    expect(run).toBeDefined();
    expect(usable(run)).toBe(false);
    const { env, auth } = await fundFixture();
    const res = await post(FUND, toolsCall('get_pnl_attribution', { date: run.navDate }), { env, auth });
    const { result, text } = await toolResult(res);
    expect(toolProblem(result, res)).toMatchObject({ type: '/problems/not_usable', status: 409, code: 'not_usable' });
    expect(text).not.toContain(run.navDate);
    for (const figure of [run.shadowNav, run.adminNav]) if (figure !== null) expect(text).not.toContain(figure);
    expectNoInternals(text);
  });
});
