/**
 * The JSON-RPC plumbing both MCP revisions' legs share, free of any MCP SDK (so that the leg of one revision
 * does not load the other's SDK): JSON-RPC error bodies and responses, a request's kind and tool, the answer
 * timeout, and charging a body's tool calls against the server's limit with the route group's function.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../env.ts';
import { RateLimitedError } from '../errors.ts';
import { isJsonObject, type Catalog, type RequestContext } from '../endpoint.ts';
import { RATE_LIMITED_RPC_CODE, type McpServerSpec } from './tools.ts';

/** The first MCP revision without JSON-RPC batching (its changelog: "Remove support for JSON-RPC batching"). */
export const BATCHING_REMOVED_IN = '2025-06-18';

/** The `-32600` message of a batch under a revision without batching. */
export const BATCH_REFUSAL = `Invalid Request: MCP ${BATCHING_REMOVED_IN} and later revisions accept no JSON-RPC batch; send one message per request.`;

/** The first MCP revision without sessions or `initialize` (per-request `_meta`, `server/discover`), served by the v2 SDK. */
export const FIRST_MODERN_REVISION = '2026-07-28';

/**
 * True for a request of MCP 2026-07-28 or a later revision: its `MCP-Protocol-Version` header is a date from
 * {@link FIRST_MODERN_REVISION} on (the v2 SDK then answers it, or refuses a revision it does not know with
 * the revisions it supports). Everything else is 2025 traffic (the v1 SDK's leg).
 */
export function isModernRequest(header: string | undefined): boolean {
  return header !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(header) && header >= FIRST_MODERN_REVISION;
}

/** A JSON-RPC message as far as these helpers read it. */
export interface RpcMessage {
  id?: unknown;
  method?: unknown;
}

/** True for a request (a message with a method and an id), as opposed to a notification or a response. */
export function isRequest(m: unknown): m is RpcMessage & { method: string; id: string | number } {
  return isJsonObject(m) && typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number');
}

/** The tool a `tools/call` request names (`''` when it names none; only compared, never echoed). */
export function toolNameOf(m: RpcMessage & { params?: unknown }): string {
  const params = m.params;
  return isJsonObject(params) && typeof params.name === 'string' ? params.name : '';
}

/** A JSON-RPC error response body (`id` null when the request's id is unknown). */
export function rpcError(id: unknown, code: number, message: string, data?: unknown): Record<string, unknown> {
  return { jsonrpc: '2.0', id: id ?? null, error: data === undefined ? { code, message } : { code, message, data } };
}

/** A JSON-RPC body as an HTTP response (`Cache-Control: no-store`, the server's set later). */
export function rpcResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers },
  });
}

const FREE_TOOLS = new WeakMap<object, WeakMap<Catalog, ReadonlySet<string>>>();

/** Names of a server's tools that are not charged (`free`), once per spec, catalog and isolate (its tools are fixed). */
function freeToolsOf(spec: McpServerSpec, catalog: Catalog): ReadonlySet<string> {
  let bySpec = FREE_TOOLS.get(spec);
  if (!bySpec) {
    bySpec = new WeakMap();
    FREE_TOOLS.set(spec, bySpec);
  }
  let free = bySpec.get(catalog);
  if (!free) {
    free = new Set(
      spec
        .tools(catalog)
        .filter((t) => t.free)
        .map((t) => t.name),
    );
    bySpec.set(catalog, free);
  }
  return free;
}

/** An MCP answer that did not complete within {@link MCP_ANSWER_TIMEOUT_MS}: a 500, logged as unexpected. */
export class McpAnswerTimeoutError extends Error {
  constructor() {
    super('The MCP server did not complete its answer in time.');
    this.name = 'McpAnswerTimeoutError';
  }
}

/**
 * Settles as `work` does, or rejects with {@link McpAnswerTimeoutError} after `ms` milliseconds, so that an
 * answer the SDK never completes cannot hang the request (the timer is cleared either way).
 */
export async function withinTime<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new McpAnswerTimeoutError()), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Charges the body's `tools/call` requests (but those of free tools) against the server's limit, before any
 * is answered.
 * @param requests the body's requests (a batch's, or the one message's)
 * @param batch whether the body was an array (the 429 answer is one then too)
 * @returns the limit's headers, or the 429 answer (a JSON-RPC error per request) when the limit is spent
 */
export async function chargeToolCalls(
  spec: McpServerSpec,
  c: Context<AppEnv>,
  ctx: RequestContext,
  requests: readonly (RpcMessage & { method: string; id: string | number })[],
  batch: boolean,
): Promise<Record<string, string> | Response> {
  const free = freeToolsOf(spec, ctx.catalog);
  const calls = requests.filter((m) => m.method === 'tools/call' && !free.has(toolNameOf(m))).length;
  if (calls === 0) return {};
  try {
    return await spec.charge(c, calls, ctx.clock());
  } catch (err) {
    if (!(err instanceof RateLimitedError)) throw err;
    const errors = requests.map((m) =>
      rpcError(m.id, RATE_LIMITED_RPC_CODE, err.detail, {
        status: 429,
        code: err.code,
        retryAfterSeconds: Number(err.headers['Retry-After']),
      }),
    );
    return rpcResponse(429, batch ? errors : errors[0], err.headers);
  }
}

/** True for `application/json` (any letter case, with or without parameters): the one type MCP posts. */
export function isMcpMediaType(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
}
