/**
 * The files under functions/ are the route table: the route table and the declaration lists
 * (`lib/generated/`, read through lib/registry.ts) are generated from them (scripts/build-routes.ts) and must
 * be current; every file is routed at the path it mirrors; and every declaration is routed (the endpoint of
 * its path validates with its schemas), listed on its MCP server, in OpenAPI with examples, and exercised by
 * the shared endpoint tests (which iterate the generated lists).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOG, CALCULATORS, FUND_TOOLS, ROUTES } from '../lib/registry.ts';
import { toolName } from '../lib/calculators/definition.ts';
import { RESPONSE_EXAMPLES } from '../lib/generated/examples.ts';
import { publicServer } from '../lib/mcp/public-server.ts';
import { fundServer } from '../lib/mcp/fund-server.ts';
import { openApiDocument } from '../lib/openapi.ts';
import { operationIdOf } from '../lib/endpoint.ts';
import { endpointFiles, pathOfFile, staleRouteFiles } from '../scripts/build-routes.ts';

const ROOT = join(import.meta.dirname, '..');
const files = endpointFiles();

describe('route table', () => {
  it('is generated from functions/ and current (npm run build rewrites it)', () => {
    expect(staleRouteFiles()).toEqual([]);
  });

  it('routes every endpoint file at the path it mirrors, and nothing else', () => {
    expect(files.length).toBeGreaterThan(20);
    expect(ROUTES.map((r) => r.path)).toEqual(files.map(pathOfFile));
    expect(new Set(ROUTES.map((r) => r.path)).size).toBe(ROUTES.length);
  });

  it.each(files.map((f) => [pathOfFile(f), f]))('%s serves the default export of its file', async (path, file) => {
    const mod = (await import(join(ROOT, file))) as { default: unknown };
    expect(ROUTES.find((r) => r.path === path)?.endpoint).toBe(mod.default);
  });
});

describe('every declaration', () => {
  const doc = openApiDocument(ROUTES, '/', RESPONSE_EXAMPLES) as {
    paths: Record<string, Record<string, Record<string, any>>>;
    components: { requestBodies: Record<string, any> };
  };
  /** An operation's request body, its `$ref` to a named request body resolved. */
  const requestBodyOf = (op: Record<string, any>) =>
    doc.components.requestBodies[op.requestBody.$ref.replace('#/components/requestBodies/', '')];
  const publicTools = publicServer.tools(CATALOG).map((t) => t.name);
  const fundTools = fundServer.tools(CATALOG).map((t) => t.name);
  const source = (file: string) => readFileSync(join(ROOT, file), 'utf8');

  it.each(CALCULATORS.map((c) => [c.path, c] as const))(
    'calculator %s is routed, on the public MCP server, and in OpenAPI with examples',
    (path, def) => {
      const routes = ROUTES.filter((r) => r.endpoint.methods.POST?.operationId === operationIdOf(toolName(def)));
      expect(routes[0]?.endpoint.methods.POST?.body).toBe(def.input);
      expect(routes.map((r) => r.path)).toEqual([`/api/v1/calc/${path}`]);
      expect(publicTools).toContain(toolName(def));
      const op = doc.paths[routes[0]!.path]!.post!;
      expect(requestBodyOf(op).content['application/json'].examples.typical.value).toEqual(def.example);
      expect(op.responses['200'].content['application/json'].examples.typical.value).toBeDefined();
    },
  );

  it.each(FUND_TOOLS.map((t) => [t.path, t] as const))(
    'fund tool %s is routed, on the fund MCP server, and in OpenAPI with examples',
    (path, def) => {
      const routes = ROUTES.filter((r) => r.endpoint.methods.GET?.operationId === operationIdOf(def.tool));
      expect(routes[0]?.endpoint.methods.GET?.query).toBe(def.query);
      expect(routes.map((r) => r.path)).toEqual([`/api/v1/fund/${path}`]);
      expect(fundTools).toContain(def.tool);
      const op = doc.paths[routes[0]!.path]!.get!;
      const params = (op.parameters ?? []) as { name: string; example?: unknown }[];
      for (const name of Object.keys(def.example)) expect(params.find((p) => p.name === name)?.example, name).toBeDefined();
      expect(op.responses['200'].content['application/json'].examples.typical.value).toBeDefined();
    },
  );

  it('is exercised by the shared endpoint tests, which iterate the generated lists', () => {
    expect(source('test/app.test.ts')).toMatch(/describe\.each\(CALCULATORS\.map/);
    expect(source('test/fund/endpoints.test.ts')).toMatch(/it\.each\(FUND_TOOLS\.map/);
    expect(source('test/doc-sections.test.ts')).toMatch(/FUND_TOOLS\.map\(\(t\) => t\.tool\)/);
    expect(source('test/mcp/tools.test.ts')).toMatch(/CALCULATORS\.map\(\(def\) => \[toolName\(def\)/);
    expect(publicTools).toEqual([...CALCULATORS.map(toolName), 'search_docs']);
    expect(fundTools).toEqual(FUND_TOOLS.map((t) => t.tool));
  });
});
