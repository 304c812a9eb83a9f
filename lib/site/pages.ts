/**
 * The way in for a reader of a deployed service: the home page `/`, the interactive API reference `/docs`,
 * and `/llms.txt` and `/llms-full.txt` (the llms.txt convention). See docs/documentation.md.
 *
 * - Everything is same-origin: the pages load only this Worker's stylesheet and scripts, under a
 *   Content-Security-Policy that allows nothing else (no inline script or style, no third-party origin).
 * - `/docs` is Swagger UI (`swagger-ui-dist`, vendored by `scripts/build-docs.ts` into `public/docs/assets/`,
 *   served by wrangler's static assets) rendering `/api/v1/openapi.json`; "try it" calls the same origin.
 * - The llms files are generated at build time from the declarations and `docs/` (`scripts/build-docs.ts`)
 *   and handed in by the composition root; `{{origin}}` in them becomes the serving origin.
 * - `/api/v1/` is the REST API's index of links (lib/site/api-index.ts), built from the route table.
 * - The MCP registry's `server.json` of each MCP server (lib/mcp/server-json.ts) is served with the
 *   deployment's URLs, for `mcp-publisher` (docs/mcp.md#listing-the-servers-in-the-mcp-registry).
 * - The pages are not API operations: they are not in the route table or the OpenAPI document.
 */
import type { Context, Hono } from 'hono';
import { html } from 'hono/html';
import { secureHeaders } from 'hono/secure-headers';
import type { AppEnv } from '../env.ts';
import { DEMO_API_KEY } from '../keys.ts';
import type { Catalog } from '../endpoint.ts';
import { quickstartCalls } from '../catalog.ts';
import { DOCS_CSS, SITE_CSS, SWAGGER_INIT_JS } from './assets.ts';
import { originPolicy, publicOrigin } from '../origin.ts';
import { API_INDEX_PATHS, apiIndex } from './api-index.ts';
import type { McpUrls } from '../mcp/clients.ts';
import { mcpServerPaths } from '../mcp/endpoint.ts';
import { REGISTRY_PATHS, serverJson, serverJsonText } from '../mcp/server-json.ts';
import { clientsSection } from './clients-section.ts';
import { llmsFullTemplate } from './llms-full.ts';
import { issuerOf } from '../oauth/provider.ts';
import { CONSOLE_PATH } from '../identity.ts';

type Directives = Record<string, string[]>;

/** CSP of the home page: its own stylesheet, nothing else. */
export const HOME_CSP: Directives = {
  defaultSrc: ["'none'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'"],
  baseUri: ["'none'"],
  formAction: ["'none'"],
  frameAncestors: ["'none'"],
};

/**
 * CSP of `/docs`: Swagger UI's script and stylesheet from this origin, its `fetch` of the OpenAPI document
 * and "try it" calls to this origin, and the `data:` icons its stylesheet embeds. No inline script, no
 * third-party origin (the spec validator badge, which would call validator.swagger.io, is turned off).
 */
export const DOCS_CSP: Directives = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  fontSrc: ["'self'"],
  connectSrc: ["'self'"],
  baseUri: ["'none'"],
  formAction: ["'none'"],
  frameAncestors: ["'none'"],
};

/** CSP of the text files and the page assets: nothing may load from them. */
export const TEXT_CSP: Directives = { defaultSrc: ["'none'"], frameAncestors: ["'none'"] };

/** Security headers of a page (hono's secure-headers middleware with the page's CSP). */
function pageHeaders(csp: Directives) {
  return secureHeaders({
    contentSecurityPolicy: csp,
    crossOriginEmbedderPolicy: false,
    crossOriginResourcePolicy: 'same-origin',
    referrerPolicy: 'no-referrer',
    strictTransportSecurity: 'max-age=31536000; includeSubDomains',
  });
}

/** A page's HTML; `stylesheets` are its own (the home page's by default; `/docs` has Swagger UI's and its own, not the home page's, whose rules would reach into Swagger UI's markup). */
const page = (
  title: string,
  body: ReturnType<typeof html>,
  stylesheets: ReturnType<typeof html> = html`<link rel="stylesheet" href="/site.css">`,
) => html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<meta name="description" content="Fund data, fund-operations calculators and MCP servers for AI agents, on one Cloudflare Worker.">
${stylesheets}
</head>
${body}
</html>`;

/**
 * What the site shows besides its own text: the declarations (for the quick starts), the route table (for
 * the API index) and the llms files.
 */
export interface SiteContent {
  catalog: Pick<Catalog, 'routes' | 'calculators' | 'fundTools'>;
  /** `llms.txt` as the build wrote it, with `{{origin}}` for the serving origin (`llms-full.txt` is an asset: lib/site/llms-full.ts). */
  llms: { index: string };
}

/** The MCP servers' absolute URLs at `origin`, from the route table (none is written out). */
export function mcpUrls(origin: string, routes: Catalog['routes']): McpUrls {
  const paths = mcpServerPaths(routes);
  return { public: `${origin}${paths.public ?? ''}`, fund: `${origin}${paths.fund ?? ''}` };
}

/** The home page: what the service is, its three surfaces, the demo key, the docs, quick starts, and each MCP client's setup. */
function homePage(origin: string, catalog: SiteContent['catalog']) {
  const start = quickstartCalls(catalog);
  const urls = mcpUrls(origin, catalog.routes);
  return page(
    'fund-edge: fund data, calculators and MCP servers',
    html`<body>
<main>
<h1>fund-edge</h1>
<p class="lead">Fund data, fund-operations calculators and Model Context Protocol servers for AI agents. Fund data is read-only and redacted; calculators are stateless and need no key.</p>
<nav aria-label="Documentation">
<ul class="links">
<li><a href="/docs">API reference</a> (interactive, try it)</li>
<li><a href="/developers/console">Developer console</a> (keys and usage)</li>
<li><a href="/api/v1/openapi.json">OpenAPI 3.1 document</a></li>
<li><a href="/llms.txt">llms.txt</a> and <a href="/llms-full.txt">llms-full.txt</a> (for LLMs)</li>
</ul>
</nav>
<h2>Three ways in</h2>
<table>
<thead><tr><th>Surface</th><th>URL</th><th>Key</th></tr></thead>
<tbody>
<tr><td>REST API: fund data (GET) and calculators (POST)</td><td><code>${origin}/api/v1/</code></td><td>fund data: Bearer key; calculators: none</td></tr>
<tr><td>Public MCP server: the calculators and <code>search_docs</code></td><td><code>${urls.public}</code></td><td>none</td></tr>
<tr><td>Fund MCP server: one read-only tool per fund-data endpoint</td><td><code>${urls.fund}</code></td><td>OAuth sign-in, or a fund key</td></tr>
</tbody>
</table>
<h2>Demo key</h2>
<p>The published demo key reads a synthetic fund (no real data) on the REST fund-data endpoints: <code>${DEMO_API_KEY}</code></p>
<h2>Quick start</h2>
<h3>Calculators (no key)</h3>
<pre><code>curl -s -X POST ${origin}${start.calculator?.path} \\
  -H 'content-type: application/json' \\
  -d '${JSON.stringify(start.calculator?.example ?? {})}'</code></pre>
<h3>Fund data (demo key)</h3>
<pre><code>curl -s ${origin}${start.fundPath} \\
  -H 'authorization: Bearer ${DEMO_API_KEY}'</code></pre>
${clientsSection(urls, { heading: { level: 2, text: 'Connect an MCP client' } })}
<p>Listing the servers in a registry: <a href="${REGISTRY_PATHS.public}">the calculators' server.json</a> and <a href="${REGISTRY_PATHS.fund}">the fund server's</a> (MCP registry format).</p>
<h2>Good to know</h2>
<ul>
<li>Errors are RFC 9457 <code>application/problem+json</code> with a stable <code>code</code>.</li>
<li>Calculators: 500 calls per UTC day without a key; results are illustrative estimates, not advice.</li>
<li>Fund data: money and quantities are exact decimal strings in the fund's base currency.</li>
</ul>
</main>
</body>`,
  );
}

/** `/docs`: Swagger UI over the OpenAPI document, scripts and styles from this origin only. */
function docsPage() {
  return page(
    'fund-edge API reference',
    html`<body>
<noscript><p>The interactive reference needs JavaScript. Read <a href="/llms-full.txt">llms-full.txt</a> or <a href="/api/v1/openapi.json">the OpenAPI document</a> instead.</p></noscript>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>`,
    html`<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="stylesheet" href="/docs/docs.css">`,
  );
}

/** Mounts the pages on the app (before the API routes; none of these paths is an API path). */
export function mountSite(app: Hono<AppEnv>, content: SiteContent): void {
  // Pages and files that name no origin are cached five minutes.
  const cached = { 'Cache-Control': 'public, max-age=300' };
  const textFile = (type: string) => ({ ...cached, 'Content-Type': type });
  // Those whose absolute URLs name the origin: cached only when PUBLIC_ORIGIN names it. Without it (local
  // development, or a deployment not yet configured) the URLs are the request's own Host, which a client
  // chooses: such an answer is `no-store`, so no cache keeps one client's Host for another.
  const originHeaders = (c: Context<AppEnv>, type?: string): Record<string, string> => ({
    'Cache-Control': originPolicy(c.env).publicOrigin ? 'public, max-age=300' : 'no-store',
    ...(type ? { 'Content-Type': type } : {}),
  });

  app.get('/', pageHeaders(HOME_CSP), (c) => c.html(homePage(publicOrigin(c), content.catalog), 200, originHeaders(c)));
  app.get('/docs', pageHeaders(DOCS_CSP), (c) => c.html(docsPage(), 200, cached));
  app.get('/docs/', (c) => c.redirect('/docs', 301));
  app.get('/docs/init.js', pageHeaders(TEXT_CSP), (c) => c.body(SWAGGER_INIT_JS, 200, textFile('text/javascript; charset=utf-8')));
  app.get('/docs/docs.css', pageHeaders(TEXT_CSP), (c) => c.body(DOCS_CSS, 200, textFile('text/css; charset=utf-8')));
  app.get('/site.css', pageHeaders(TEXT_CSP), (c) => c.body(SITE_CSS, 200, textFile('text/css; charset=utf-8')));
  // The MCP registry's description of each server (lib/mcp/server-json.ts), with this deployment's URLs.
  for (const server of ['public', 'fund'] as const) {
    app.get(REGISTRY_PATHS[server], pageHeaders(TEXT_CSP), (c) => {
      const origin = publicOrigin(c);
      const document = serverJson(server, origin, mcpUrls(origin, content.catalog.routes), `${issuerOf(c)}${CONSOLE_PATH}`);
      return c.body(serverJsonText(document), 200, originHeaders(c, 'application/json; charset=utf-8'));
    });
  }
  app.get('/llms.txt', pageHeaders(TEXT_CSP), (c) =>
    c.body(content.llms.index.replaceAll('{{origin}}', publicOrigin(c)), 200, originHeaders(c, 'text/markdown; charset=utf-8')),
  );
  app.get('/llms-full.txt', pageHeaders(TEXT_CSP), async (c) => {
    const template = await llmsFullTemplate(c.env.ASSETS);
    return c.body(template.replaceAll('{{origin}}', publicOrigin(c)), 200, originHeaders(c, 'text/markdown; charset=utf-8'));
  });
  // The REST API's index of links, the URL the home page gives for the REST surface (lib/site/api-index.ts).
  for (const path of API_INDEX_PATHS)
    app.get(path, (c) => c.body(JSON.stringify(apiIndex(content.catalog, publicOrigin(c))), 200, originHeaders(c, 'application/json')));
}
