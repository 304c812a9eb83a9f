/**
 * Facts the tests read from the declarations (through lib/registry.ts) instead of writing them out: the
 * tools' names, how many there are, and each endpoint's URL. A calculator is named by its slug and a fund
 * tool by its MCP tool name, which its declaration holds; its URL is the path of its file under
 * `functions/`, so renaming that file changes the URL and no test.
 */
import { CALCULATORS, FUND_TOOLS } from '../../lib/registry.ts';
import { toolName } from '../../lib/calculators/definition.ts';

/** The public MCP server's calculator tools, in the path order of their files under `functions/`. */
export const CALC_TOOL_NAMES: readonly string[] = CALCULATORS.map(toolName);
/** Every tool of the public MCP server: the calculators', then `search_docs`. */
export const PUBLIC_TOOL_NAMES: readonly string[] = [...CALC_TOOL_NAMES, 'search_docs'];
/** The fund MCP server's tools, in the path order of their files under `functions/`. */
export const FUND_TOOL_NAMES: readonly string[] = FUND_TOOLS.map((t) => t.tool);

/**
 * The URL path of a calculator: `/api/v1/calc/<its file's path>`.
 * @param calculator its declaration, or its slug (`fee-calculator`)
 * @throws {Error} when no calculator has that slug
 */
export function calcPath(calculator: { slug: string } | string): string {
  const slug = typeof calculator === 'string' ? calculator : calculator.slug;
  const found = CALCULATORS.find((c) => c.slug === slug);
  if (!found) throw new Error(`No calculator is declared with the slug ${slug}.`);
  return `/api/v1/calc/${found.path}`;
}

/**
 * The URL path of a fund-data tool: `/api/v1/fund/<its file's path>`.
 * @param tool its declaration, or its MCP tool name (`get_positions`)
 * @throws {Error} when no fund tool has that name
 */
export function fundPath(tool: { tool: string } | string): string {
  const name = typeof tool === 'string' ? tool : tool.tool;
  const found = FUND_TOOLS.find((t) => t.tool === name);
  if (!found) throw new Error(`No fund tool is declared with the name ${name}.`);
  return `/api/v1/fund/${found.path}`;
}

/**
 * The URL path and query of a fund-data call written with its tool's MCP name (`get_nav_history?days=7`), as
 * the file under `functions/` gives it; a call written with a path (`nav-history?days=7`, as a loop over the
 * declarations has it) is taken as it is.
 */
export function fundUrl(call: string): string {
  const [head, query] = call.split(/(?=\?)/);
  return head!.startsWith('get_') ? `${fundPath(head!)}${query ?? ''}` : `/api/v1/fund/${call}`;
}
