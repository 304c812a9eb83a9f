/**
 * The fuzzer's model of the service: the keys it calls with, the operations and tools the service
 * declares (cross-checked against the OpenAPI document), and the shape of a case.
 */
import { ROUTES, CALCULATORS, FUND_TOOLS } from '../../../lib/registry.ts';
import { toolName } from '../../../lib/calculators/definition.ts';
import { toolInputSchema } from '../../../lib/mcp/definitions.ts';
import { allowedMethods } from '../../../lib/endpoint.ts';
import type { FuzzRequest } from '../http.ts';
import type { Schema } from '../schema.ts';

/** The keys the fuzzer calls with, minted into the Worker's local KV before the run. */
export interface FuzzKeys {
  /** A key of the fund the Worker serves (`FUND_ID`), with a daily calculator limit the run cannot reach. */
  sample: string;
  /** A key of another fund (403 on fund data; valid for calculators). */
  other: string;
  /** A key minted for the served fund, then revoked. */
  revoked: string;
}

/** One query parameter of an operation, as the OpenAPI document lists it. */
export interface QueryParameter {
  name: string;
  required: boolean;
  schema: Schema;
}

/** One REST operation: path, method, its declaration's auth, and the OpenAPI document's parameters and body. */
export interface RestOperation {
  path: string;
  method: 'GET' | 'POST';
  auth: 'none' | 'optional' | 'required';
  query: QueryParameter[];
  body?: Schema;
}

/** A tool of an MCP server and its input schema as `tools/list` shows it. */
export interface ToolModel {
  name: string;
  input: Schema;
}

/** Everything cases are generated from. */
export interface FuzzModel {
  operations: RestOperation[];
  publicTools: ToolModel[];
  fundTools: ToolModel[];
  /** Every route path with the methods it allows (`Allow`). */
  allow: Map<string, string[]>;
}

/** JSON-RPC expectations of a single (non-batch) message. */
export interface RpcExpectation {
  /** The error codes the message must get (when it gets a JSON-RPC answer at all). */
  codes?: number[];
  /** Codes it must not get (an id of `1.5` is well-formed JSON: never `-32700`). */
  notCodes?: number[];
  /** A `tools/call` whose arguments break the tool's input schema: an error or an `isError` result. */
  badArguments?: boolean;
}

/** A generated request and what its answer is judged by. */
export interface FuzzCase {
  /** Generator family (`rest-calc`, `mcp-fund`, `host`, ...). */
  family: string;
  /** The route it aims at (the route table's path), or `(other path)`. */
  route: string;
  request: FuzzRequest;
  /** `page`: a documentation page of the site (HTML or Markdown, not JSON). */
  surface: 'rest' | 'mcp' | 'page';
  /** Set when the request must not succeed, with the reason. */
  mustReject?: string;
  rpc?: RpcExpectation;
  /**
   * A batch: its size, the requests in it (messages with a method and a string or number id), whether two of
   * them share an id, and whether the protocol revision it was sent under still has batches.
   */
  batch?: { size: number; requests: number; repeatedIds: boolean; revisionHasBatches: boolean };
  /** The `Host` sent is not a loopback name. */
  hostileHost?: string;
}

/** The placeholder a header value may hold for the Worker's own origin (`http://127.0.0.1:<port>`). */
export const SELF_ORIGIN = '{{self}}';

/**
 * Builds the model: the route table and declarations, cross-checked against the OpenAPI document.
 * @throws {Error} an operation of the route table is missing from the document
 */
export function buildModel(openapi: {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components?: { requestBodies?: Record<string, unknown> };
}): FuzzModel {
  const operations: RestOperation[] = [];
  const allow = new Map<string, string[]>();
  for (const route of ROUTES) {
    allow.set(route.path, allowedMethods(route));
    if (route.path.startsWith('/api/mcp')) continue;
    for (const [method, op] of Object.entries(route.endpoint.methods)) {
      const documented = openapi.paths[route.path]?.[method.toLowerCase()];
      if (!documented) throw new Error(`the OpenAPI document lacks ${method} ${route.path}`);
      const params = (documented.parameters as { name: string; required: boolean; schema: Schema }[] | undefined) ?? [];
      // A request body is a named component (`components.requestBodies`), referenced from the operation.
      const ref = (documented.requestBody as { $ref?: string } | undefined)?.$ref;
      const requestBody = ref
        ? openapi.components?.requestBodies?.[ref.replace('#/components/requestBodies/', '')]
        : documented.requestBody;
      const body = (requestBody as { content: Record<string, { schema: Schema }> } | undefined)?.content['application/json']?.schema;
      operations.push({
        path: route.path,
        method: method as 'GET' | 'POST',
        auth: op.auth,
        query: params.map((p) => ({ name: p.name, required: p.required, schema: p.schema })),
        ...(body ? { body } : {}),
      });
    }
  }
  const publicTools = CALCULATORS.map((def) => ({ name: toolName(def), input: toolInputSchema(def.input) as Schema }));
  const fundTools = FUND_TOOLS.map((def) => ({ name: def.tool, input: toolInputSchema(def.query) as Schema }));
  return { operations, publicTools, fundTools, allow };
}
