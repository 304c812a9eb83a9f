/**
 * MCP dispatch, the HTTP framing of both MCP servers (docs/mcp.md), on the SDK's Web-standard Streamable HTTP
 * transport in stateless mode, with a fresh `Server` and transport for every request (the SDK refuses reuse).
 * The tool types are in `tools.ts`, the SDK adapter (error texts, params checking, the server per request)
 * in `sdk-adapter.ts`.
 *
 * Order of one `POST`: the endpoint's steps (lib/mcp/endpoint.ts: Host (421) and Origin (403), the
 * DNS-rebinding guard of `lib/origin.ts` → the server's credential (key or token: 401/403) → on the fund
 * server, the scope) → here: `MCP-Protocol-Version` (400) → Content-Type (415) → JSON (400,
 * JSON-RPC `-32700`) → JSON-RPC messages (400, `-32600`) → batching allowed by the revision (400,
 * `-32600`) → the server's limit, charged once per `tools/call` in the body (429 with a JSON-RPC error
 * body) → the SDK, which answers `initialize`, `tools/list`, `tools/call`, notifications (202) and batches.
 * HTTP refusals before the body is read are problem+json like every other endpoint; everything after is
 * JSON-RPC.
 *
 * What this module adds to the SDK at the HTTP level (docs/mcp.md):
 * - JSON responses always, SSE only when the client's `Accept` lists `text/event-stream` and not
 *   `application/json`; an `Accept` of `application/json` alone, `*\/*` or none is served (the SDK alone
 *   would answer 406).
 * - A `MCP-Protocol-Version` later than the newest the SDK implements (e.g. `2026-06-18`) is served as that
 *   newest revision, as `initialize` negotiates it, rather than refused.
 * - JSON-RPC 2.0 error codes (§5.1): well-formed JSON that is not a message by the SDK's own
 *   `JSONRPCMessageSchema` (an `id` of `1.5` or an object, non-object `params` or `_meta`) is `-32600`
 *   Invalid Request with id null, not the SDK's `-32700`; a request whose params fail its method's schema
 *   (`initialize` with `"protocolVersion": 5`) is `-32602` Invalid params, not the SDK's `-32603`.
 * - Batches follow the revision in force: MCP removed JSON-RPC batching in 2025-06-18, so a batch under that
 *   revision or a later one is refused with `-32600`; under earlier ones (no header: the SDK's assumption,
 *   2025-03-26) it is served, and answered with an array even for one response (JSON-RPC 2.0 §6). A batch
 *   holding an invalid message, two requests with one id (the SDK answers only one of them), an
 *   `initialize` with other messages, or more than the SDK's `MAX_BATCH_SIZE` (100) messages is refused
 *   whole with `-32600`, before anything is charged.
 */
import type { Context } from 'hono';
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  ErrorCode,
  JSONRPCMessageSchema,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type { AppEnv } from '../env.ts';
import { UnsupportedMediaTypeError } from '../errors.ts';
import { isJsonObject, stillSending, type RequestContext } from '../endpoint.ts';
import { MCP_ANSWER_TIMEOUT_MS } from '../limits.ts';
import { publicOrigin } from '../origin.ts';
import { logContextOf } from '../log.ts';
import { createServer, withOwnErrorText } from './sdk-adapter.ts';
import type { McpServerSpec } from './tools.ts';
import {
  BATCHING_REMOVED_IN,
  BATCH_REFUSAL,
  chargeToolCalls,
  isMcpMediaType,
  isRequest,
  rpcError,
  rpcResponse,
  withinTime,
  type RpcMessage,
} from './rpc.ts';

export { BATCHING_REMOVED_IN, McpAnswerTimeoutError, isMcpMediaType, withinTime } from './rpc.ts';

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

/**
 * True for a JSON-RPC 2.0 message as MCP defines it, by the SDK's own `JSONRPCMessageSchema` (the one its
 * transport parses with): a request (`id` a string or an integer), a notification, or a response, with
 * `params` and `params._meta` objects when present and no other top-level members.
 */
export function isJsonRpcMessage(m: unknown): boolean {
  return JSONRPCMessageSchema.safeParse(m).success;
}

/**
 * The revision a batch is read under: the one served for the `MCP-Protocol-Version` header; without one, the
 * revision an `initialize` in the batch negotiates (the one it asks for when implemented, else the newest);
 * without either, the SDK's assumption for a request without the header (`2025-03-26`).
 * @param served what {@link servedProtocolVersion} made of the header
 * @param messages the batch's messages (already checked by {@link isJsonRpcMessage})
 */
export function batchRevision(served: string | undefined, messages: readonly unknown[]): string {
  if (served !== undefined) return served;
  const init = messages.find((m) => isJsonObject(m) && m.method === 'initialize');
  if (init !== undefined) {
    const params = (init as { params?: { protocolVersion?: unknown } }).params;
    const asked = params?.protocolVersion;
    return typeof asked === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION;
  }
  return DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
}

/**
 * The `arguments` of each `tools/call` request by its id, as `JSON.parse` read them from the body: the
 * SDK's parse of the request rebuilds them and drops a member named `__proto__`, which the REST endpoints,
 * reading `JSON.parse`'s object, refuse as an unknown field. The tools read these, so both surfaces check
 * the same object.
 */
function argumentsById(requests: readonly (RpcMessage & { id: string | number })[]): ReadonlyMap<string | number, unknown> {
  const out = new Map<string | number, unknown>();
  for (const m of requests) {
    const params = (m as { params?: unknown }).params;
    if (m.method === 'tools/call' && isJsonObject(params) && Object.hasOwn(params, 'arguments')) out.set(m.id, params.arguments);
  }
  return out;
}

/**
 * Why a JSON body is not an acceptable JSON-RPC request here, as the message of its `-32600` Invalid
 * Request answer (JSON-RPC 2.0 §5.1, id null); `null` when it is acceptable. Refused, in this order, before
 * anything is charged: an empty batch; a batch over the SDK's `MAX_BATCH_SIZE` (100) messages; any element
 * that is not a JSON-RPC message ({@link isJsonRpcMessage}); any batch under a revision without batching
 * ({@link batchRevision}, {@link BATCHING_REMOVED_IN}); an `initialize` with other messages; two requests
 * with one id; a `notifications/cancelled` of a request in the same batch (the SDK leaves that request
 * unanswered, and the JSON answer, which waits for every response, would hang). The SDK refuses the oversized batch and the batched `initialize` too, and answers only one
 * of two requests with one id, but only after the batch's tools/calls were charged.
 * @param body the parsed body: one message, or an array of them (a batch)
 * @param served what {@link servedProtocolVersion} made of the `MCP-Protocol-Version` header
 */
export function invalidRequestReason(body: unknown, served: string | undefined): string | null {
  const batch = Array.isArray(body);
  const messages: unknown[] = batch ? body : [body];
  if (messages.length === 0) return 'Invalid Request: an empty batch.';
  if (messages.length > MAX_BATCH_SIZE) return `Invalid Request: a batch holds at most ${MAX_BATCH_SIZE} messages.`;
  if (!messages.every(isJsonRpcMessage)) return 'Invalid Request: not a JSON-RPC 2.0 message.';
  if (batch && batchRevision(served, messages) >= BATCHING_REMOVED_IN) {
    return BATCH_REFUSAL;
  }
  const requests = messages.filter(isRequest);
  if (messages.length > 1 && requests.some((m) => m.method === 'initialize')) {
    return 'Invalid Request: initialize must be sent alone, not in a batch with other messages.';
  }
  // The SDK matches responses to requests by id: of two requests with one id, one would go unanswered.
  const ids = new Set(requests.map((m) => m.id));
  if (ids.size !== requests.length) return 'Invalid Request: the requests of a batch need distinct ids.';
  // A cancellation of a request in the same batch: the SDK would never answer that request, and the JSON
  // answer, which waits for every response, would hang until the runtime ended it (found by the fuzz suite).
  const cancels = messages.filter((m) => (m as { method?: unknown }).method === 'notifications/cancelled');
  if (batch && cancels.some((m) => ids.has((m as { params?: { requestId?: unknown } }).params?.requestId as string | number))) {
    return 'Invalid Request: a batch may not cancel its own requests.';
  }
  return null;
}

/**
 * Answers one request of an MCP server once its steps admitted it (the order of checks is in this module's
 * comment). Evaluated with the Worker and warmed at its startup ({@link warmUpSdk}).
 * @throws {ApiError} the HTTP refusals made before the body is read (415), as problem+json
 */
export async function handleMcp(spec: McpServerSpec, c: Context<AppEnv>, ctx: RequestContext): Promise<Response> {
  const { response, streamed } = await answerMcp(spec, c, ctx);
  // An SSE body is still being written when its Response is returned: the scope step releases the fund
  // source once it is sent.
  stillSending(c, streamed);
  return response;
}

/** Everything after admission; `streamed` settles when an SSE body has been sent in full. */
async function answerMcp(
  spec: McpServerSpec,
  c: Context<AppEnv>,
  ctx: RequestContext,
): Promise<{ response: Response; streamed: Promise<unknown> }> {
  const now = (response: Response) => ({ response, streamed: Promise.resolve() });
  const version = servedProtocolVersion(c.req.header('mcp-protocol-version'));
  if (version === null) {
    return now(
      rpcResponse(
        400,
        rpcError(null, ErrorCode.InvalidRequest, 'Unsupported MCP-Protocol-Version.', { supported: SUPPORTED_PROTOCOL_VERSIONS }),
      ),
    );
  }
  // The Streamable HTTP transport takes `application/json` only (the SDK would answer a `+json` type with a
  // bare JSON-RPC 415): refuse every other type here, as problem+json like every other refusal.
  if (!isMcpMediaType(c.req.header('content-type'))) throw new UnsupportedMediaTypeError();

  let body: unknown;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    return now(rpcResponse(400, rpcError(null, ErrorCode.ParseError, 'Parse error: the body is not JSON.')));
  }
  const refused = invalidRequestReason(body, version);
  if (refused !== null) return now(rpcResponse(400, rpcError(null, ErrorCode.InvalidRequest, refused)));
  const batch = Array.isArray(body);
  const requests = (batch ? (body as unknown[]) : [body]).filter(isRequest);
  const charged = await chargeToolCalls(spec, c, ctx, requests, batch);
  if (charged instanceof Response) return now(charged);
  const limitHeaders = charged;

  const sse = wantsEventStream(c.req.header('accept'));
  const server = createServer(spec, ctx.catalog, c, logContextOf(c), `${publicOrigin(c)}/`, argumentsById(requests));
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !sse });
  await server.connect(transport);
  withOwnErrorText(transport);

  const headers = new Headers(c.req.raw.headers);
  headers.set('accept', 'application/json, text/event-stream');
  if (version === undefined) headers.delete('mcp-protocol-version');
  else headers.set('mcp-protocol-version', version);
  let answer: Response;
  try {
    answer = await withinTime(
      transport.handleRequest(new Request(c.req.url, { method: 'POST', headers }), { parsedBody: body }),
      MCP_ANSWER_TIMEOUT_MS,
    );
  } catch (err) {
    void server.close();
    throw err;
  }

  let streamed: Promise<unknown> = Promise.resolve();
  let out: BodyInit | null = null;
  if (batch && !sse && answer.status === 200) {
    // JSON-RPC 2.0 §6: a batch is answered with an array, even of one response (the SDK sends it bare).
    const answered: unknown = await answer.json();
    out = JSON.stringify(Array.isArray(answered) ? answered : [answered]);
  }
  if (sse && answer.body) {
    // The handlers are still answering into the stream: watch a copy of it to know when they are done.
    const [toClient, watched] = answer.body.tee();
    out = toClient;
    streamed = new Response(watched).arrayBuffer().finally(() => server.close());
  }
  // A JSON answer is complete here (the transport resolves once every response is in), and this server and
  // transport serve no other request: they are left to the garbage collector rather than closed. Closing
  // frees nothing more and built an `McpError` with its stack trace per request (5% of a call in workerd).

  // Any other answer is sent as the SDK made it (its body is its text), with our headers set on it: no
  // second Response around its body stream.
  const response =
    out === null ? answer : new Response(out, { status: answer.status, statusText: answer.statusText, headers: answer.headers });
  for (const [name, value] of Object.entries(limitHeaders)) response.headers.set(name, value);
  response.headers.set('Cache-Control', sse ? `${spec.cacheControl}, no-transform` : spec.cacheControl);
  return { response, streamed };
}

/** The one tool of the startup exchange ({@link warmUpSdk}): answers `{}`, reads nothing. */
const WARM_UP_TOOL = { name: 'warm_up', call: async () => ({ text: '{}', structured: {} }) };

/** The server of the startup exchange: {@link WARM_UP_TOOL} only, no steps, nothing charged. */
const WARM_UP_SERVER: McpServerSpec = {
  name: 'warm-up',
  title: 'warm-up',
  instructions: '',
  summary: '',
  description: '',
  auth: 'none',
  problems: [],
  tools: () => [WARM_UP_TOOL],
  definitions: () => [],
  steps: [],
  charge: async () => ({}),
  cacheControl: 'no-store',
};

/**
 * One exchange through the SDK at an isolate's startup (lib/worker.ts), so that its first MCP request finds
 * the code a `tools/call` runs compiled and the SDK's message schemas prepared (zod builds a schema's parser
 * on its first parse, and without code generation in workerd that is slow): the body's checks
 * ({@link invalidRequestReason}), then a server and transport made as for a request ({@link createServer})
 * answering a `tools/call` of a tool that answers `{}`. It does no I/O and sets no timer, so it settles
 * within the startup's own microtasks; nothing is kept, and a failure is ignored: every request does its own
 * work regardless. A `tools/call` of a 2025 revision: the 2026-07-28 leg (modern.ts, the v2 SDK) is still
 * evaluated on its first request.
 * @returns the answer, unread (a JSON-RPC response whose result is the tool's `{}`: what tests check), or
 *   null when the body's checks refused the message
 */
export async function warmUpSdk(): Promise<Response | null> {
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: WARM_UP_TOOL.name, arguments: {} } };
  if (invalidRequestReason(body, undefined) !== null) return null;
  const at = { requestId: 'warm-up', method: 'POST', route: '/' };
  const server = createServer(WARM_UP_SERVER, {} as RequestContext['catalog'], undefined as unknown as Context<AppEnv>, at, '/');
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  withOwnErrorText(transport);
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const answer = await transport.handleRequest(new Request('http://localhost/', { method: 'POST', headers }), { parsedBody: body });
  return answer;
}
