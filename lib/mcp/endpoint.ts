/**
 * The endpoint of each MCP server (docs/mcp.md): what the route table and the OpenAPI document need, and the
 * request handling: `dispatch.ts` and the v1 SDK (2025 revisions), evaluated with the Worker and warmed by
 * one exchange at startup (lib/worker.ts), so that an isolate's first MCP request does not pay for them; the
 * 2026-07-28 leg (`modern.ts`, the v2 SDK) loaded on an isolate's first request of that revision.
 */
import * as z from 'zod';
import { operationIdOf, type Endpoint, type Route, type Step } from '../endpoint.ts';
import { lazy } from '../validation.ts';
import { checkHostAndOrigin, requestHost } from '../origin.ts';
import type { McpServerSpec } from './tools.ts';
import { MCP_SERVER_NAMES, type McpUrls } from './clients.ts';
import { isModernRequest } from './rpc.ts';
import { handleMcp } from './dispatch.ts';

/**
 * The 2026-07-28 leg and the v2 SDK, evaluated once per isolate on its first request of that revision. Each
 * request makes its own `import()`: the module registry evaluates the module once and hands every later
 * import the same namespace, and no request awaits a promise another request made (nor could one: the bundle
 * holds the module, so the import does no I/O).
 */
const modern = () => import('./modern.ts');

/**
 * The 2026-07-28 leg once an import of it has resolved: a finished module namespace (plain data, never a
 * pending promise), so later requests skip the import's promise round trip.
 */
let loadedModern: typeof import('./modern.ts') | undefined;

/**
 * The body and response schemas the OpenAPI document describes an MCP endpoint with (built on first read:
 * the document is built at build time, and no request reads them).
 */
const RPC_SCHEMAS = lazy(() => {
  /** A JSON-RPC 2.0 request or notification. */
  const message = z.looseObject({ jsonrpc: z.literal('2.0'), method: z.string(), id: z.union([z.string(), z.number()]).optional() });
  /** A JSON-RPC 2.0 response: `result`, or `error` with a code and message. */
  const response = z.looseObject({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.looseObject({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  });
  return {
    body: z.union([message, z.array(message).min(1)]).describe('A JSON-RPC 2.0 message, or a batch (a non-empty array) of them.'),
    response: z.union([response, z.array(response)]),
  };
});

/**
 * The DNS-rebinding guard of both MCP servers, their first step: `Host` (421) and browser `Origin` (403)
 * by the rules of lib/origin.ts.
 */
export const dnsRebindingGuard: Step = async (c, _ctx, next) => {
  checkHostAndOrigin(c.env, requestHost(c.req.raw), c.req.header('origin'));
  return next();
};

/**
 * The endpoint of an MCP server: `POST` only (GET and DELETE are 405 with `Allow: POST`: the service keeps
 * no sessions and offers no server-initiated stream), through the DNS-rebinding guard and the server's steps
 * (credential, scope), then the JSON-RPC translation (dispatch.ts).
 */
export function mcpEndpoint(spec: McpServerSpec): Endpoint {
  const steps = [dnsRebindingGuard, ...spec.steps];
  return {
    methods: {
      POST: {
        operationId: operationIdOf(spec.name),
        summary: spec.summary,
        description: spec.description,
        tags: ['MCP'],
        auth: spec.auth,
        ...(spec.oauthScopes ? { oauthScopes: spec.oauthScopes } : {}),
        get body() {
          return RPC_SCHEMAS().body;
        },
        response: {
          description:
            'The JSON-RPC 2.0 response to a request, or for a batch an array of the responses to its requests (matched by id; notifications get none). A body of notifications only is answered 202 with no body.',
          get schema() {
            return RPC_SCHEMAS().response;
          },
        },
        problems: spec.problems,
        steps,
        handle: async (c, ctx) => {
          // 2026-07-28 and later on the v2 SDK, 2025 revisions on the v1 SDK: each leg loads only its own.
          if (isModernRequest(c.req.header('mcp-protocol-version'))) {
            loadedModern ??= await modern();
            return loadedModern.handleModern(spec, c, ctx);
          }
          return handleMcp(spec, c, ctx);
        },
      },
    },
  };
}

/** Each MCP server's URL path, or undefined where the route table lacks it. */
export type McpPaths = { [K in keyof McpUrls]: string | undefined };

/** The paths of the two MCP servers in a route table, by their operationIds (memoized per table). */
const serverPaths = new WeakMap<readonly Route[], McpPaths>();

/**
 * Where the route table serves each MCP server (its file under `functions/`), for the pages and sentences
 * that name them: nothing writes an MCP URL out.
 * @returns each server's path, or undefined for a server the table lacks (a test's partial table)
 */
export function mcpServerPaths(routes: readonly Route[]): McpPaths {
  let paths = serverPaths.get(routes);
  if (!paths) {
    const find = (name: string) => routes.find((r) => r.endpoint.methods.POST?.operationId === operationIdOf(name))?.path;
    paths = { public: find(MCP_SERVER_NAMES.public), fund: find(MCP_SERVER_NAMES.fund) };
    serverPaths.set(routes, paths);
  }
  return paths;
}
