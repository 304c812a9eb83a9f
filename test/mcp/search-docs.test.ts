/**
 * `search_docs` on the public MCP server: plain questions find the passages that answer them (the fee
 * calculator's hurdle rule, the VaR method), results carry absolute URLs on the serving origin that an agent
 * can fetch (an operation in the OpenAPI document, a section of a design note), one result per URL, calls
 * are not charged against the calculator quota, and bad arguments are refused without echoing them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../lib/service.ts';
import { searchDocsOutput } from '../../lib/mcp/public-server.ts';
import { SEARCH_INDEX_PATH, stem, terms } from '../../lib/docs/search.ts';
import { ROUTES } from '../../lib/registry.ts';
import { openApiDocument } from '../../lib/openapi.ts';
import { RESPONSE_EXAMPLES } from '../../lib/generated/examples.ts';
import { fakeEnv } from '../support/fakes.ts';
import { calcPath, fundPath } from '../support/declared.ts';

const app = createApp();
const ORIGIN = 'https://fund-edge.example';

function rpc(body: unknown, env = fakeEnv({ PUBLIC_ORIGIN: ORIGIN }).env) {
  return app.request(
    `${ORIGIN}/api/mcp/public`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'cf-connecting-ip': '192.0.2.7' },
      body: JSON.stringify(body),
    },
    env,
  );
}
const call = (name: string, args: unknown, id = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

type Hit = { title: string; url: string; text: string; score: number };

async function search(query: string, limit?: number, env = fakeEnv({ PUBLIC_ORIGIN: ORIGIN }).env): Promise<Hit[]> {
  const res = await rpc(call('search_docs', limit === undefined ? { query } : { query, limit }), env);
  expect(res.status).toBe(200);
  const { result } = (await res.json()) as {
    result: { isError?: boolean; structuredContent: { results: Hit[] }; content: { text: string }[] };
  };
  expect(result.isError).toBeUndefined();
  expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);
  return searchDocsOutput().parse(result.structuredContent).results;
}

// First in the file: the index is loaded once per isolate, so this must run before any search succeeds.
describe('search_docs without its index', () => {
  it('answers a generic internal_error result when the assets binding is missing, and loads on the next call', async () => {
    const { env } = fakeEnv({ PUBLIC_ORIGIN: ORIGIN });
    delete (env as { ASSETS?: unknown }).ASSETS;
    const res = await rpc(call('search_docs', { query: 'fees' }), env);
    const { result } = (await res.json()) as { result: { isError: boolean; content: { text: string }[] } };
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0]!.text)).toMatchObject({ code: 'internal_error' });
    expect(result.content[0]!.text).not.toMatch(/ASSETS|binding/);
    expect((await search('fees')).length).toBeGreaterThan(0);
  });
});

describe('search_docs answers plain questions', () => {
  it('"how is the performance fee computed here?" leads to the fee calculator and its hurdle rule', async () => {
    const hits = await search('how is the performance fee computed here?');
    expect(hits[0]!.url).toBe(`${ORIGIN}/docs/design/calculators.md#fee-calculator`);
    const text = hits
      .slice(0, 2)
      .map((h) => h.text)
      .join('\n');
    expect(text).toContain('fee = p·max(0, X − H) (hard) | p·X if X > H else 0 (soft)');
    expect(text).toMatch(/high-water mark/i);
  });

  it('"what is the hurdle rule of the fee calculator?" finds the hard and soft hurdle', async () => {
    const [top] = await search('what is the hurdle rule of the fee calculator?', 1);
    expect(top!.url).toBe(`${ORIGIN}${operationUrl(calcPath('fee-calculator'), 'post')}`);
    expect(top!.text).toMatch(/hard.*soft|soft.*hard/s);
  });

  it('"which VaR method is used?" finds the value-at-risk method (delta-normal, EWMA)', async () => {
    const [top] = await search('which VaR method is used?', 1);
    expect(top!.url).toBe(`${ORIGIN}${operationUrl(fundPath('get_value_at_risk'), 'get')}`);
    expect(top!.text).toContain('Parametric (delta-normal) VaR');
    expect(top!.text).toContain('RiskMetrics 1996, λ = 0.94');
  });

  it('returns at most `limit` passages, best first, and none for words the docs do not hold', async () => {
    const hits = await search('demo key', 3);
    expect(hits).toHaveLength(3);
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
    expect(hits.every((h) => h.url.startsWith(`${ORIGIN}/`))).toBe(true);
    expect(await search('zzyzxqv')).toEqual([]);
  });
});

/** The URL of an operation in the OpenAPI document: a JSON pointer (RFC 6901) in the fragment. */
function operationUrl(path: string, method: string): string {
  return `/api/v1/openapi.json#/paths/${path.replaceAll('~', '~0').replaceAll('/', '~1')}/${method}`;
}

/** The value a JSON pointer (RFC 6901) names in a document, or undefined. */
function atPointer(doc: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .map((t) => decodeURIComponent(t).replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>((node, token) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[token] : undefined), doc);
}

/** GitHub-style slugs of a Markdown page's headings (outside code blocks), as the build names its sections. */
function headingSlugs(markdown: string): Set<string> {
  const out = new Set<string>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inFence = !inFence;
    const m = !inFence && /^#{1,3} (.+)$/.exec(line);
    if (m)
      out.add(
        m[1]!
          .toLowerCase()
          .replace(/[^\p{L}\p{N}\s-]/gu, '')
          .trim()
          .replace(/\s+/g, '-'),
      );
  }
  return out;
}

describe('search_docs links what an agent can read, once each', () => {
  const stored = JSON.parse(readFileSync(`public${SEARCH_INDEX_PATH}`, 'utf8')) as {
    storedFields: Record<string, { title: string; url: string; excerpt: string }>;
  };
  const passages = Object.values(stored.storedFields);
  const doc = openApiDocument(ROUTES, ORIGIN, RESPONSE_EXAMPLES);

  it('every passage points at an operation of the OpenAPI document or a section of a published page, never at /docs#/', () => {
    expect(passages.length).toBeGreaterThan(100);
    for (const { url } of passages) {
      expect(url, url).not.toMatch(/^\/docs#/);
      const [path, fragment = ''] = url.split('#');
      if (path === '/api/v1/openapi.json') {
        expect(atPointer(doc, fragment), url).toMatchObject({ operationId: expect.any(String) });
      } else if (path!.startsWith('/docs/design/')) {
        const file = `public${path}`;
        expect(existsSync(file), url).toBe(true);
        if (fragment) expect(headingSlugs(readFileSync(file, 'utf8')), url).toContain(fragment);
      } else {
        expect(url).toBe('/');
      }
    }
  });

  it('no passage keeps an empty link, `([])`, where a reference to a design note was', () => {
    for (const { title, excerpt, url } of passages) {
      expect(`${title}\n${excerpt}`, url).not.toMatch(/\[\]\(|\(\[\]\)/);
      // A link to another design note is absolute on the serving origin (filled in per search).
      for (const [, target] of excerpt.matchAll(/\]\(([^)\s]+)\)/g)) expect(target, url).toMatch(/^(https?:|\{\{origin\}\}\/|#)/);
    }
  });

  it.each([
    'fee calculator',
    'how is the performance fee computed here?',
    'high-water mark hurdle',
    'deploy',
    'demo key',
    'nav run',
    'value at risk',
  ])('"%s": no URL twice, and the origin filled in', async (query) => {
    const hits = await search(query, 10);
    expect(hits.length).toBeGreaterThan(3);
    expect(new Set(hits.map((h) => h.url)).size).toBe(hits.length);
    for (const hit of hits) expect(hit.text).not.toContain('{{origin}}');
  });

  it("an operation's passage shows its curl example on the serving origin", async () => {
    const [top] = await search('fund overview latest NAV share classes', 1);
    expect(top!.url).toBe(`${ORIGIN}${operationUrl(fundPath('get_fund_overview'), 'get')}`);
    expect(top!.text).toContain(`curl -s '${ORIGIN}${fundPath('get_fund_overview')}'`);
  });
});

describe('search_docs and the calculator quota', () => {
  it('is not charged: no quota write, no burst count, no RateLimit headers', async () => {
    const { env, RATE_LIMITS, CALC_BURST } = fakeEnv({ PUBLIC_ORIGIN: ORIGIN });
    const res = await rpc(call('search_docs', { query: 'fees' }), env);
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit')).toBeNull();
    expect(RATE_LIMITS.puts).toEqual([]);
    expect(CALC_BURST.counts.size).toBe(0);
  });

  it('a batch with a calculator call and search_docs is charged one call', async () => {
    const { env, RATE_LIMITS } = fakeEnv({ PUBLIC_ORIGIN: ORIGIN });
    const res = await rpc([call('search_docs', { query: 'fees' }, 1), call('calc_operating_cost_calculator', {}, 2)], env);
    expect(res.status).toBe(200);
    expect(RATE_LIMITS.puts.map((p) => p.value)).toEqual(['1']);
  });
});

describe('search_docs refuses bad arguments without echoing them', () => {
  it.each([
    ['a query over 200 characters', { query: `SECRET${'x'.repeat(200)}` }, '/arguments/query'],
    ['an empty query', { query: '   ' }, '/arguments/query'],
    ['a limit over 10', { query: 'fees', limit: 11 }, '/arguments/limit'],
    ['an unknown argument', { query: 'fees', SECRET: 1 }, '/arguments/SECRET'],
  ])('%s', async (_label, args, pointer) => {
    const res = await rpc(call('search_docs', args));
    const { result } = (await res.json()) as { result: { isError: boolean; content: { text: string }[] } };
    expect(result.isError).toBe(true);
    const problem = JSON.parse(result.content[0]!.text) as { code: string; errors: { pointer: string }[] };
    expect(problem.code).toBe('invalid_request');
    expect(problem.errors.map((e) => e.pointer)).toContain(pointer);
    expect(result.content[0]!.text.replace('/arguments/SECRET', '')).not.toContain('SECRET');
  });
});

describe('terms', () => {
  it('drops stop words, stems, and adds neighbouring pairs', () => {
    expect(terms('How is the Performance fee computed?')).toEqual(['performance', 'fee', 'comput', 'performance_fee', 'fee_comput']);
    expect(stem('fees')).toBe('fees');
    expect(stem('liabilities')).toBe('liability');
    expect(stem('class')).toBe('class');
  });

  it('runs in linear time on the largest query (a 200-character word)', () => {
    expect(terms('a'.repeat(200))).toEqual(['a'.repeat(200)]);
  });
});
