/**
 * Per-endpoint example arguments, derived from the declarations (never copied into tests): a fund tool's
 * declared `example` as MCP arguments (JSON values of the advertised type) and as a REST query string.
 */
import type { FundToolDefinition } from '../../lib/fund/definition.ts';
import { queryStringSchema } from '../../lib/validation.ts';

/** The declared example of a fund tool: `args` for `tools/call`, `query` (`''` or `?a=b`) for REST. */
export function fundExample(def: FundToolDefinition): { args: Record<string, unknown>; query: string } {
  const typed = queryStringSchema(def.query).parse(def.example) as Record<string, unknown>;
  const args = Object.fromEntries(Object.keys(def.example).map((name) => [name, typed[name]]));
  const query = new URLSearchParams(def.example).toString();
  return { args, query: query ? `?${query}` : '' };
}
