/**
 * Cases at the edges: every method on every path, hostile Host headers, paths outside the API and
 * oversized payloads.
 */
import fc from 'fast-check';
import { canary, csvOfRows } from '../schema.ts';
import { type Headers, auth, contentType } from './common.ts';
import { rpcId } from './mcp.ts';
import { type FuzzCase, type FuzzKeys, type FuzzModel, SELF_ORIGIN } from './model.ts';
import { calcPath, fundPath } from '../../support/declared.ts';

/**
 * Methods sent to every path. A method name outside HTTP's registry (`FOO`) never reaches the Worker:
 * workerd answers it 501 `text/plain` itself, so it is not sent.
 */
export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/** Method and content-type confusion on every route: methods it does not serve (405), bodies on GET, forms on POST. */
export function methodConfusion(model: FuzzModel, keys: FuzzKeys): fc.Arbitrary<FuzzCase> {
  const paths = [...model.allow.keys()];
  return fc
    .record({
      path: fc.constantFrom(...paths),
      method: fc.constantFrom(...METHODS),
      who: auth(keys, 'fund'),
      type: contentType,
      body: fc.option(
        fc.oneof(
          fc.constant('{}'),
          canary.map((c) => JSON.stringify({ days: c })),
          canary.map((c) => `a=${c}`),
        ),
        { freq: 2 },
      ),
    })
    .map(({ path, method, who, type, body }): FuzzCase => {
      const allowed = model.allow.get(path)!;
      const reject = method === 'OPTIONS' ? undefined : allowed.includes(method) ? undefined : `method ${method} not allowed here`;
      return {
        family: 'method',
        route: path,
        surface: path.startsWith('/api/mcp') ? 'mcp' : 'rest',
        request: { method, path, headers: [...type.headers, ...who.headers], ...(body !== null ? { body } : {}) },
        ...(reject ? { mustReject: reject } : {}),
      };
    });
}

export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]', 'localhost:8787', '127.0.0.1:9', '[::1]:8787'];
export const HOSTILE_HOSTS = [
  'evil.example',
  'evil.example:8787',
  'localhost.evil.example',
  '127.0.0.1.nip.io',
  'attacker.test:80',
  'xn--80ak6aa92e.com',
];

/**
 * `Host` and `Origin` headers of a DNS-rebinding attacker against the Worker on loopback: the MCP servers
 * must refuse a non-loopback `Host`, however the `Origin` matches it; the OpenAPI document must not put an
 * attacker's `Host` into a body shared caches may keep.
 */
export function hostHeaders(keys: FuzzKeys): fc.Arbitrary<FuzzCase> {
  return fc
    .record({
      host: fc.oneof(fc.constantFrom(...HOSTILE_HOSTS), fc.constantFrom(...LOOPBACK_HOSTS)),
      origin: fc.constantFrom('none', 'same', 'self'),
      target: fc.constantFrom('public', 'fund', 'openapi', 'calc', 'overview'),
      id: rpcId,
    })
    .map(({ host, origin, target, id }): FuzzCase => {
      const hostile = HOSTILE_HOSTS.includes(host);
      const originHeaders: Headers =
        origin === 'same' ? [['origin', `http://${host}`]] : origin === 'self' ? [['origin', SELF_ORIGIN]] : [];
      const init = JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
      });
      const json: Headers = [
        ['content-type', 'application/json'],
        ['accept', 'application/json, text/event-stream'],
      ];
      const base = { family: 'host', surface: 'rest' as const, ...(hostile ? { hostileHost: host } : {}) };
      switch (target) {
        case 'public':
        case 'fund': {
          const path = target === 'public' ? '/api/mcp/public' : '/api/mcp';
          const key: Headers = target === 'fund' ? [['authorization', `Bearer ${keys.sample}`]] : [];
          const reject = hostile ? 'a non-loopback Host on the MCP server (DNS rebinding)' : undefined;
          return {
            ...base,
            surface: 'mcp',
            route: path,
            request: { method: 'POST', path, headers: [['host', host], ...originHeaders, ...json, ...key], body: init },
            ...(reject ? { mustReject: reject } : {}),
          };
        }
        case 'openapi':
          return {
            ...base,
            route: '/api/v1/openapi.json',
            request: { method: 'GET', path: '/api/v1/openapi.json', headers: [['host', host], ...originHeaders] },
          };
        case 'calc':
          return {
            ...base,
            route: FEE,
            request: {
              method: 'POST',
              path: FEE,
              headers: [['host', host], ...originHeaders, ...json, ['authorization', `Bearer ${keys.sample}`]],
              body: '{}',
            },
          };
        default:
          return {
            ...base,
            route: OVERVIEW,
            request: {
              method: 'GET',
              path: OVERVIEW,
              headers: [['host', host], ...originHeaders, ['authorization', `Bearer ${keys.sample}`]],
            },
          };
      }
    });
}

/** The site's documentation pages (lib/site/pages.ts): answered as HTML or Markdown. */
export const SITE_PAGES = new Set(['/', '/docs', '/llms.txt', '/llms-full.txt']);

/** The routes the edge cases lean on, by name (their URLs are their files' paths). */
const FEE = calcPath('fee-calculator');
const OVERVIEW = fundPath('get_fund_overview');
const SERIES = fundPath('get_exposure_series');
const VAR = fundPath('get_value_at_risk');

export const OTHER_PATHS = [
  '/',
  '/api',
  '/api/v1/fund',
  '/api/v1/fund/',
  `${OVERVIEW}/`,
  '/api/v1/fund/nope',
  FEE.replace('/api/v1/calc/', '/api/v1/fund/../calc/'),
  FEE.replace('/api/v1/calc/', '/api/v1/fund/%2e%2e/calc/'),
  `${OVERVIEW}%00`,
  `${OVERVIEW};x=1`,
  OVERVIEW.replace('/fund/', '/FUND/'),
  `/${OVERVIEW}`,
  `${VAR}/x`,
  '/api/mcp/',
  '/api/mcp/public/',
  '/api/mcp/x',
  '/api/v1/openapi.json/x',
  '/api/v1/calc/',
  '/api/v1/calc/unknown',
  `${OVERVIEW}?%ZZ=1`,
  `${SERIES}?days=%E0%A4%A`,
];

/** Paths outside the route table, on the edges of it (trailing slashes, dot segments, encodings, case). */
export function otherPaths(keys: FuzzKeys): fc.Arbitrary<FuzzCase> {
  return fc
    .record({
      path: fc.constantFrom(...OTHER_PATHS),
      method: fc.constantFrom('GET', 'POST', 'HEAD', 'DELETE'),
      who: auth(keys, 'fund'),
      c: canary,
    })
    .map(
      ({ path, method, who, c }): FuzzCase => ({
        family: 'path',
        route: '(other path)',
        surface: SITE_PAGES.has(new URL(path, 'http://x').pathname)
          ? 'page'
          : new URL(path, 'http://x').pathname === '/api/mcp'
            ? 'mcp'
            : 'rest',
        request: {
          method,
          path: path.includes('?') ? `${path}&c=${c}` : `${path}?c=${c}`,
          headers: [...who.headers, ['content-type', 'application/json']],
          body: method === 'POST' ? '{}' : undefined,
        },
      }),
    );
}

/** Built once per process: the large payloads are shared by every case that sends them. */
export const BIG = {
  // Four times the sizes once measured at 3.6 s and 2.8 s; still far below the 1 MiB cap.
  digits: `{"reportText":"up ${'1'.repeat(262_144)}"}`,
  dots: `{"reportText":"${'.'.repeat(180_000)} x"}`,
  percent: `{"reportText":"${'-1'.repeat(30_000)}.%"}`,
  overCap: `{"reportText":"${'a'.repeat(1024 * 1024)}"}`,
  deepArray: `{"annualGrossReturnPctByYear":${'['.repeat(50_000)}${']'.repeat(50_000)}}`,
  deepObject: `{"navUsd":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`,
  hugeNumber: `{"horizonYears":${'9'.repeat(500_000)}}`,
  rows10000: JSON.stringify({ positionsCsv: csvOfRows('positionsCsv', 10_000) }),
  rows10001: JSON.stringify({ positionsCsv: csvOfRows('positionsCsv', 10_001) }),
  lpRows10001: JSON.stringify({ lpRowsCsv: csvOfRows('lpRowsCsv', 10_001) }),
  mcpDeep: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"x":${'['.repeat(50_000)}${']'.repeat(50_000)}}}}`,
};

/** Large and deep inputs: the grader's backtracking shapes, the 1 MiB cap, 10,000 and 10,001 CSV rows, deep nesting. */
export function big(keys: FuzzKeys): fc.Arbitrary<FuzzCase> {
  const calc = (slug: string, body: string, reject?: string, mcpArgs = false): FuzzCase => ({
    family: 'big',
    route: mcpArgs ? '/api/mcp/public' : calcPath(slug),
    surface: mcpArgs ? 'mcp' : 'rest',
    request: mcpArgs
      ? {
          method: 'POST',
          path: '/api/mcp/public',
          headers: [
            ['content-type', 'application/json'],
            ['accept', 'application/json, text/event-stream'],
            ['authorization', `Bearer ${keys.sample}`],
          ],
          body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"calc_${slug.replace(/-/g, '_')}","arguments":${body}}}`,
        }
      : {
          method: 'POST',
          path: calcPath(slug),
          headers: [
            ['content-type', 'application/json'],
            ['authorization', `Bearer ${keys.sample}`],
          ],
          body,
        },
    ...(reject ? { mustReject: reject } : {}),
  });
  return fc.oneof(
    fc.constantFrom(
      calc('lp-report-grader', BIG.digits),
      calc('lp-report-grader', BIG.dots),
      calc('lp-report-grader', BIG.percent),
      calc('lp-report-grader', BIG.digits, undefined, true),
      calc('lp-report-grader', BIG.overCap, 'a body over 1 MiB'),
      calc('fee-calculator', BIG.deepArray, 'a deeply nested value of the wrong type'),
      calc('exposure-analysis', BIG.deepObject, 'a deeply nested value of the wrong type'),
      calc('fee-calculator', BIG.hugeNumber, 'a number out of range'),
      calc('exposure-analysis', BIG.rows10000),
      calc('exposure-analysis', BIG.rows10001, 'a CSV of 10,001 rows'),
      calc('fund-health-check', BIG.rows10001, 'a CSV of 10,001 rows'),
      calc('nav-validator', BIG.lpRows10001, 'a CSV of 10,001 rows'),
      calc('exposure-analysis', BIG.rows10001, 'a CSV of 10,001 rows', true),
    ),
    fc.constant<FuzzCase>({
      family: 'big',
      route: '/api/mcp',
      surface: 'mcp',
      request: {
        method: 'POST',
        path: '/api/mcp',
        headers: [
          ['content-type', 'application/json'],
          ['authorization', `Bearer ${keys.sample}`],
        ],
        body: BIG.mcpDeep,
      },
    }),
  );
}
