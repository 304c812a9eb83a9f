/**
 * The README's endpoint tables, generated from the declarations so that adding, renaming or changing an
 * endpoint needs no README edit by hand: `npm run build` (scripts/build-docs.ts) rewrites what stands
 * between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`, and `test/readme.test.ts` fails when the
 * committed README is not current.
 *
 * Tables: `mcp-servers` (each MCP server, its URL, its key rule and every tool it lists) and
 * `fund-parameters` (every fund-data path and its query parameters: default and bounds from the schema).
 */
import { CALCULATORS, FUND_TOOLS } from '../lib/generated/declarations.ts';
import { toolName } from '../lib/calculators/definition.ts';
import { jsonSchema } from '../lib/json-schema.ts';

type Json = Record<string, unknown>;

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

/** The MCP servers table: URL, key rule and every tool each server lists. */
export function mcpServersTable(): string {
  const calculators = CALCULATORS.map((c) => code(toolName(c))).join(', ');
  const fundTools = FUND_TOOLS.map((t) => code(t.tool)).join(', ');
  return [
    '| server | URL | key | tools |',
    '|---|---|---|---|',
    `| public | ${code('POST /api/mcp/public')} | none (an optional key raises the quota) | the ${CALCULATORS.length} calculators: ${calculators}; and ${code('search_docs')} (the documentation) |`,
    `| fund | ${code('POST /api/mcp')} | a fund key, ${code('Authorization: Bearer svc_dk_...')}, or OAuth 2.1 (see [Connecting an MCP client](#connecting-an-mcp-client-oauth-or-a-key); the demo key gets 403) | ${FUND_TOOLS.length} read-only tools, one per fund-data endpoint: ${fundTools} |`,
  ].join('\n');
}

/** Every generated table by its marker name. */
export function readmeTables(): Record<string, string> {
  return { 'mcp-servers': mcpServersTable(), 'fund-parameters': fundParametersTable() };
}

/**
 * The README with every generated section replaced by its current table.
 * @throws {Error} when a section's markers are missing (the build names it)
 */
export function withTables(readme: string): string {
  let out = readme;
  for (const [name, table] of Object.entries(readmeTables())) {
    const open = `<!-- generated:${name} -->`;
    const close = `<!-- /generated:${name} -->`;
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start < 0 || end < start) throw new Error(`README.md lacks the markers of the generated section ${name}.`);
    out = `${out.slice(0, start + open.length)}\n${table}\n${out.slice(end)}`;
  }
  return out;
}
