/**
 * The documentation pages through the app: the home page, `/docs`, `/llms.txt` and `/llms-full.txt` answer
 * with the right content types and security headers, and say what a newcomer needs (surfaces, URLs, demo key,
 * links); the llms files cover every operation and carry no internal references.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UNKNOWN_PATH_DETAIL, createApp } from '../lib/service.ts';
import { eachLine, published } from '../scripts/doc-text.ts';
import { publishedPage } from '../scripts/doc-sections.ts';
import { ROUTES } from '../lib/registry.ts';
import { DEMO_API_KEY } from '../lib/keys.ts';
import { feeCalculator } from '../lib/calculators/fee-calculator.ts';
import { fakeEnv } from './support/fakes.ts';
import { calcPath, fundPath } from './support/declared.ts';
import { clientSetups } from '../lib/mcp/clients.ts';
import { mcpServerPaths } from '../lib/mcp/endpoint.ts';
import { REGISTRY_PATHS } from '../lib/mcp/server-json.ts';

const app = createApp();
const ORIGIN = 'https://fund-edge.example';
const get = (path: string) => app.request(`${ORIGIN}${path}`, {}, fakeEnv().env);

/** The CSP header as directive → sources. */
function csp(res: Response): Map<string, string[]> {
  const header = res.headers.get('content-security-policy') ?? '';
  return new Map(
    header
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name!, sources]),
  );
}

/** Every source a CSP allows is this origin, none, or (images only) data:. */
function expectSameOriginOnly(res: Response) {
  const policy = csp(res);
  expect(policy.get('default-src')).toEqual(["'none'"]);
  for (const [name, sources] of policy) {
    for (const source of sources)
      expect([`'none'`, `'self'`, ...(name === 'img-src' ? ['data:'] : [])], `${name} ${source}`).toContain(source);
  }
  expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
}

describe('GET /', () => {
  it('is HTML under a CSP that loads nothing from another origin', async () => {
    const res = await get('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=UTF-8');
    expectSameOriginOnly(res);
    expect(csp(res).get('script-src')).toBeUndefined();
    expect(res.headers.get('strict-transport-security')).toMatch(/^max-age=\d+/);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('names the three surfaces with their URLs, the demo key and the docs', async () => {
    const html = await (await get('/')).text();
    for (const url of [`${ORIGIN}/api/v1/`, `${ORIGIN}/api/mcp/public`, `${ORIGIN}/api/mcp<`]) expect(html).toContain(url);
    expect(html).toContain(DEMO_API_KEY);
    for (const href of ['/docs', '/developers/console', '/api/v1/openapi.json', '/llms.txt', '/llms-full.txt'])
      expect(html).toContain(`href="${href}"`);
    expect(html).toContain('name="viewport"');
    // The quick start posts the fee calculator's declared example (HTML-escaped in the page).
    expect(html).toContain(`-d '${JSON.stringify(feeCalculator.example).replaceAll('"', '&quot;')}'`);
    expect(html).not.toMatch(/<script|style=|https?:\/\/(?!fund-edge\.example)[a-z]/);
  });
});

describe('the MCP client setups on the home page', () => {
  /** HTML-escaped as the page writes text and attribute values. */
  const escaped = (text: string) =>
    text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
  const paths = mcpServerPaths(ROUTES);
  const urls = { public: `${ORIGIN}${paths.public}`, fund: `${ORIGIN}${paths.fund}` };

  it("show every client's snippet for each way in, from lib/mcp/clients.ts, at the route table's URLs", async () => {
    const html = await (await get('/')).text();
    expect(html).toContain('Connect an MCP client');
    for (const setup of clientSetups(urls)) {
      expect(html).toContain(`<details data-client="${setup.id}">`);
      for (const snippet of setup.snippets) {
        expect(html).toContain(`<code data-setup="${setup.id}:${snippet.variant}">${escaped(snippet.text)}</code>`);
        if (snippet.link) expect(html).toContain(`href="${escaped(snippet.link)}"`);
      }
    }
  });

  it.each([
    ['public', 'calculators'],
    ['fund', 'fund-data'],
  ] as const)("serves the %s server's server.json with this deployment's URLs, linked from the page", async (server, suffix) => {
    const res = await get(REGISTRY_PATHS[server]);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const doc = (await res.json()) as { name: string; remotes: { url: string }[] };
    expect(doc.name).toBe(`example.fund-edge/${suffix}`);
    expect(doc.remotes[0]!.url).toBe(urls[server]);
    expect(await (await get('/')).text()).toContain(`href="${REGISTRY_PATHS[server]}"`);
  });
});

describe('GET /docs', () => {
  it('is HTML loading Swagger UI from this origin only, with no inline script', async () => {
    const res = await get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=UTF-8');
    expectSameOriginOnly(res);
    expect(csp(res).get('script-src')).toEqual(["'self'"]);
    const html = await res.text();
    expect(html).toContain('<script src="/docs/assets/swagger-ui-bundle.js"></script>');
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/);
  });

  it('serves the start script, which turns the third-party validator off', async () => {
    const res = await get('/docs/init.js');
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const js = await res.text();
    expect(js).toContain("url: '/api/v1/openapi.json'");
    expect(js).toContain('validatorUrl: null');
  });
});

describe('llms.txt', () => {
  it('/llms.txt is Markdown with the origin filled in, linking the full file and every operation', async () => {
    const res = await get('/llms.txt');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expectSameOriginOnly(res);
    const text = await res.text();
    expect(text).toMatch(/^# fund-edge\n\n> /);
    expect(text).not.toContain('{{origin}}');
    expect(text).toContain(`(${ORIGIN}/llms-full.txt)`);
    // Each operation links to its object in the OpenAPI document (a JSON pointer), which an agent can fetch.
    for (const route of ROUTES)
      for (const method of Object.keys(route.endpoint.methods))
        expect(text, route.path).toContain(
          ` ${route.path}](${ORIGIN}/api/v1/openapi.json#/paths/${route.path.replaceAll('/', '~1')}/${method.toLowerCase()})`,
        );
    expect(text).not.toContain('/docs#/');
  });

  it('/llms-full.txt documents every operation with an example and the formulas, and cites no internal document', async () => {
    const res = await get('/llms-full.txt');
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const text = await res.text();
    for (const route of ROUTES) {
      for (const method of Object.keys(route.endpoint.methods)) expect(text, route.path).toContain(`### ${method} ${route.path}: `);
    }
    expect(text).toContain(`curl -s '${ORIGIN}${fundPath('get_fund_overview')}' -H 'authorization: Bearer ${DEMO_API_KEY}'`);
    expect(text).toContain('fee = p·max(0, X − H) (hard)');
    // A section reference into a document the reader does not have, joined from its words here so that no
    // line of the repository reads as one; and an unfilled origin placeholder.
    for (const document of ['contract', 'spec']) expect(text).not.toContain([document, '§'].join(' '));
    expect(text).not.toContain('{{origin}}');
  });
});

describe('llms-full.txt keeps the pages it quotes intact', () => {
  const pages = ['README.md', ...readdirSync('docs').filter((f) => f.endsWith('.md') && f !== 'README.md')];
  /** The lines inside fenced code blocks of a Markdown text that start with `#`. */
  const fencedHashLines = (markdown: string) => {
    const out: string[] = [];
    eachLine(markdown, (line, inFence) => {
      if (inFence && line.startsWith('#')) out.push(line);
      return line;
    });
    return out;
  };

  it("keeps the shell comments of every page's code blocks as comments, not headings", async () => {
    const text = await (await get('/llms-full.txt')).text();
    const quoted = fencedHashLines(text);
    const asPublished = (page: string) => {
      const path = page === 'README.md' ? page : `docs/${page}`;
      return published(publishedPage(path, readFileSync(path, 'utf8')), `${ORIGIN}/docs/design/`, new Set(pages));
    };
    const expected = pages.flatMap((page) => fencedHashLines(asPublished(page)));
    expect(expected.length).toBeGreaterThan(5);
    for (const line of expected) expect(quoted, line).toContain(line);
    // No code line gained a `#`: every `#` line in a fence is one of the pages'.
    for (const line of quoted) expect(expected, line).toContain(line);
  });

  it('leaves no empty link where a reference to a design note was, and links the notes where they are served', async () => {
    const text = await (await get('/llms-full.txt')).text();
    expect(text).not.toMatch(/\[\]\(|\(\[\]\)|\| \[\] \|/);
    expect(text).toContain(`[docs/import.md](${ORIGIN}/docs/design/import.md)`);
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) expect(target).toMatch(/^(https?:\/\/|#)/);
  });
});

describe('GET /api/v1/: the REST API index', () => {
  type Index = {
    links: Record<string, string>;
    operations: { method: string; href: string; summary: string; tag: string; key: string; mcpTool?: string; reference: string }[];
  };

  it('answers the URL the home page gives for the REST API with links to every operation and the docs', async () => {
    const home = await (await get('/')).text();
    expect(home).toContain(`<code>${ORIGIN}/api/v1/</code>`);
    for (const path of ['/api/v1/', '/api/v1']) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      const index = (await res.json()) as Index;
      const listed = index.operations.map((o) => `${o.method} ${o.href}`).sort();
      const declared = ROUTES.flatMap((r) => Object.keys(r.endpoint.methods).map((m) => `${m} ${ORIGIN}${r.path}`)).sort();
      expect(listed).toEqual(declared);
      expect(index.links).toEqual({
        home: `${ORIGIN}/`,
        openapi: `${ORIGIN}/api/v1/openapi.json`,
        docs: `${ORIGIN}/docs`,
        llmsTxt: `${ORIGIN}/llms.txt`,
        llmsFullTxt: `${ORIGIN}/llms-full.txt`,
        console: `${ORIGIN}/developers/console`,
      });
    }
  });

  it('says which operations need a key, which MCP tool does the same, and where each is described', async () => {
    const index = (await (await get('/api/v1/')).json()) as Index;
    const overview = index.operations.find((o) => o.href === `${ORIGIN}${fundPath('get_fund_overview')}`)!;
    expect(overview).toMatchObject({ method: 'GET', tag: 'Fund data', key: 'required', mcpTool: 'get_fund_overview' });
    const fee = index.operations.find((o) => o.href === `${ORIGIN}${calcPath('fee-calculator')}`)!;
    expect(fee).toMatchObject({ method: 'POST', tag: 'Calculators', key: 'optional', mcpTool: 'calc_fee_calculator' });
    const doc = (await (await get('/api/v1/openapi.json')).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    for (const op of index.operations) {
      const [, pointer] = op.reference.split('#');
      const [, , path, method] = pointer!.split('/');
      expect(op.reference.startsWith(`${ORIGIN}/api/v1/openapi.json#/paths/`)).toBe(true);
      expect(doc.paths[path!.replaceAll('~1', '/')]?.[method!], op.reference).toBeDefined();
    }
  });
});

describe('a path the service does not serve', () => {
  it.each(['/api', '/api/v1/nope', '/.well-known/mcp'])('%s is a 404 problem pointing at the API index and /docs', async (path) => {
    const res = await get(path);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const body = (await res.json()) as { code: string; detail: string };
    expect(body.code).toBe('not_found');
    expect(body.detail).toBe(UNKNOWN_PATH_DETAIL);
    expect(body.detail).toContain('GET /api/v1/ lists every API operation');
    expect(body.detail).not.toMatch(/\(\/\) lists/);
  });

  it('a route with a trailing slash is a 404 that names the route without it', async () => {
    for (const route of ROUTES) {
      const res = await app.request(`${ORIGIN}${route.path}/`, { method: Object.keys(route.endpoint.methods)[0]! }, fakeEnv().env);
      expect(res.status, route.path).toBe(404);
      const body = (await res.json()) as { detail: string };
      expect(body.detail).toBe(`No resource exists at this path: the route is ${route.path}, without the trailing slash.`);
    }
    // Only a declared route is named: an unknown path with a slash gets the general answer.
    const other = (await (await get('/api/v1/fund/nope/')).json()) as { detail: string };
    expect(other.detail).toBe(UNKNOWN_PATH_DETAIL);
  });
});
