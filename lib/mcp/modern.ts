/**
 * The MCP 2026-07-28 leg of both servers (docs/mcp.md#protocol-revisions): a request whose
 * `MCP-Protocol-Version` names 2026-07-28 or later is answered by the v2 SDK (`@modelcontextprotocol/server`,
 * `createMcpHandler` with 2025 traffic refused, JSON answers), which speaks the revision: no session and no
 * `initialize`, `server/discover`, the per-request `_meta` envelope, the `Mcp-Method` / `Mcp-Name` headers,
 * `resultType` and `ttlMs` / `cacheScope` on results. 2025 revisions stay on the v1 SDK (dispatch.ts): the
 * v2 SDK doubles the CPU of an isolate's first MCP request (docs/mcp.md says by how much).
 *
 * Loaded on an isolate's first 2026-07-28 request only (lib/mcp/endpoint.ts), without the v1 SDK. In front of
 * the SDK, as on the 2025 leg: the endpoint's steps (the DNS-rebinding guard, the credential, the scope) have
 * run; then Content-Type (415 problem+json), JSON (`-32700`), no batch (`-32600`), and the server's limit
 * charged for a `tools/call` (429 with a JSON-RPC error). The tools are the same objects as on the 2025 leg,
 * each calling its request kind's one handler; `tools/list` answers the build-time definitions.
 */
import type { Context } from 'hono';
import { ProtocolError, ProtocolErrorCode, Server, createMcpHandler } from '@modelcontextprotocol/server';
import type { AppEnv } from '../env.ts';
import { UnsupportedMediaTypeError } from '../errors.ts';
import type { Catalog, RequestContext } from '../endpoint.ts';
import { MCP_ANSWER_TIMEOUT_MS } from '../limits.ts';
import { logContextOf, type LogContext } from '../log.ts';
import { publicOrigin } from '../origin.ts';
import { BATCH_REFUSAL, chargeToolCalls, isMcpMediaType, isRequest, rpcError, rpcResponse, withinTime } from './rpc.ts';
import { SERVER_VERSION, UNKNOWN_TOOL_NAMED, toolCallResult, unknownToolMessage, type McpServerSpec } from './tools.ts';

/**
 * The message each JSON-RPC error code is sent with on this leg. The v2 SDK words some errors with what the
 * request sent (a header's or a tool's name, a version); no error text of the service carries submitted
 * text (docs/mcp.md), so every message but the named unknown tool (its name checked) is replaced by its
 * code's text, and `data` is kept only where a client needs it: the revisions supported (`-32022`, to retry
 * with one) and the capabilities required (`-32021`).
 */
const ERROR_TEXTS: Readonly<Record<number, string>> = {
  [ProtocolErrorCode.ParseError]: 'Parse error',
  [ProtocolErrorCode.InvalidRequest]: 'Invalid Request',
  [ProtocolErrorCode.MethodNotFound]: 'Method not found',
  [ProtocolErrorCode.InvalidParams]: 'Invalid params',
  [ProtocolErrorCode.InternalError]: 'Internal error',
  [-32020]: 'Bad Request: the MCP request headers and the body disagree.',
  [ProtocolErrorCode.MissingRequiredClientCapability]: 'Missing required client capability',
  [ProtocolErrorCode.UnsupportedProtocolVersion]: 'Unsupported protocol version',
};

/** A JSON-RPC error object with the service's own text ({@link ERROR_TEXTS}). */
export function ownError(error: { code?: unknown; message?: unknown; data?: unknown }): Record<string, unknown> {
  const message = typeof error.message === 'string' ? error.message : '';
  const known = typeof error.code === 'number' && error.code in ERROR_TEXTS;
  const code = known ? (error.code as number) : ProtocolErrorCode.InternalError;
  if (code === ProtocolErrorCode.InvalidParams && UNKNOWN_TOOL_NAMED.test(message)) return { code, message };
  const data = error.data as { supported?: unknown; requiredCapabilities?: unknown } | undefined;
  const kept =
    code === ProtocolErrorCode.UnsupportedProtocolVersion && Array.isArray(data?.supported)
      ? { supported: data.supported.filter((v) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) }
      : code === ProtocolErrorCode.MissingRequiredClientCapability && data?.requiredCapabilities !== undefined
        ? { requiredCapabilities: data.requiredCapabilities }
        : undefined;
  return { code, message: ERROR_TEXTS[code]!, ...(kept ? { data: kept } : {}) };
}

/**
 * How long a client may keep a `tools/list` answer (`ttlMs`): the tools change only with a deployment.
 * The public server's list is the same for everyone (`cacheScope: public`); the fund server's is `private`.
 */
export const TOOLS_LIST_TTL_MS = 3_600_000;

/**
 * The v2 SDK server of one request: `tools/list` from the build-time definitions, `tools/call` through the
 * tools, an unknown tool `-32602` with {@link unknownToolMessage}.
 * @param rawArguments the `tools/call`'s `arguments` as the body held them (a member named `__proto__`
 *   included, which REST refuses as an unknown field)
 */
function serverOf(spec: McpServerSpec, catalog: Catalog, c: Context<AppEnv>, at: LogContext, rawArguments: unknown): Server {
  const byName = new Map(spec.tools(catalog).map((t) => [t.name, t]));
  const server = new Server(
    { name: spec.name, title: spec.title, version: SERVER_VERSION, websiteUrl: `${publicOrigin(c)}/` },
    { capabilities: { tools: { listChanged: false } }, instructions: spec.instructions },
  );
  const cacheScope = spec.auth === 'required' ? 'private' : 'public';
  server.setRequestHandler('tools/list', () => ({ tools: [...spec.definitions(catalog)], ttlMs: TOOLS_LIST_TTL_MS, cacheScope }) as never);
  server.setRequestHandler('tools/call', async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, unknownToolMessage(request.params.name));
    const args = (rawArguments ?? request.params.arguments ?? {}) as Record<string, unknown>;
    return (await toolCallResult(tool, c, at, args)) as never;
  });
  return server;
}

/** The answer's body, its JSON-RPC error (if it is one) given the service's own text ({@link ownError}). */
async function withOwnErrors(answer: Response): Promise<BodyInit | null> {
  if (!(answer.headers.get('content-type') ?? '').startsWith('application/json')) return answer.body;
  const text = await answer.text();
  if (!text.includes('"error"')) return text;
  const message = JSON.parse(text) as { error?: Record<string, unknown> };
  return message.error ? JSON.stringify({ ...message, error: ownError(message.error) }) : text;
}

/**
 * Answers one 2026-07-28 request of an MCP server once its steps admitted it.
 * @throws {UnsupportedMediaTypeError} 415 for a body that is not `application/json`
 */
export async function handleModern(spec: McpServerSpec, c: Context<AppEnv>, ctx: RequestContext): Promise<Response> {
  if (!isMcpMediaType(c.req.header('content-type'))) throw new UnsupportedMediaTypeError();
  let body: unknown;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    return rpcResponse(400, rpcError(null, ProtocolErrorCode.ParseError, 'Parse error: the body is not JSON.'));
  }
  if (Array.isArray(body)) return rpcResponse(400, rpcError(null, ProtocolErrorCode.InvalidRequest, BATCH_REFUSAL));
  const requests = isRequest(body) ? [body] : [];
  const charged = await chargeToolCalls(spec, c, ctx, requests, false);
  if (charged instanceof Response) return charged;

  const params = (body as { params?: { arguments?: unknown } }).params;
  const rawArguments = requests[0]?.method === 'tools/call' && params && Object.hasOwn(params, 'arguments') ? params.arguments : undefined;
  const at = logContextOf(c);
  const handler = createMcpHandler(() => serverOf(spec, ctx.catalog, c, at, rawArguments), {
    legacy: 'reject',
    // `auto` answers JSON unless a handler sends a message before its result, which these never do (`json`
    // would say the same and log a warning on every request).
    responseMode: 'auto',
    keepAliveMs: 0,
  });
  const headers = new Headers(c.req.raw.headers);
  headers.set('accept', 'application/json, text/event-stream');
  const answer = await withinTime(
    handler.fetch(new Request(c.req.url, { method: 'POST', headers }), { parsedBody: body }),
    MCP_ANSWER_TIMEOUT_MS,
  );
  const answerHeaders = new Headers(answer.headers);
  answerHeaders.delete('content-length');
  const response = new Response(await withOwnErrors(answer), { status: answer.status, headers: answerHeaders });
  for (const [name, value] of Object.entries(charged)) response.headers.set(name, value);
  response.headers.set('Cache-Control', spec.cacheControl);
  return response;
}
