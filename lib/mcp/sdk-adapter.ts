/**
 * The SDK adapter of both MCP servers: a fresh SDK `Server` per request answering `tools/list` and
 * `tools/call` from a server's declared tools, and what the service changes in the SDK's answers
 * (docs/mcp.md):
 * - Tool errors are `isError` results whose text is the problem+json body (`code`, `detail`, `errors[]` with
 *   `/arguments/...` pointers); unknown tools are JSON-RPC `-32602`, named when the name has the shape of a
 *   tool name (`[a-z][a-z0-9_]{0,63}`). No message carries arbitrary submitted text.
 * - A request whose params fail its method's schema is `-32602` Invalid params, not the SDK's `-32603`
 *   ({@link ParamsCheckingServer}); every other JSON-RPC error text is ours or the code's standard text.
 *
 * The SDK is pinned to an exact version in package.json because this module leans on its internals: the
 * per-instance `send` wrapper ({@link withOwnErrorText}), Ajv aliased out of the bundle (wrangler.toml,
 * `ajv-unused.ts`), and the `Server` constructor registering its handlers through the overridable
 * `setRequestHandler` ({@link ParamsCheckingServer}). `test/mcp/sdk-pin.test.ts` fails when an upgrade
 * changes any of them; re-check all three then.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import * as z from 'zod';
import type { Context } from 'hono';

import type { AppEnv } from '../env.ts';
import type { LogContext } from '../log.ts';
import { MCP_BATCH_CONCURRENCY } from '../limits.ts';
import { SERVER_VERSION, UNKNOWN_TOOL_NAMED, toolCallResult, unknownToolMessage, type McpServerSpec } from './tools.ts';

export { unknownToolMessage } from './tools.ts';
import type { Catalog } from '../endpoint.ts';

/** Messages of errors this module throws on purpose; {@link withOwnErrorText} lets them through. */
const OWN_MESSAGES = new Set<string>();

/** A JSON-RPC error thrown from a request handler; the SDK sends `code` and `message` as they are. */
export class RpcError extends Error {
  readonly code: number;
  /** @param fixed false for a message built from a checked value ({@link unknownToolMessage}), not remembered */
  constructor(code: number, message: string, fixed = true) {
    super(message);
    this.code = code;
    if (fixed) OWN_MESSAGES.add(message);
  }
}

/**
 * The server never validates a schema at run time (it asks nothing of clients), so the SDK's default Ajv
 * validator, which compiles code from strings (refused by workerd) and costs milliseconds per server, is
 * replaced by one that refuses.
 */
const NO_SCHEMA_VALIDATION: jsonSchemaValidator = {
  getValidator: () => () => ({ valid: false, data: undefined, errorMessage: 'This server validates no client data.' }),
};

/** The standard JSON-RPC 2.0 message of an error code the SDK may fill with a dependency's text. */
const STANDARD_MESSAGES: Record<number, string> = {
  [ErrorCode.InvalidRequest]: 'Invalid Request',
  [ErrorCode.MethodNotFound]: 'Method not found',
  [ErrorCode.InvalidParams]: 'Invalid params',
  [ErrorCode.InternalError]: 'Internal error',
};

/**
 * Makes every JSON-RPC error the transport sends carry either a message of ours ({@link RpcError}) or the
 * standard text of its code: the SDK puts a thrown error's message there, which for a request that fails
 * its schema checks is zod's issue list (docs/mcp.md: no error text carries internals).
 */
export function withOwnErrorText(transport: WebStandardStreamableHTTPServerTransport): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ('error' in message && !OWN_MESSAGES.has(message.error.message) && !UNKNOWN_TOOL_NAMED.test(message.error.message)) {
      const code = message.error.code in STANDARD_MESSAGES ? message.error.code : ErrorCode.InternalError;
      return send({ ...message, error: { code, message: STANDARD_MESSAGES[code]! } }, options);
    }
    return send(message, options);
  };
}

/** The schema of a request the SDK registers a handler for: an object with a literal `method`. */
type RequestSchema = Parameters<Server['setRequestHandler']>[0];

const METHOD_ONLY = new Map<string, RequestSchema>();

/** A request schema checking only the method (built once per method and isolate). */
function methodOnly(method: string): RequestSchema {
  let schema = METHOD_ONLY.get(method);
  if (!schema) {
    schema = z.looseObject({ method: z.literal(method) }) as unknown as RequestSchema;
    METHOD_ONLY.set(method, schema);
  }
  return schema;
}

/**
 * The SDK's `Server`, answering a request whose params fail its method's schema with JSON-RPC `-32602`
 * Invalid params (JSON-RPC 2.0 §5.1) instead of `-32603` Internal error: the SDK parses a request with the
 * handler's schema before calling it and sends a thrown parse error as `-32603`. Every handler, including
 * those the SDK's constructors register (`initialize`, `ping`), is registered here under a schema that
 * checks only the method, and parses with its own schema first. The SDK's tools/call wrapper (which answers
 * `-32602` itself) still runs, as `Server.setRequestHandler` is called with the same method, so `tools/call`
 * is not parsed here a second time.
 */
export class ParamsCheckingServer extends Server {
  override setRequestHandler(...[schema, handler]: Parameters<Server['setRequestHandler']>): void {
    const method = (schema as unknown as z.ZodObject<{ method: z.ZodLiteral<string> }>).shape.method.value;
    // `tools/call`: the SDK's own wrapper has parsed the request with this very schema, and answered -32602
    // when it failed, before the handler runs: a second parse could only succeed.
    if (schema === CallToolRequestSchema) {
      super.setRequestHandler(methodOnly(method), handler);
      return;
    }
    super.setRequestHandler(methodOnly(method), (request, extra) => {
      const parsed = (schema as unknown as z.ZodType).safeParse(request);
      if (!parsed.success) throw new RpcError(ErrorCode.InvalidParams, 'Invalid params: they do not match the schema of the method.');
      return handler(parsed.data as Parameters<typeof handler>[0], extra);
    });
  }
}

/**
 * A gate letting at most `limit` calls of `work` run at once; the others wait for a slot, first come first
 * served. For the calls of one request only: its queue holds that request's promises, never another's.
 * @param limit calls at once (≥ 1)
 */
export function concurrencyGate(limit: number): <T>(work: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (work) => {
    if (running < limit) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve)); // the slot is handed over, still counted
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

/**
 * A fresh SDK server for one request (`serverInfo.websiteUrl`: the service's home page), answering
 * `tools/list` from the server's build-time definitions (parsed on the first `tools/list` of an isolate) and
 * `tools/call` from its tools, which read no schema text; at most {@link MCP_BATCH_CONCURRENCY} tool calls of
 * the request (a batch) run at once. A tool's error becomes an `isError` result with its problem body, and
 * is logged here, once, as the app's error handler would have (it never sees it).
 * @param c the request, whose steps found the caller the tools read
 * @param at where a tool's failure is logged (the request's id, method and path)
 * @param rawArguments each `tools/call`'s `arguments` as the body held them, by request id: a tool is
 *   handed these rather than the SDK's copy, which drops a member named `__proto__` (REST refuses it)
 */
export function createServer(
  spec: McpServerSpec,
  catalog: Catalog,
  c: Context<AppEnv>,
  at: LogContext,
  websiteUrl: string,
  rawArguments: ReadonlyMap<string | number, unknown> = new Map(),
): Server {
  const tools = spec.tools(catalog);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const gate = concurrencyGate(MCP_BATCH_CONCURRENCY);
  const server = new ParamsCheckingServer(
    { name: spec.name, title: spec.title, version: SERVER_VERSION, websiteUrl },
    { capabilities: { tools: { listChanged: false } }, instructions: spec.instructions, jsonSchemaValidator: NO_SCHEMA_VALIDATION },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...spec.definitions(catalog)] }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      const message = unknownToolMessage(request.params.name);
      throw new RpcError(ErrorCode.InvalidParams, message, !UNKNOWN_TOOL_NAMED.test(message));
    }
    const args = (rawArguments.get(extra.requestId) ?? request.params.arguments ?? {}) as Record<string, unknown>;
    return gate(() => toolCallResult(tool, c, at, args));
  });
  return server;
}
