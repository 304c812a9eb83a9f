/**
 * `GET /api/v1/` (and `/api/v1`): the REST API's index, the URL the home page gives for the REST surface. A
 * JSON document of links: the documentation (the OpenAPI document, `/docs`, the llms files, the developer
 * console) and every operation of the route table, with its method, summary, whether it needs a key, and
 * the MCP tool that does the same. Built from the catalog, so a new endpoint is listed without an edit. Not
 * an operation of the OpenAPI document: like the home page, it is a way in (docs/api.md#conventions).
 */
import { toolName } from '../calculators/definition.ts';
import type { Catalog, Operation } from '../endpoint.ts';

/** The paths the index is served at. */
export const API_INDEX_PATHS = ['/api/v1/', '/api/v1'] as const;

/** One operation as the index lists it. */
export interface IndexedOperation {
  method: string;
  href: string;
  summary: string;
  /** The OpenAPI tag: `Fund data`, `Calculators`, `MCP` or `Meta`. */
  tag: string;
  /** `none`: no key; `optional`: a key raises the calculator quota; `required`: `Authorization: Bearer <key>`. */
  key: Operation['auth'];
  operationId: string;
  /** The MCP tool that answers the same (a calculator on the public server, a fund tool on the fund server). */
  mcpTool?: string;
  /** The operation in the OpenAPI document (a JSON pointer in the fragment). */
  reference: string;
}

/** The index document. */
export interface ApiIndex {
  title: string;
  description: string;
  links: { home: string; openapi: string; docs: string; llmsTxt: string; llmsFullTxt: string; console: string };
  operations: IndexedOperation[];
}

/** Where the OpenAPI document is served: the route whose GET is `getOpenApiDocument`. */
function openApiPath(catalog: Pick<Catalog, 'routes'>): string {
  return catalog.routes.find((r) => r.endpoint.methods.GET?.operationId === 'getOpenApiDocument')?.path ?? '/api/v1/openapi.json';
}

/**
 * The index of a catalog, every URL absolute on `origin`.
 * @param origin the service's public origin (`PUBLIC_ORIGIN`, or locally the request's)
 */
export function apiIndex(catalog: Pick<Catalog, 'routes' | 'calculators' | 'fundTools'>, origin: string): ApiIndex {
  const openapi = openApiPath(catalog);
  const tools = new Map<string, string>([
    ...catalog.calculators.map((c): [string, string] => [`/api/v1/calc/${c.path}`, toolName(c)]),
    ...catalog.fundTools.map((t): [string, string] => [`/api/v1/fund/${t.path}`, t.tool]),
  ]);
  const operations = catalog.routes.flatMap((route) =>
    Object.entries(route.endpoint.methods).map(([method, op]): IndexedOperation => {
      const tool = tools.get(route.path);
      return {
        method,
        href: `${origin}${route.path}`,
        summary: op.summary,
        tag: op.tags[0] ?? 'Meta',
        key: op.auth,
        operationId: op.operationId,
        ...(tool ? { mcpTool: tool } : {}),
        reference: `${origin}${openapi}#/paths/${route.path.replaceAll('~', '~0').replaceAll('/', '~1')}/${method.toLowerCase()}`,
      };
    }),
  );
  return {
    title: 'fund-edge API',
    description:
      'Fund data (GET, Authorization: Bearer <key>; the published demo key reads a synthetic fund), stateless calculators (POST JSON, no key needed) and two MCP servers. Every operation is described in the OpenAPI document; errors are RFC 9457 problem+json.',
    links: {
      home: `${origin}/`,
      openapi: `${origin}${openapi}`,
      docs: `${origin}/docs`,
      llmsTxt: `${origin}/llms.txt`,
      llmsFullTxt: `${origin}/llms-full.txt`,
      console: `${origin}/developers/console`,
    },
    operations,
  };
}
