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
import { SERVER_VERSION, toolCallResult, unknownToolMessage, type McpServerSpec } from './tools.ts';

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
    responseMode: 'json',
    keepAliveMs: 0,
  });
  const headers = new Headers(c.req.raw.headers);
  headers.set('accept', 'application/json, text/event-stream');
  const answer = await withinTime(
    handler.fetch(new Request(c.req.url, { method: 'POST', headers }), { parsedBody: body }),
    MCP_ANSWER_TIMEOUT_MS,
  );
  const response = new Response(answer.body, answer);
  for (const [name, value] of Object.entries(charged)) response.headers.set(name, value);
  response.headers.set('Cache-Control', spec.cacheControl);
  return response;
}
