/**
 * The generated sections of the README and the `docs/` pages: what stands between
 * `<!-- generated:NAME -->` and `<!-- /generated:NAME -->` is written from the declarations, so that adding,
 * renaming or changing an endpoint needs no page edited by hand. `npm run build` (scripts/build-docs.ts)
 * rewrites them; `test/doc-sections.test.ts` fails when a committed page is not current.
 *
 * Sections:
 * - `README.md` `quickstart`: one call on each surface (the fund overview with the demo key, the fee
 *   calculator, a `tools/call` on the public MCP server), at the URLs their files give them;
 * - `README.md` `mcp-servers`: each MCP server, its URL, its key rule and its tools (the fund server's named,
 *   the calculators' by their pattern, so that adding a calculator changes no committed page);
 * - `README.md` `mcp-clients` and `docs/mcp.md` `mcp-clients`: the MCP clients' setups (lib/mcp/clients.ts, as
 *   the home page and the console show them), Claude Code's in the README and every client's in docs/mcp.md,
 *   for `npm run dev`'s URLs from the route table;
 * - `docs/console.md` `console-key-call`: the first call with a console key (the fee calculator's URL);
 * - `docs/oauth.md` `oauth-fund-call`: a fund-data call with an OAuth access token (the fund overview's URL);
 * - `docs/fund-data.md` `fund-examples`: a call of every fund-data endpoint on its declared example;
 * - `docs/fund-data.md` `fund-parameters`: every fund-data path and its query parameters (default and bounds
 *   from the schema);
 * - `docs/import.md` `import-columns`: the columns of every file of a fund bundle, from the table descriptors
 *   (operator/bundle/format.ts).
 *
 * Published sections are written only into the pages the service publishes (`/docs/design/`, `/llms-full.txt`,
 * the search index; scripts/build-docs.ts), never into the committed page, whose markers hold a line saying
 * where to read them: a committed page names no calculator, so adding one is its three files and changes no
 * page, and renaming one changes its URL and nothing else.
 * - `docs/calculators.md` `calculator-examples`: a call of every calculator on its declared example.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CALCULATORS, FUND_TOOLS } from '../lib/generated/declarations.ts';
import { toolName } from '../lib/calculators/definition.ts';
import { DEMO_API_KEY } from '../lib/keys.ts';
import { jsonSchema } from '../lib/json-schema.ts';
import { columnTables } from '../operator/bundle/format.ts';
import { ROUTES } from '../lib/generated/routes.ts';
import { mcpServerPaths } from '../lib/mcp/endpoint.ts';
import { clientSetups, VARIANT_TITLES, type McpUrls } from '../lib/mcp/clients.ts';

type Json = Record<string, unknown>;

const ROOT = join(import.meta.dirname, '..');
const code = (text: string) => `\`${text}\``;

/** `1..366`, `0.95 or 0.99`, `` `sample` or `ewma` ``: the bounds a parameter's JSON Schema sets. */
function bounds(schema: Json): string | null {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => (typeof v === 'string' ? code(v) : String(v))).join(' or ');
  if (typeof schema.minimum === 'number' && typeof schema.maximum === 'number') return `${schema.minimum}..${schema.maximum}`;
  if (schema.pattern === '^\\d{4}-\\d{2}-\\d{2}$') return code('YYYY-MM-DD');
  return null;
}

/** One parameter as the table shows it: `` `days` (30; 1..366) ``, `` `date` (required, `YYYY-MM-DD`) ``. */
function parameterCell(name: string, schema: Json, required: boolean): string {
  const shape = bounds(schema);
  // Without a schema default, the description may say what stands in (`...; default the latest usable run`).
  const described = typeof schema.description === 'string' ? /; default ([^.;]+)/.exec(schema.description)?.[1] : undefined;
  const first = required
    ? 'required'
    : 'default' in schema
      ? typeof schema.default === 'string'
        ? code(schema.default)
        : String(schema.default)
      : (described ?? 'optional');
  return `${code(name)} (${[first, shape].filter(Boolean).join(required ? ', ' : '; ')})`;
}

/** The fund-data parameter table: paths without parameters in one row, then one row per path with some. */
export function fundParametersTable(): string {
  const none: string[] = [];
  const rows: string[] = [];
  for (const tool of FUND_TOOLS) {
    const schema = jsonSchema(tool.query, 'input');
    const properties = (schema.properties ?? {}) as Record<string, Json>;
    const required = new Set((schema.required ?? []) as string[]);
    const names = Object.keys(properties);
    if (names.length === 0) none.push(code(tool.path));
    else rows.push(`| ${code(tool.path)} | ${names.map((n) => parameterCell(n, properties[n]!, required.has(n))).join(', ')} |`);
  }
  return [
    '| path | parameters (default; bounds) |',
    '|---|---|',
    ...(none.length ? [`| ${none.join(', ')} | none (any parameter is a 400) |`] : []),
    ...rows,
  ].join('\n');
}

/** The MCP servers table: URL, key rule and tools of each server. */
export function mcpServersTable(): string {
  const paths = mcpServerPaths(ROUTES);
  const fundTools = FUND_TOOLS.map((t) => code(t.tool)).join(', ');
  return [
    '| server | URL | key | tools |',
    '|---|---|---|---|',
    `| public | ${code(`POST ${paths.public}`)} | none (an optional key raises the quota) | one ${code('calc_<name>')} per calculator, with the REST body as arguments; and ${code('search_docs')} (the documentation, not counted against the quota) |`,
    `| fund | ${code(`POST ${paths.fund}`)} | a fund key, ${code('Authorization: Bearer svc_dk_...')}, or OAuth 2.1 (the demo key gets 403) | ${FUND_TOOLS.length} read-only tools, one per fund-data endpoint: ${fundTools} |`,
  ].join('\n');
}

/** A fund tool's example query string (`?days=7`), or nothing. */
const queryOf = (example: Record<string, string>) => {
  const query = new URLSearchParams(example).toString();
  return query ? `?${query}` : '';
};

/**
 * One call on each surface: the fund overview (else the first fund tool) with the demo key, the fee
 * calculator (else the first calculator) on its declared example, and the same calculator as an MCP tool.
 */
export function quickstart(): string {
  const fund = FUND_TOOLS.find((t) => t.tool === 'get_fund_overview') ?? FUND_TOOLS[0]!;
  const calc = CALCULATORS.find((c) => c.slug === 'fee-calculator') ?? CALCULATORS[0]!;
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: toolName(calc), arguments: calc.example } };
  return [
    '```sh',
    'BASE=http://127.0.0.1:8787',
    `curl -s "$BASE/api/v1/fund/${fund.path}${queryOf(fund.example)}" -H 'authorization: Bearer ${DEMO_API_KEY}'`,
    `curl -s "$BASE/api/v1/calc/${calc.path}" -H 'content-type: application/json' \\`,
    `  -d '${JSON.stringify(calc.example)}'`,
    `curl -s "$BASE${mcpServerPaths(ROUTES).public}" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \\`,
    `  -d '${JSON.stringify(call)}'`,
    '```',
  ].join('\n');
}

/** A call of every fund-data endpoint on its declared example, with the demo key, each with its title. */
export function fundExamples(): string {
  return [
    '```sh',
    'BASE=http://127.0.0.1:8787/api/v1/fund',
    `KEY=${DEMO_API_KEY}`,
    ...FUND_TOOLS.flatMap((t) => [
      `# ${t.title} (MCP: ${t.tool})`,
      `curl -s "$BASE/${t.path}${queryOf(t.example)}" -H "authorization: Bearer $KEY"`,
    ]),
    '```',
  ].join('\n');
}

/**
 * A JSON value as a single-quoted shell word: a `'` inside is written as the JSON escape `\u0027`, so the word
 * needs no shell escape and reads back as the same JSON.
 */
const shellJson = (value: unknown) => `'${JSON.stringify(value).replace(/'/g, '\\u0027')}'`;

/** A call of every calculator on its declared example, each with its title and MCP tool name. */
export function calculatorExamples(): string {
  return [
    '```sh',
    'BASE=http://127.0.0.1:8787/api/v1/calc',
    ...CALCULATORS.flatMap((c) => [
      `# ${c.title} (MCP: ${toolName(c)})`,
      `curl -s "$BASE/${c.path}" -H 'content-type: application/json' -d ${shellJson(c.example)}`,
    ]),
    '```',
  ].join('\n');
}

/** The console's first call with a key: the fee calculator (else the first calculator) at its file's URL. */
export function consoleKeyCall(): string {
  const calc = CALCULATORS.find((c) => c.slug === 'fee-calculator') ?? CALCULATORS[0]!;
  return [
    '```sh',
    'export FUND_EDGE_KEY=svc_dk_...    # the key you copied',
    `curl -s -i -X POST http://localhost:8787/api/v1/calc/${calc.path} \\`,
    `  -H "authorization: Bearer $FUND_EDGE_KEY" -H 'content-type: application/json' -d '{}'`,
    '# RateLimit-Policy: "daily";q=1000;w=86400   (the free plan\'s limit, not the anonymous 500)',
    '```',
  ].join('\n');
}

/** A fund-data call with an OAuth access token: the fund overview (else the first fund tool) at its file's URL. */
export function oauthFundCall(): string {
  const fund = FUND_TOOLS.find((t) => t.tool === 'get_fund_overview') ?? FUND_TOOLS[0]!;
  return ['```sh', `curl -s http://127.0.0.1:8787/api/v1/fund/${fund.path} -H "Authorization: Bearer $ACCESS_TOKEN"`, '```'].join('\n');
}

/** The MCP servers under `npm run dev`, at the paths of the route table. */
function devMcpUrls(): McpUrls {
  const paths = mcpServerPaths(ROUTES);
  return { public: `http://127.0.0.1:8787${paths.public}`, fund: `http://127.0.0.1:8787${paths.fund}` };
}

/** Every client's setup for each way in (docs/mcp.md), as the home page shows them. */
export function mcpClients(): string {
  return clientSetups(devMcpUrls())
    .flatMap((setup) => [
      `### ${setup.name}`,
      '',
      setup.how,
      '',
      ...setup.snippets.flatMap((s) => [`${VARIANT_TITLES[s.variant]}:`, '', `\`\`\`${s.lang}`, s.text, '```', '']),
    ])
    .join('\n')
    .trimEnd();
}

/** Claude Code's three commands (the README's example; every client's in docs/mcp.md). */
export function mcpClientsShort(): string {
  const claude = clientSetups(devMcpUrls()).find((s) => s.id === 'claude-code')!;
  return ['```sh', ...claude.snippets.map((s) => s.text), '```'].join('\n');
}

/** Every generated section, by page (relative to the repository) and marker name. */
export function docSections(): Record<string, Record<string, string>> {
  return {
    'README.md': { quickstart: quickstart(), 'mcp-servers': mcpServersTable(), 'mcp-clients': mcpClientsShort() },
    'docs/mcp.md': { 'mcp-clients': mcpClients() },
    'docs/console.md': { 'console-key-call': consoleKeyCall() },
    'docs/oauth.md': { 'oauth-fund-call': oauthFundCall() },
    'docs/fund-data.md': { 'fund-examples': fundExamples(), 'fund-parameters': fundParametersTable() },
    'docs/import.md': { 'import-columns': columnTables() },
  };
}

/** Every published section (see the module comment), by page and marker name. */
export function publishedSections(): Record<string, Record<string, string>> {
  return { 'docs/calculators.md': { 'calculator-examples': calculatorExamples() } };
}

/**
 * A page as the service publishes it: its generated and published sections replaced by their current text.
 * @param page the page's path (relative to the repository)
 * @throws {Error} when a section's markers are missing
 */
export function publishedPage(page: string, text: string): string {
  return withSections(page, withSections(page, text), publishedSections()[page] ?? {});
}

/**
 * A page with each of its generated sections replaced by its current text.
 * @param page the page's path (relative to the repository), naming it in errors
 * @throws {Error} when a section's markers are missing (the build names it)
 */
export function withSections(page: string, text: string, sections: Record<string, string> = docSections()[page] ?? {}): string {
  let out = text;
  for (const [name, section] of Object.entries(sections)) {
    const open = `<!-- generated:${name} -->`;
    const close = `<!-- /generated:${name} -->`;
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start < 0 || end < start) throw new Error(`${page} lacks the markers of the generated section ${name}.`);
    out = `${out.slice(0, start + open.length)}\n${section}\n${out.slice(end)}`;
  }
  return out;
}

/**
 * Rewrites every page whose generated sections are not current.
 * @returns the pages written
 */
export function writeSections(root = ROOT): string[] {
  const written: string[] = [];
  for (const [page, sections] of Object.entries(docSections())) {
    const before = readFileSync(join(root, page), 'utf8');
    const now = withSections(page, before, sections);
    if (now !== before) {
      writeFileSync(join(root, page), now);
      written.push(page);
    }
  }
  return written;
}
