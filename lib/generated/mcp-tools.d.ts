/**
 * The shape of `mcp-tools.ts`, which `npm run build` writes (scripts/build-docs.ts, from lib/mcp/definitions.ts)
 * and git ignores: what a fresh clone type-checks against before its first build.
 */

/** The public MCP server's `tools/list` entries, as JSON text. */
export declare const PUBLIC_TOOL_DEFINITIONS: string;
/** The fund MCP server's `tools/list` entries, as JSON text. */
export declare const FUND_TOOL_DEFINITIONS: string;
