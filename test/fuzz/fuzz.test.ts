/**
 * The bounded slice of `npm run fuzz` inside `npm test`: a fixed seed, a few hundred generated requests
 * against the Worker in workerd, every answer judged by the oracle (docs/fuzzing.md). Before it, checks
 * that the generator reaches every route and tool and that the oracle catches what it is meant to catch,
 * so that a slice with no failures means something.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calcPath, fundPath } from '../support/declared.ts';
import { ROUTES, CALCULATORS, FUND_TOOLS } from '../../lib/registry.ts';
import { openApiDocument } from '../../lib/openapi.ts';
import { RESPONSE_EXAMPLES } from '../../lib/generated/examples.ts';
import { toolName } from '../../lib/calculators/definition.ts';
import { buildModel, tourCases, type FuzzCase } from './cases.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  TOUR_STRIDE,
  casesOf,
  checkHealthy,
  formatReport,
  runFuzz,
  startFuzzTarget,
  WORKER_LOG_FAILURE,
  type FuzzTarget,
} from './harness.ts';
import type { WorkerLog } from '../support/worker.ts';
import { judge } from './oracle.ts';
import { queryVerdict } from './schema.ts';
import type { FuzzAnswer } from './http.ts';

/** The slice: seed and size (about 20 s of requests on 2 shared cores); it holds the whole tour (harness.ts). */
const SLICE_SEED = 20_261_125;
const SLICE_RUNS = 400;

const keys = {
  sample: 'svc_dk_SampleSampleSampleSampleSampleSamp',
  other: 'svc_dk_OtherOtherOtherOtherOtherOtherOthe',
  revoked: 'svc_dk_RevokedRevokedRevokedRevokedRevo',
};
const model = buildModel(openApiDocument(ROUTES, 'http://127.0.0.1:8787', RESPONSE_EXAMPLES) as Parameters<typeof buildModel>[0]);

describe('the generator', () => {
  const cases = casesOf({ model, keys }, SLICE_SEED, 0, SLICE_RUNS).map((c) => c.fuzzCase);

  it('is deterministic by seed, and case i does not depend on how many are drawn', () => {
    const again = casesOf({ model, keys }, SLICE_SEED, 150, 160).map((c) => c.fuzzCase);
    expect(again).toEqual(cases.slice(150, 160));
    expect(casesOf({ model, keys }, SLICE_SEED + 1, 0, 10).map((c) => c.fuzzCase)).not.toEqual(cases.slice(0, 10));
  });

  /** The routes and tools a slice's cases aim at: their paths, and the tools their bodies call. */
  const reached = (list: FuzzCase[]) => ({
    paths: new Set(list.map((c) => new URL(c.request.path, 'http://x').pathname)),
    bodies: list.map((c) => (typeof c.request.body === 'string' ? c.request.body : '')).join('\n'),
  });
  const everyTool = [...CALCULATORS.map(toolName), ...FUND_TOOLS.map((t) => t.tool)];

  it('reaches every route of the table and every tool of both MCP servers within the slice, for any seed', () => {
    expect(SLICE_RUNS).toBeGreaterThanOrEqual(tourCases(model, keys).length * TOUR_STRIDE);
    for (const seed of [SLICE_SEED, 1, 987_654]) {
      const { paths, bodies } = reached(seed === SLICE_SEED ? cases : casesOf({ model, keys }, seed, 0, SLICE_RUNS).map((c) => c.fuzzCase));
      for (const route of ROUTES) expect(paths, `seed ${seed}`).toContain(route.path);
      for (const name of everyTool) expect(bodies, `seed ${seed}`).toContain(`"name":"${name}"`);
    }
  });

  it('reaches them whatever order the routes and tools are declared in', () => {
    const reversed: typeof model = {
      operations: [...model.operations].reverse(),
      publicTools: [...model.publicTools].reverse(),
      fundTools: [...model.fundTools].reverse(),
      allow: new Map([...model.allow].reverse()),
    };
    const { paths, bodies } = reached(casesOf({ model: reversed, keys }, SLICE_SEED, 0, SLICE_RUNS).map((c) => c.fuzzCase));
    for (const route of ROUTES) expect(paths).toContain(route.path);
    for (const name of everyTool) expect(bodies).toContain(`"name":"${name}"`);
  });

  it('marks the known spellings that must be refused and leaves the undecided ones alone', () => {
    const days = { type: 'integer', minimum: 1, maximum: 366 };
    expect(['0x10', '0x1F', '0b11', 'Infinity', '', 'abc', '1.5', '0', '367'].map((v) => queryVerdict(days, v))).toEqual(
      Array(9).fill('invalid'),
    );
    expect(['1', '366', '30'].map((v) => queryVerdict(days, v))).toEqual(['valid', 'valid', 'valid']);
    expect(['+5', ' 5', '1e1', '5.0'].map((v) => queryVerdict(days, v))).toEqual(['unsure', 'unsure', 'unsure', 'unsure']);
  });
});

describe('the oracle', () => {
  const problem = (status: number, code: string, requestId = 'r'): string =>
    JSON.stringify({ type: `/problems/${code}`, title: 't', status, detail: 'd', code, requestId });
  const answer = (status: number, body: string, headers: Record<string, string> = {}): FuzzAnswer => ({
    status,
    body,
    ms: 1,
    headers: {
      'x-request-id': '00000000-0000-0000-0000-000000000000',
      'content-type': 'application/problem+json',
      'cache-control': 'no-store',
      ...headers,
    },
  });
  const rest: FuzzCase = {
    family: 't',
    route: calcPath('fee-calculator'),
    surface: 'rest',
    request: { method: 'POST', path: calcPath('fee-calculator'), headers: [], body: '{"horizonYears":"kzabcdefghijq"}' },
  };
  /** A REST GET of the fund overview. */
  const fund: FuzzCase = {
    family: 't',
    route: fundPath('get_fund_overview'),
    surface: 'rest',
    request: { method: 'GET', path: fundPath('get_fund_overview'), headers: [] },
  };
  const kinds = (c: FuzzCase, a: FuzzAnswer) => judge(c, a).map((v) => v.kind);

  it('accepts a well-formed refusal', () => {
    expect(kinds(rest, answer(400, problem(400, 'invalid_request', '00000000-0000-0000-0000-000000000000')))).toEqual([]);
  });

  it('catches a 500, a status mismatch, a missing request id, an echoed canary, and a refusal not made', () => {
    expect(kinds(rest, answer(500, problem(500, 'internal_error', '00000000-0000-0000-0000-000000000000')))).toContain('HTTP 500');
    expect(kinds(rest, answer(400, problem(422, 'invalid_request')))).toContain('problem status differs from the HTTP status');
    expect(kinds(rest, answer(400, problem(400, 'invalid_request'), { 'x-request-id': '' }))).toContain('no X-Request-Id');
    expect(kinds(rest, answer(400, problem(400, 'invalid_request').replace('"d"', '"kzabcdefghijq"')))).toContain(
      'submitted value echoed in an error',
    );
    expect(kinds({ ...rest, mustReject: 'a bad body' }, answer(200, '{}', { 'content-type': 'application/json' }))).toContain(
      'accepted: a bad body',
    );
  });

  it('counts every 5xx as a failure, a database outage (503 upstream_unavailable) included, on REST and in an MCP tool result', () => {
    const unavailable = answer(503, problem(503, 'upstream_unavailable', '00000000-0000-0000-0000-000000000000'), {
      'cache-control': 'private, no-store',
    });
    expect(kinds(fund, unavailable)).toEqual(['HTTP 503']);
    expect(kinds({ ...fund, request: { ...fund.request, method: 'HEAD' } }, { ...unavailable, body: '' })).toEqual(['HTTP 503']);
    const mcp: FuzzCase = {
      family: 't',
      route: '/api/mcp',
      surface: 'mcp',
      request: { method: 'POST', path: '/api/mcp', headers: [], body: '{}' },
    };
    const toolError = (status: number, code: string) =>
      answer(
        200,
        JSON.stringify({ jsonrpc: '2.0', id: 1, result: { isError: true, content: [{ type: 'text', text: problem(status, code) }] } }),
        { 'content-type': 'application/json', 'cache-control': 'private, no-store' },
      );
    expect(kinds(mcp, toolError(503, 'upstream_unavailable'))).toEqual(['MCP: a tool answered 503 upstream_unavailable']);
    expect(kinds(mcp, toolError(400, 'invalid_request'))).toEqual([]);
  });

  it('wants private, no-store on fund answers, errors included', () => {
    expect(kinds(fund, answer(401, problem(401, 'unauthorized', '00000000-0000-0000-0000-000000000000')))).toContain(
      'fund answer 401 without Cache-Control: private, no-store',
    );
    expect(kinds(fund, answer(200, '{}', { 'content-type': 'application/json', 'cache-control': 'private, no-store' }))).toEqual([]);
  });

  it('wants an array for a batch and the right JSON-RPC code for a malformed message', () => {
    const mcp: FuzzCase = {
      family: 't',
      route: '/api/mcp/public',
      surface: 'mcp',
      request: { method: 'POST', path: '/api/mcp/public', headers: [], body: '[]' },
    };
    const json = { 'content-type': 'application/json' };
    const error = (code: number) => JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code, message: 'm' } });
    expect(
      kinds({ ...mcp, batch: { size: 1, requests: 1, repeatedIds: false, revisionHasBatches: true } }, answer(200, error(-32601), json)),
    ).toContain('MCP: a batch of one answered without an array');
    expect(kinds({ ...mcp, rpc: { codes: [-32602] } }, answer(200, error(-32603), json))).toContain(
      'MCP: JSON-RPC error code -32603 where -32602 is due',
    );
    expect(kinds({ ...mcp, rpc: { codes: [-32602] } }, answer(200, error(-32602), json))).toEqual([]);
  });
});

describe('the health check before a run', () => {
  it('stops the run when a fund route does not answer 200, naming each, and passes a healthy service', async () => {
    let down = true;
    const server = createServer((req, res) => {
      const ok = !down || !req.url!.startsWith('/api/v1/fund/') || req.headers.authorization !== 'Bearer k';
      res.writeHead(ok ? 200 : 503, { 'content-type': ok ? 'application/json' : 'application/problem+json' });
      res.end(ok ? '{}' : JSON.stringify({ status: 503, code: 'upstream_unavailable' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const get = (parameters: { name: string; in: string; example?: unknown }[] = []) => ({ get: { parameters } });
      const doc = {
        paths: {
          [fundPath('get_fund_overview')]: get(),
          [fundPath('get_positions')]: get([{ name: 'limit', in: 'query', example: 5 }]),
          [calcPath('fee-calculator')]: {},
          // Not a declared fund tool's path: not checked.
          '/api/v1/fund/x/{id}': get(),
        },
      };
      await expect(checkHealthy(base, doc, 'k')).rejects.toThrow(
        `the service is not healthy, so a fuzz run would prove nothing; fund routes that did not answer 200:\n  ${fundPath('get_fund_overview')}: 503 upstream_unavailable\n  ${fundPath('get_positions')}?limit=5: 503 upstream_unavailable`,
      );
      down = false;
      await expect(checkHealthy(base, doc, 'k')).resolves.toBeUndefined();
      await expect(checkHealthy(base, { paths: { [calcPath('fee-calculator')]: {} } }, 'k')).rejects.toThrow(/no fund route/);
    } finally {
      server.close();
    }
  });
});

describe("the Worker's log", () => {
  it('fails a run whose log reports a hung request or an uncaught exception, even when every answer was fine', async () => {
    // A stand-in server answering every request, and its log: once `broken`, the first request it serves
    // writes the two lines workerd prints (as wrangler shows them).
    const lines: string[] = [];
    let broken = false;
    const server = createServer((_req, res) => {
      if (broken) {
        broken = false;
        lines.push(
          "✘ [ERROR] Uncaught Error: The Workers runtime canceled this request because it detected that your Worker's code had hung and would never generate a response.",
          '✘ [ERROR] Uncaught (async) Error: boom',
        );
      }
      res.writeHead(204, { 'x-request-id': '00000000-0000-0000-0000-000000000000' }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const log: WorkerLog = { lines: () => lines, problems: () => [], clear: () => {}, stop: () => {} };
    const target = {
      base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      keys,
      model,
      log,
      restart: async () => {},
      dispose: async () => {},
    } satisfies FuzzTarget;
    try {
      const clean = await runFuzz(target, { seed: 1, runs: 2, timeoutMs: 5_000, concurrency: 1 });
      expect(clean.classes.map((c) => c.kind)).not.toContain(WORKER_LOG_FAILURE);
      broken = true;
      const report = await runFuzz(target, { seed: 1, runs: 2, timeoutMs: 5_000, concurrency: 1 });
      const found = report.classes.find((c) => c.kind === WORKER_LOG_FAILURE);
      expect(found?.count).toBe(2);
      expect(found?.smallest.violation.detail).toMatch(/^Uncaught Error: The Workers runtime canceled this request/);
      expect(formatReport(report, keys)).toContain(`replay: FUZZ_SEED=1 FUZZ_ONLY=`);
    } finally {
      server.close();
    }
  }, 30_000);
});

describe(`a slice of npm run fuzz: seed ${SLICE_SEED}, ${SLICE_RUNS} requests against the Worker in workerd`, () => {
  let target: FuzzTarget;
  beforeAll(async () => {
    target = await startFuzzTarget();
  });
  afterAll(async () => {
    await target?.dispose();
  });

  it('breaks no rule', async () => {
    const report = await runFuzz(target, { seed: SLICE_SEED, runs: SLICE_RUNS, timeoutMs: 5_000, concurrency: 4 });
    expect(report.sent).toBe(SLICE_RUNS);
    expect(
      report.classes.map((c) => `${c.kind} (${c.count}×)`),
      formatReport(report, target.keys),
    ).toEqual([]);
  }, 240_000);
});
