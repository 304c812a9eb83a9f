/**
 * The `tools/list` entries of both MCP servers (name, title, description, input and output JSON Schema,
 * annotations), derived from the declarations: the calculators (`lib/calculators/`), the fund tools
 * (`lib/fund/tools/`) and `search_docs` (`search-docs.ts`). Used at build time only: `scripts/build-docs.ts`
 * writes them to `lib/generated/mcp-tools.ts`, which the composition root hands the servers, so an isolate
 * never converts a zod schema to JSON Schema (docs/mcp.md "Tool definitions"); `test/mcp/generated.test.ts`
 * proves the generated file equals what this module produces now.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod';
import { resultSchema, toolName, type CalculatorDefinition } from '../calculators/definition.ts';
import type { LocatedFundTool } from '../fund/definition.ts';
import { jsonSchema } from '../json-schema.ts';
import { withNullAsAnyOf } from './portable-schema.ts';
import { SEARCH_DOCS, searchDocsInput, searchDocsOutput } from './search-docs.ts';

/** A tool's annotations: every tool of both servers only reads (docs/mcp.md: `readOnlyHint: true`). */
export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/**
 * Input JSON Schema of a tool from a strict zod object (the calculator body or the fund query schema).
 * @returns an object schema as `tools/list` requires (`type: "object"`), nullable fields as `anyOf` with null
 */
export function toolInputSchema(schema: z.ZodObject): Tool['inputSchema'] {
  return withNullAsAnyOf(jsonSchema(schema, 'input')) as Tool['inputSchema'];
}

/**
 * Output JSON Schema of a tool. MCP's `structuredContent` is an object, so a top-level array result (only
 * `exposure/series`) is described, and sent, as `{ items: [...] }`; its text content stays the bare array
 * (`structuredOf` in tools.ts).
 */
export function toolOutputSchema(schema: z.ZodType): NonNullable<Tool['outputSchema']> {
  const described = withNullAsAnyOf(jsonSchema(schema, 'output')) as Record<string, unknown>;
  if (described.type === 'array') {
    return { type: 'object', properties: { items: described }, required: ['items'], additionalProperties: false };
  }
  return described as NonNullable<Tool['outputSchema']>;
}

/** The public server's tools as `tools/list` shows them: one `calc_<slug>` per calculator, then `search_docs`. */
export function publicToolDefinitions(calculators: readonly CalculatorDefinition[]): Tool[] {
  return [
    ...calculators.map(
      (def): Tool => ({
        name: toolName(def),
        title: def.title,
        description: `${def.description} Units: money in USD (fields ending Usd), rates and returns in percent units (fields ending Pct, so 2 means 2 %). Every argument is optional; the result echoes the resolved inputs. Counts against the caller's daily calculator quota.`,
        inputSchema: toolInputSchema(def.input),
        outputSchema: toolOutputSchema(resultSchema(def)),
        annotations: { title: def.title, ...READ_ONLY },
      }),
    ),
    {
      ...SEARCH_DOCS,
      inputSchema: toolInputSchema(searchDocsInput()),
      outputSchema: toolOutputSchema(searchDocsOutput()),
      annotations: { title: SEARCH_DOCS.title, ...READ_ONLY },
    },
  ];
}

/** The fund server's tools as `tools/list` shows them: one `get_*` per fund-data endpoint, in declaration order. */
export function fundToolDefinitions(fundTools: readonly LocatedFundTool[]): Tool[] {
  return fundTools.map((def) => ({
    name: def.tool,
    title: def.title,
    description: `${def.description} Arguments are the query parameters of GET /api/v1/fund/${def.path}; the result is the same redacted JSON. Units: money and quantities are exact decimal strings in the fund's base currency (the \`currency\` field); percentages are numbers in percent units (fields ending Pct); dates YYYY-MM-DD.`,
    inputSchema: toolInputSchema(def.query),
    outputSchema: toolOutputSchema(def.output),
    annotations: { title: def.title, ...READ_ONLY },
  }));
}
