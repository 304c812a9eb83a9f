/**
 * MCP dispatch: the HTTP side of both MCP servers (contract §6), on the SDK's Web-standard Streamable HTTP
 * transport in stateless mode, with a fresh `Server` and transport for every request (the SDK refuses reuse).
 *
 * Order of one `POST`: Origin (403) → the server's admission (key: 401/403) → `MCP-Protocol-Version` (400)
 * → Content-Type (415) → JSON (400, JSON-RPC `-32700`) → the server's limit, charged once per `tools/call`
 * in the body (429 with a JSON-RPC error body) → the SDK, which answers `initialize`, `tools/list`,
 * `tools/call`, notifications (202) and batches. HTTP refusals before the body is read are problem+json like
 * every other endpoint; everything after is JSON-RPC.
 *
 * Protocol plumbing stays in the SDK; this module only adapts what the contract asks beyond it:
 * - JSON responses always, SSE only when the client's `Accept` lists `text/event-stream` and not
 *   `application/json`; an `Accept` of `application/json` alone, `*\/*` or none is served (the SDK alone
 *   would answer 406).
 * - A `MCP-Protocol-Version` later than the newest the SDK implements (e.g. `2026-06-18`) is served as that
 *   newest revision, as `initialize` negotiates it, rather than refused.
 * - Tool errors are `isError` results whose text is the problem+json body (`code`, `detail`, `errors[]` with
 *   `/arguments/...` pointers); unknown tools are JSON-RPC `-32602`, named when the name has the shape of a
 *   tool name (`[a-z][a-z0-9_]{0,63}`). No message carries arbitrary submitted text.
 */
import type { Context } from 'hono';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  ErrorCode,
  LATEST_PROTOCOL_VERSION,
  ListToolsRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolRequest,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import * as z from 'zod';
import type { AppEnv } from '../env.ts';
import { OriginNotAllowedError, RateLimitedError, UnsupportedMediaTypeError, problemOf, type ProblemCode } from '../errors.ts';
import { isJsonMediaType, isJsonObject, type Endpoint, type RequestContext } from '../endpoint.ts';
import { jsonSchema } from '../openapi.ts';
import { withNullAsAnyOf } from './portable-schema.ts';
import { publicOrigin } from '../site/origin.ts';

/** The version this service reports in `serverInfo`. */
export const SERVER_VERSION = '1.0.0';

/** JSON-RPC 2.0 error code of a refusal by a rate limit (implementation-defined server error range). */
export const RATE_LIMITED_RPC_CODE = -32029;

/** What a tool answers: its result as JSON text (sent as text content) and as an object (`structuredContent`). */
export interface ToolAnswer {
  text: string;
  structured: Record<string, unknown>;
}

/**
 * One tool of a server, generated from a calculator or fund-tool declaration.
 * @typeParam C what the server's admission step resolved for this request (caller, fund source, ...)
 */
export interface McpTool<C> {
  /** The entry `tools/list` shows: name, title, description, input and output JSON Schema, annotations. */
  definition: Tool;
  /**
   * Answers `tools/call`.
   * @throws {ApiError} for anything the caller should see (bad arguments, no data); it becomes an `isError`
   *   result carrying the problem body. Anything else becomes a generic `internal_error` result.
   */
  call(context: C, args: Record<string, unknown>): Promise<ToolAnswer>;
  /** True for a tool whose calls are not charged against the server's limit (`search_docs`). */
  free?: boolean;
}

/** One MCP server: its identity, its tools, and the HTTP rules in front of them. */
export interface McpServerSpec<C> {
  name: string;
  title: string;
  /** Told to the client in `initialize`: what the server is for and how to use it. */
  instructions: string;
  /** Summary and description of the endpoint in the OpenAPI document. */
  summary: string;
  description: string;
  auth: 'none' | 'optional' | 'required';
  problems: ProblemCode[];
  /** The tools (built once per isolate by the caller; the list is read on every request). */
  tools(): readonly McpTool<C>[];
  /**
   * Admits the request before its body is read.
   * @throws {ApiError} 401 / 403 refusals
   */
  admit(c: Context<AppEnv>): Promise<C>;
  /**
   * Charges `calls` tool calls against the server's limit.
   * @returns headers to add to the response (RateLimit)
   * @throws {RateLimitedError} the limit is spent
   */
  charge(c: Context<AppEnv>, context: C, calls: number, now: Date): Promise<Record<string, string>>;
  /** `Cache-Control` of the server's answers. */
  cacheControl: string;
  /**
   * Called once a request admitted by {@link McpServerSpec.admit} is answered, with a promise that settles
   * when the answer has been sent in full (an SSE stream ends after the response is returned).
   */
  finish?(c: Context<AppEnv>, context: C, answered: Promise<unknown>): void;
}

/** A tool's annotations: every tool of both servers only reads (contract §6: `readOnlyHint: true`). */
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
 * `exposure/series`) is described, and sent, as `{ items: [...] }`; its text content stays the bare array.
 */
export function toolOutputSchema(schema: z.ZodType): NonNullable<Tool['outputSchema']> {
  const described = withNullAsAnyOf(jsonSchema(schema, 'output')) as Record<string, unknown>;
  if (described.type === 'array') {
    return { type: 'object', properties: { items: described }, required: ['items'], additionalProperties: false };
  }
  return described as NonNullable<Tool['outputSchema']>;
}

/** The `structuredContent` of a result given as JSON text: the object itself, or an array as `{ items }`. */
export function structuredOf(text: string): Record<string, unknown> {
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? { items: value } : (value as Record<string, unknown>);
}

/** Messages of errors this module throws on purpose; {@link withOwnErrorText} lets them through. */
const OWN_MESSAGES = new Set<string>();

/** A JSON-RPC error thrown from a request handler; the SDK sends `code` and `message` as they are. */
class RpcError extends Error {
  readonly code: number;
  /** @param fixed false for a message built from a checked value ({@link unknownToolMessage}), not remembered */
  constructor(code: number, message: string, fixed = true) {
    super(message);
    this.code = code;
    if (fixed) OWN_MESSAGES.add(message);
  }
}

/** A tool name this service could have: lower-case letters, digits and `_`, at most 64 characters. */
const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;
/** The message of an unknown tool that names it; only ever built from a name matching {@link TOOL_NAME}. */
const UNKNOWN_TOOL_NAMED = /^Unknown tool "[a-z][a-z0-9_]{0,63}": tools\/list names every tool of this server\.$/;

/**
 * The error text of a `tools/call` naming no tool of the server: the name asked for when it has the shape
 * of a tool name (so it cannot carry arbitrary submitted text), else a generic text.
 */
export function unknownToolMessage(name: string): string {
  return TOOL_NAME.test(name) ? `Unknown tool "${name}": tools/list names every tool of this server.` : 'Unknown tool: tools/list names every tool of this server.';
}

/**
 * The server never validates a schema at run time (it asks nothing of clients), so the SDK's default Ajv
 * validator, which compiles code from strings (refused by workerd) and costs milliseconds per server, is
 * replaced by one that refuses.
 */
const NO_SCHEMA_VALIDATION: jsonSchemaValidator = {
  getValidator: () => () => ({ valid: false, data: undefined, errorMessage: 'This server validates no client data.' }),
};

/** True when a browser `Origin` may call the MCP servers: none sent, the service's own, or allow-listed. */
export function originAllowed(origin: string | undefined, requestUrl: string, allowList: string | undefined): boolean {
  if (origin === undefined) return true;
  if (origin === new URL(requestUrl).origin) return true;
  const allowed = (allowList ?? '').split(',').map((o) => o.trim()).filter(Boolean);
  return allowed.includes('*') || allowed.includes(origin);
}

/**
 * The revision to serve a request's `MCP-Protocol-Version` header as: itself when the SDK implements it;
 * the newest implemented one for a later date-shaped revision (`2026-06-18`); none when absent.
 * @returns `null` for a header that is neither (refused with 400)
 */
export function servedProtocolVersion(header: string | undefined): string | undefined | null {
  if (header === undefined) return undefined;
  if (SUPPORTED_PROTOCOL_VERSIONS.includes(header)) return header;
  if (/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/.test(header) && header > LATEST_PROTOCOL_VERSION) return LATEST_PROTOCOL_VERSION;
  return null;
}

/** True when the client asked for SSE only: its `Accept` lists `text/event-stream` and not `application/json`. */
export function wantsEventStream(accept: string | undefined): boolean {
  const types = (accept ?? '').split(',').map((t) => t.split(';')[0]!.trim().toLowerCase());
  return types.includes('text/event-stream') && !types.includes('application/json');
}

interface RpcMessage {
  id?: unknown;
  method?: unknown;
}

/**
 * True for a JSON-RPC 2.0 message: a request or notification (`method`, optional object `params`, `id` a
 * string or number when present) or a response (`id` and `result` or `error`).
 */
export function isJsonRpcMessage(m: unknown): boolean {
  if (!isJsonObject(m) || m.jsonrpc !== '2.0') return false;
  const idOk = !('id' in m) || typeof m.id === 'string' || typeof m.id === 'number';
  if ('method' in m) return typeof m.method === 'string' && idOk && (m.params === undefined || isJsonObject(m.params));
  return 'id' in m && idOk && ('result' in m || 'error' in m);
}

/** True for a request (a message with a method and an id), as opposed to a notification or a response. */
function isRequest(m: unknown): m is RpcMessage & { method: string; id: string | number } {
  return isJsonObject(m) && typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number');
}

/** The tool a `tools/call` request names (`''` when it names none; only compared, never echoed). */
function toolNameOf(m: RpcMessage & { params?: unknown }): string {
  const params = m.params;
  return isJsonObject(params) && typeof params.name === 'string' ? params.name : '';
}

/** A JSON-RPC error response body (`id` null when the request's id is unknown). */
function rpcError(id: unknown, code: number, message: string, data?: unknown): Record<string, unknown> {
  return { jsonrpc: '2.0', id: id ?? null, error: data === undefined ? { code, message } : { code, message, data } };
}

function rpcResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers },
  });
}

/** A JSON-RPC 2.0 request or notification, as the OpenAPI document describes the body. */
const RPC_MESSAGE = z.looseObject({ jsonrpc: z.literal('2.0'), method: z.string(), id: z.union([z.string(), z.number()]).optional() });
/** A JSON-RPC 2.0 response: `result`, or `error` with a code and message. */
const RPC_RESPONSE = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number(), z.null()]),
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.looseObject({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
});

/**
 * The endpoint of an MCP server: `POST` only (GET and DELETE are 405 with `Allow: POST`: the service keeps
 * no sessions and offers no server-initiated stream).
 */
export function mcpEndpoint<C>(spec: McpServerSpec<C>): Endpoint {
  return {
    methods: {
      POST: {
        operationId: spec.name.replace(/-(\w)/g, (_, ch: string) => ch.toUpperCase()),
        summary: spec.summary,
        description: spec.description,
        tags: ['MCP'],
        auth: spec.auth,
        body: z
          .union([RPC_MESSAGE, z.array(RPC_MESSAGE).min(1)])
          .describe('A JSON-RPC 2.0 message, or a batch (a non-empty array) of them.'),
        response: {
          description:
            'The JSON-RPC 2.0 response to a request, or for a batch an array of the responses to its requests (matched by id; notifications get none). A body of notifications only is answered 202 with no body.',
          schema: z.union([RPC_RESPONSE, z.array(RPC_RESPONSE)]),
        },
        problems: spec.problems,
        handle: (c, ctx) => handleMcp(spec, c, ctx),
      },
    },
  };
}

async function handleMcp<C>(spec: McpServerSpec<C>, c: Context<AppEnv>, ctx: RequestContext): Promise<Response> {
  if (!originAllowed(c.req.header('origin'), c.req.url, c.env.MCP_ALLOWED_ORIGINS)) throw new OriginNotAllowedError();
  const context = await spec.admit(c);
  let answered: Promise<unknown> = Promise.resolve();
  try {
    const { response, streamed } = await answerMcp(spec, c, ctx, context);
    answered = streamed;
    return response;
  } finally {
    spec.finish?.(c, context, answered);
  }
}

/** Everything after admission; `streamed` settles when an SSE body has been sent in full. */
async function answerMcp<C>(
  spec: McpServerSpec<C>,
  c: Context<AppEnv>,
  ctx: RequestContext,
  context: C,
): Promise<{ response: Response; streamed: Promise<unknown> }> {
  const now = (response: Response) => ({ response, streamed: Promise.resolve() });
  const version = servedProtocolVersion(c.req.header('mcp-protocol-version'));
  if (version === null) {
    return now(rpcResponse(400, rpcError(null, ErrorCode.InvalidRequest, 'Unsupported MCP-Protocol-Version.', { supported: SUPPORTED_PROTOCOL_VERSIONS })));
  }
  if (!isJsonMediaType(c.req.header('content-type'))) throw new UnsupportedMediaTypeError();

  let body: unknown;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    return now(rpcResponse(400, rpcError(null, ErrorCode.ParseError, 'Parse error: the body is not JSON.')));
  }
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  if (messages.length === 0) return now(rpcResponse(400, rpcError(null, ErrorCode.InvalidRequest, 'Invalid Request: an empty batch.')));
  if (!messages.every(isJsonRpcMessage)) {
    return now(rpcResponse(400, rpcError(null, ErrorCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message.')));
  }

  const requests = messages.filter(isRequest);
  const free = new Set(spec.tools().filter((t) => t.free).map((t) => t.definition.name));
  const calls = requests.filter((m) => m.method === 'tools/call' && !free.has(toolNameOf(m))).length;
  let limitHeaders: Record<string, string> = {};
  if (calls > 0) {
    try {
      limitHeaders = await spec.charge(c, context, calls, ctx.clock());
    } catch (err) {
      if (!(err instanceof RateLimitedError)) throw err;
      const errors = requests.map((m) => rpcError(m.id, RATE_LIMITED_RPC_CODE, err.detail, { status: 429, code: err.code, retryAfterSeconds: Number(err.headers['Retry-After']) }));
      return now(rpcResponse(429, Array.isArray(body) ? errors : errors[0], err.headers));
    }
  }

  const sse = wantsEventStream(c.req.header('accept'));
  const server = createServer(spec, context, c.get('requestId'), `${publicOrigin(c)}/`);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !sse });
  await server.connect(transport);
  withOwnErrorText(transport);

  const headers = new Headers(c.req.raw.headers);
  headers.set('accept', 'application/json, text/event-stream');
  if (version === undefined) headers.delete('mcp-protocol-version');
  else headers.set('mcp-protocol-version', version);
  const answer = await transport.handleRequest(new Request(c.req.url, { method: 'POST', headers }), { parsedBody: body });

  let streamed: Promise<unknown> = Promise.resolve();
  let out = answer.body;
  if (sse && out) {
    // The handlers are still answering into the stream: watch a copy of it to know when they are done.
    const [toClient, watched] = out.tee();
    out = toClient;
    streamed = new Response(watched).arrayBuffer().finally(() => server.close());
  } else {
    void server.close();
  }
  const response = new Response(out, answer);
  for (const [name, value] of Object.entries(limitHeaders)) response.headers.set(name, value);
  response.headers.set('Cache-Control', sse ? `${spec.cacheControl}, no-transform` : spec.cacheControl);
  return { response, streamed };
}

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
 * its schema checks is zod's issue list (contract §6: no error text carries internals).
 */
function withOwnErrorText(transport: WebStandardStreamableHTTPServerTransport): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ('error' in message && !OWN_MESSAGES.has(message.error.message) && !UNKNOWN_TOOL_NAMED.test(message.error.message)) {
      const code = message.error.code in STANDARD_MESSAGES ? message.error.code : ErrorCode.InternalError;
      return send({ ...message, error: { code, message: STANDARD_MESSAGES[code]! } }, options);
    }
    return send(message, options);
  };
}

/**
 * `tools/call` as the server registers it: only the method is checked here, so that the SDK's own check of
 * the params (in its tools/call wrapper) answers a malformed call with `-32602` rather than `-32603`.
 */
const ToolsCallRequest = z.looseObject({ method: z.literal('tools/call') });

/** A fresh SDK server for one request (`serverInfo.websiteUrl`: the service's home page), answering `tools/list` and `tools/call` from the spec's tools. */
function createServer<C>(spec: McpServerSpec<C>, context: C, requestId: string, websiteUrl: string): Server {
  const tools = spec.tools();
  const byName = new Map(tools.map((t) => [t.definition.name, t]));
  const server = new Server(
    { name: spec.name, title: spec.title, version: SERVER_VERSION, websiteUrl },
    { capabilities: { tools: { listChanged: false } }, instructions: spec.instructions, jsonSchemaValidator: NO_SCHEMA_VALIDATION },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((t) => t.definition) }));
  server.setRequestHandler(ToolsCallRequest, async (raw): Promise<CallToolResult> => {
    // The SDK's tools/call wrapper has checked the params against CallToolRequestSchema before this runs.
    const request = raw as unknown as CallToolRequest;
    const tool = byName.get(request.params.name);
    if (!tool) {
      const message = unknownToolMessage(request.params.name);
      throw new RpcError(ErrorCode.InvalidParams, message, !UNKNOWN_TOOL_NAMED.test(message));
    }
    try {
      const { text, structured } = await tool.call(context, request.params.arguments ?? {});
      return { content: [{ type: 'text', text }], structuredContent: structured };
    } catch (err) {
      const { body } = problemOf(err, requestId);
      return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
    }
  });
  return server;
}

/** Builds a value once per isolate, on first use (tool lists are generated from schemas). */
export function once<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}
