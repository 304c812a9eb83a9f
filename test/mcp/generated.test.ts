/**
 * The MCP servers' `tools/list` entries are computed at build time (`lib/generated/mcp-tools.ts`, by
 * scripts/build-docs.ts from lib/mcp/definitions.ts) and reach the servers in the registry's catalog: they
 * must equal, byte for byte, what the declarations produce now, and name exactly the tools the servers
 * answer, in the same order. A declaration changed without `npm run build` fails here.
 */
import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../lib/registry.ts';
import { fundToolDefinitions, publicToolDefinitions } from '../../lib/mcp/definitions.ts';
import { fundServer } from '../../lib/mcp/fund-server.ts';
import { publicServer } from '../../lib/mcp/public-server.ts';

describe('generated tool definitions', () => {
  it.each([
    ['public', CATALOG.toolDefinitions.public, () => publicToolDefinitions(CATALOG.calculators), publicServer],
    ['fund', CATALOG.toolDefinitions.fund, () => fundToolDefinitions(CATALOG.fundTools), fundServer],
  ] as const)('of the %s server equal the declarations', (_server, generated, fromDeclarations, server) => {
    expect(generated).toBe(JSON.stringify(fromDeclarations()));
    expect(server.definitions(CATALOG)).toEqual(fromDeclarations());
    expect(server.definitions(CATALOG).map((d) => d.name)).toEqual(server.tools(CATALOG).map((t) => t.name));
  });

  it('carry a schema for every tool', () => {
    for (const d of [...publicServer.definitions(CATALOG), ...fundServer.definitions(CATALOG)]) {
      expect(d.inputSchema.type, d.name).toBe('object');
      expect(d.outputSchema?.type, d.name).toBe('object');
      expect(d.annotations?.readOnlyHint, d.name).toBe(true);
    }
    expect(publicServer.definitions(CATALOG).at(-1)?.name).toBe('search_docs');
  });
});
