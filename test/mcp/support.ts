/** Shared setup of the MCP server tests (test/mcp/*.test.ts): the app on a fixed clock, requests, fixtures and assertions. */
import { expect } from 'vitest';
import { createApp } from '../../lib/service.ts';
import type { Env } from '../../lib/env.ts';
import { createKey } from '../../lib/keys.ts';
import { fakeEnv } from '../support/fakes.ts';
import { SPEC_MCP_HEADERS, specInitialize } from '../support/contract.ts';

export const NOW = new Date('2026-11-20T12:00:00Z');
/** Seconds from {@link NOW} to the next UTC midnight. */
export const T = 43_200;
export const app = createApp({ clock: () => NOW });
export const IP = '192.0.2.1';
export const QUOTA_KEY = `calc:${IP}:2026-11-20`;
export const PUBLIC = '/api/mcp/public';
export const FUND = '/api/mcp';
export const SECRET = 'secret-value-123';

export const INITIALIZE = specInitialize('x');

export interface RpcErrorBody {
  code: number;
  message: string;
  data?: unknown;
}
export interface RpcMessage {
  jsonrpc: string;
  id: string | number | null;
  result?: Record<string, unknown>;
  error?: RpcErrorBody;
}
export interface ToolResult {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}
export interface JsonSchemaObject {
  type: string;
  properties?: Record<string, Record<string, unknown>>;
  required?: string[];
}
export interface ToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchemaObject;
  outputSchema?: JsonSchemaObject;
  annotations?: { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  requestId: string;
  errors?: { pointer: string; detail: string }[];
}

export interface PostOptions {
  env?: Env;
  /** Full `Authorization` value; omitted when undefined. */
  auth?: string;
  /** `CF-Connecting-IP`; default {@link IP}, `null` to send none. */
  ip?: string | null;
  /** Header overrides on top of {@link SPEC_MCP_HEADERS} (lower-case names); `null` removes a header. */
  headers?: Record<string, string | null>;
  method?: string;
}

/** POSTs `body` (JSON-encoded unless a string) to an MCP path with the spec's headers. */
export async function post(path: string, body: unknown, options: PostOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...SPEC_MCP_HEADERS };
  const ip = options.ip === undefined ? IP : options.ip;
  if (ip !== null) headers['cf-connecting-ip'] = ip;
  if (options.auth !== undefined) headers.authorization = options.auth;
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === null) delete headers[name];
    else headers[name] = value;
  }
  const method = options.method ?? 'POST';
  const init: RequestInit = { method, headers };
  if (method === 'POST') init.body = typeof body === 'string' ? body : JSON.stringify(body);
  return app.request(path, init, options.env ?? fakeEnv().env);
}

export const toolsList = (id: number | string = 2) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
export const toolsCall = (name: string, args: Record<string, unknown> = {}, id: number | string = 3) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** Asserts a 200 JSON answer and returns the parsed JSON-RPC message(s) and the raw text. */
export async function okJson<T = RpcMessage>(res: Response): Promise<{ body: T; text: string }> {
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json');
  expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.headers.get('mcp-session-id')).toBeNull();
  return { body: JSON.parse(text) as T, text };
}

/** Asserts a JSON-RPC error response with `status` and returns its body and text. */
export async function rpcError(res: Response, status: number, code: number): Promise<{ body: RpcMessage; text: string }> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/json');
  const body = JSON.parse(text) as RpcMessage;
  expect(body.jsonrpc).toBe('2.0');
  expect(body.result).toBeUndefined();
  expect(body.error?.code).toBe(code);
  expect(typeof body.error?.message).toBe('string');
  expect(body.error!.message.length).toBeGreaterThan(0);
  expectNoInternals(text);
  return { body, text };
}

/** The result of a successful `tools/call` answer. */
export async function toolResult(res: Response, id: number | string = 3): Promise<{ result: ToolResult; text: string }> {
  const { body, text } = await okJson(res);
  expect(body.jsonrpc).toBe('2.0');
  expect(body.id).toBe(id);
  expect(body.error).toBeUndefined();
  return { result: body.result as unknown as ToolResult, text };
}

/** The problem body an `isError` tool result carries as its text. */
export function toolProblem(result: ToolResult, res: Response): Problem {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  expect(result.content).toHaveLength(1);
  expect(result.content[0]!.type).toBe('text');
  const problem = JSON.parse(result.content[0]!.text) as Problem;
  expect(problem.type).toBe(`/problems/${problem.code}`);
  expect(problem.requestId).toBe(res.headers.get('x-request-id'));
  expect(Object.keys(problem).every((k) => ['type', 'title', 'status', 'detail', 'code', 'requestId', 'errors'].includes(k))).toBe(true);
  return problem;
}

/** Asserts a response text holds no stack trace, dependency exception text, key or given secret. */
export function expectNoInternals(text: string, secrets: readonly string[] = []): void {
  expect(text).not.toMatch(/"stack"|\bstack\b/i);
  expect(text).not.toMatch(/\n\s*at |\bat \S+ \(|\bat \S+:\d+:\d+|\.(ts|js):\d+/);
  expect(text).not.toMatch(/Error:|\b[A-Z][A-Za-z]*Error\b/);
  expect(text).not.toMatch(/invalid_type|"expected"|"path"|node_modules/);
  expect(text).not.toMatch(/svc_dk_[0-9A-Za-z]{32}/);
  for (const secret of secrets) expect(text).not.toContain(secret);
}

/** A fresh environment with a real key of the deployment's fund (sample-fund). */
export async function fundFixture(overrides: Parameters<typeof fakeEnv>[0] = {}) {
  const fixture = fakeEnv(overrides);
  const { key, record } = await createKey(fixture.API_KEYS, { fundId: 'sample-fund' });
  return { ...fixture, key, record, auth: `Bearer ${key}` };
}

/** Both servers: the path, and what a request needs to be admitted (a real key on the fund server). */
export const SERVERS = [
  ['public', PUBLIC],
  ['fund', FUND],
] as const;

export async function admitted(kind: 'public' | 'fund', overrides: Parameters<typeof fakeEnv>[0] = {}) {
  const fixture = await fundFixture(overrides);
  return { ...fixture, options: { env: fixture.env, ...(kind === 'fund' ? { auth: fixture.auth } : {}) } satisfies PostOptions };
}

/** A cheap tool call on each server (counted against its limit). */
export const CHEAP_CALL = { public: toolsCall('calc_operating_cost_calculator'), fund: toolsCall('get_fee_terms') } as const;

/** The first SSE `data:` payloads of an event-stream body. */
export function sseData(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice('data:'.length).trim()) as unknown);
}
