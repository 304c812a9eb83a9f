/**
 * The tool side of both MCP servers: what a server and its tools are (generated from the calculator and
 * fund-tool declarations the composition root hands each request in its {@link Catalog}), and how a server
 * reads its `tools/list` entries, which are computed at build time (`definitions.ts`, docs/mcp.md "Tool
 * definitions") and reach it in the same catalog.
 *
 * A server is its route group's steps (credential and scope, the REST groups' own or, where a refusal must be
 * worded for MCP clients, its own: lib/mcp/refusals.ts), its quota (charged per `tools/call` with the
 * group's charging function) and tools that each call the request kind's one handler, the one REST calls.
 */
import type { Context } from 'hono';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AppEnv } from '../env.ts';
import type { ProblemCode } from '../errors.ts';
import type { Catalog, Step } from '../endpoint.ts';
import { ApiError, problemOf } from '../errors.ts';
import { logFailure, type LogContext } from '../log.ts';
/** The version this service reports in `serverInfo`. */
export const SERVER_VERSION = '1.0.0';

/** JSON-RPC 2.0 error code of a refusal by a rate limit (implementation-defined server error range). */
export const RATE_LIMITED_RPC_CODE = -32029;

/** What a tool answers: its result as JSON text (sent as text content) and as an object (`structuredContent`). */
export interface ToolAnswer {
  text: string;
  structured: Record<string, unknown>;
}

/** One tool of a server, generated from a calculator or fund-tool declaration. */
export interface McpTool {
  /** The tool's name (its `tools/list` entry is in {@link McpServerSpec.definitions}, under the same name). */
  name: string;
  /**
   * Answers `tools/call` through its request kind's handler, reading what the server's steps found (the
   * caller, its fund source) from the request.
   * @throws {ApiError} for anything the caller should see (bad arguments, no data); it becomes an `isError`
   *   result carrying the problem body. Anything else becomes a generic `internal_error` result (logged).
   */
  call(c: Context<AppEnv>, args: Record<string, unknown>): Promise<ToolAnswer>;
  /** True for a tool whose calls are not charged against the server's limit (`search_docs`). */
  free?: boolean;
}

/** One MCP server: its identity, its tools, and the HTTP rules in front of them. */
export interface McpServerSpec {
  name: string;
  title: string;
  /** Told to the client in `initialize`: what the server is for and how to use it. */
  instructions: string;
  /** Summary and description of the endpoint in the OpenAPI document. */
  summary: string;
  description: string;
  auth: 'none' | 'optional' | 'required';
  /** The scopes an OAuth access token of this service needs, where the server accepts one beside a key. */
  oauthScopes?: readonly string[];
  problems: ProblemCode[];
  /** The tools, made from the catalog's declarations (once per catalog and isolate: see {@link perCatalog}). */
  tools(catalog: Catalog): readonly McpTool[];
  /**
   * The entries `tools/list` shows, one per tool in the order of {@link McpServerSpec.tools}: name, title,
   * description, input and output JSON Schema, annotations. Computed at build time from the declarations
   * (`definitions.ts`), handed in by the catalog and parsed on first use ({@link definitionsOf}); `tools/call`
   * never reads them.
   */
  definitions(catalog: Catalog): readonly Tool[];
  /**
   * The route group's steps run before the body is read, after the DNS-rebinding guard: the credential
   * (401 / 403 refusals) and, on the fund server, the scope.
   */
  steps: readonly Step[];
  /**
   * Charges `calls` tool calls against the server's limit, with the route group's charging function.
   * @returns headers to add to the response (RateLimit)
   * @throws {RateLimitedError} the limit is spent
   */
  charge(c: Context<AppEnv>, calls: number, now: Date): Promise<Record<string, string>>;
  /** `Cache-Control` of the server's answers. */
  cacheControl: string;
}

/** The `structuredContent` of a result given as JSON text: the object itself, or an array as `{ items }`. */
export function structuredOf(text: string): Record<string, unknown> {
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? { items: value } : (value as Record<string, unknown>);
}

/**
 * Builds a value from a catalog once per catalog, on first use (the tool lists, their parsed definitions):
 * once per isolate for the Worker's one catalog.
 */
export function perCatalog<T>(build: (catalog: Catalog) => T): (catalog: Catalog) => T {
  const built = new WeakMap<Catalog, T>();
  return (catalog) => {
    let value = built.get(catalog);
    if (value === undefined) {
      value = build(catalog);
      built.set(catalog, value);
    }
    return value;
  };
}

/**
 * A server's `tools/list` entries from their JSON text in the catalog (`toolDefinitions`, written by
 * `npm run build`), parsed once per catalog, on the first `tools/list`.
 */
export function definitionsOf(json: (catalog: Catalog) => string): (catalog: Catalog) => readonly Tool[] {
  return perCatalog((catalog) => JSON.parse(json(catalog)) as Tool[]);
}

/** A tool name this service could have: lower-case letters, digits and `_`, at most 64 characters. */
const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;
/** The message of an unknown tool that names it; only ever built from a name matching {@link TOOL_NAME}. */
export const UNKNOWN_TOOL_NAMED = /^Unknown tool "[a-z][a-z0-9_]{0,63}": tools\/list names every tool of this server\.$/;

/**
 * The error text of a `tools/call` naming no tool of the server: the name asked for when it has the shape
 * of a tool name (so it cannot carry arbitrary submitted text), else a generic text.
 */
export function unknownToolMessage(name: string): string {
  return TOOL_NAME.test(name)
    ? `Unknown tool "${name}": tools/list names every tool of this server.`
    : 'Unknown tool: tools/list names every tool of this server.';
}

/** A `tools/call` result as both revisions send it: the answer as text and `structuredContent`, or `isError`. */
export interface ToolCallResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * Answers a `tools/call` of a tool, for either revision's SDK: its answer as text content and as
 * `structuredContent`, or, when it throws, an `isError` result whose text is the problem+json body
 * (`code`, `detail`, `errors[]` with `/arguments/...` pointers), the failure logged here once, as the
 * app's error handler would have (it never sees it).
 * @param at where a failure is logged (the request's id, method and path)
 */
export async function toolCallResult(
  tool: McpTool,
  c: Context<AppEnv>,
  at: LogContext,
  args: Record<string, unknown>,
): Promise<ToolCallResult> {
  try {
    const { text, structured } = await tool.call(c, args);
    return { content: [{ type: 'text', text }], structuredContent: structured };
  } catch (err) {
    logFailure(err, err instanceof ApiError ? err.status : 500, at);
    const { body } = problemOf(err, at.requestId);
    return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
  }
}
