/**
 * The fuzzer's oracle: the rules every answer must obey (docs/api.md#errors, docs/mcp.md, docs/fund-data.md and
 * "Fuzzing"), and the ones a case's generator asked for. Each broken rule is a {@link Violation} whose
 * `kind` names the rule, so that failures group into classes.
 *
 * Every answer: no 5xx at all (a 503 `upstream_unavailable` too: the run checked the service was healthy
 * before it began, so a failing dependency is a failure; on MCP, a tool's `isError` result with a 5xx status
 * counts the same); an `X-Request-Id`; an answer within the
 * time cap. REST successes: JSON. REST errors (and MCP refusals before JSON-RPC): problem+json whose `status` is the HTTP status
 * and whose `requestId` is the header's. MCP: well-formed JSON-RPC 2.0 answers, with the codes malformed
 * messages must get, and an array for a batch. No error carries a canary planted in the request. Fund-data
 * answers (`/api/v1/fund/*` and `/api/mcp`, errors included) are `Cache-Control: private, no-store`.
 */
import { PROBLEMS } from '../../lib/errors.ts';
import type { FuzzCase } from './cases.ts';
import { FuzzTimeoutError, type FuzzAnswer } from './http.ts';
import { CANARY_PATTERN } from './schema.ts';

/** One broken rule: `kind` is the class (the rule), `detail` this instance. */
export interface Violation {
  kind: string;
  detail: string;
}

/** True for a JSON-RPC 2.0 error code: the standard ones, or the implementation-defined server range (-32000..-32099). */
const isRpcCode = (code: unknown): boolean =>
  [-32700, -32600, -32601, -32602, -32603].includes(code as number) ||
  (Number.isInteger(code) && (code as number) <= -32000 && (code as number) >= -32099);

/** HTTP refusals the MCP servers make before reading JSON-RPC, which are problem+json like every endpoint's (docs/mcp.md). */
const HTTP_REFUSALS = new Set([401, 403, 404, 405, 413, 415]);

/** True when a Cache-Control value has both `private` and `no-store` (an SSE answer adds `no-transform`). */
export function isPrivateNoStore(value: string | undefined): boolean {
  const directives = (value ?? '')
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  return directives.includes('private') && directives.includes('no-store');
}

/** True for a path whose answers are fund data (`private, no-store`): `/api/v1/fund/...` and the fund MCP server. */
export function isFundDataPath(path: string): boolean {
  const { pathname } = new URL(path, 'http://fuzz.invalid');
  return pathname === '/api/v1/fund' || pathname.startsWith('/api/v1/fund/') || pathname === '/api/mcp';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The JSON-RPC messages of an MCP answer: its JSON body, or the `data:` lines of an SSE body. */
function rpcMessages(answer: FuzzAnswer): { messages: unknown[]; array: boolean } | undefined {
  const type = answer.headers['content-type'] ?? '';
  if (type.startsWith('text/event-stream')) {
    const messages = answer.body
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => parseJson(line.slice(5).trim()))
      .filter((m) => m !== undefined);
    return { messages: messages.flatMap((m) => (Array.isArray(m) ? m : [m])), array: messages.some(Array.isArray) };
  }
  if (!type.startsWith('application/json')) return undefined;
  const body = parseJson(answer.body);
  if (body === undefined) return { messages: [undefined], array: false };
  return { messages: Array.isArray(body) ? body : [body], array: Array.isArray(body) };
}

type Rpc = {
  jsonrpc?: unknown;
  id?: unknown;
  error?: { code?: unknown; message?: unknown };
  result?: { isError?: unknown; content?: { text?: unknown }[] };
};

/** The parts of an answer that are errors (whose text may not carry a canary). */
function errorTexts(c: FuzzCase, answer: FuzzAnswer): string[] {
  if (answer.status >= 400) return [answer.body, ...Object.values(answer.headers)];
  if (c.surface !== 'mcp') return [];
  const rpc = rpcMessages(answer);
  if (!rpc) return [];
  return (rpc.messages as Rpc[]).flatMap((m) => {
    if (m?.error) return [JSON.stringify(m.error)];
    if (m?.result?.isError) return [JSON.stringify(m.result)];
    return [];
  });
}

function checkProblem(answer: FuzzAnswer, out: Violation[]): void {
  const type = answer.headers['content-type'] ?? '';
  if (type !== 'application/problem+json') {
    out.push({ kind: 'error answer is not problem+json', detail: `${answer.status} with Content-Type ${JSON.stringify(type)}` });
    return;
  }
  const body = parseJson(answer.body) as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') {
    out.push({ kind: 'problem body is not a JSON object', detail: answer.body.slice(0, 120) });
    return;
  }
  if (body.status !== answer.status)
    out.push({ kind: 'problem status differs from the HTTP status', detail: `body ${String(body.status)}, HTTP ${answer.status}` });
  const code = body.code as keyof typeof PROBLEMS;
  if (!(code in PROBLEMS) || PROBLEMS[code].status !== answer.status || body.type !== `/problems/${String(code)}`) {
    out.push({
      kind: 'problem code, type and status disagree',
      detail: `code ${String(body.code)}, type ${String(body.type)}, HTTP ${answer.status}`,
    });
  }
  if (body.requestId !== answer.headers['x-request-id'])
    out.push({ kind: 'problem requestId differs from X-Request-Id', detail: String(body.requestId) });
}

function checkRpc(c: FuzzCase, answer: FuzzAnswer, out: Violation[]): void {
  const type = answer.headers['content-type'] ?? '';
  if (type.startsWith('application/problem+json')) {
    checkProblem(answer, out);
    return;
  }
  if (HTTP_REFUSALS.has(answer.status)) {
    out.push({ kind: `MCP: HTTP ${answer.status} refusal not problem+json`, detail: `${type}: ${answer.body.slice(0, 160)}` });
    return;
  }
  if (answer.status === 202) {
    if (answer.body !== '') out.push({ kind: 'MCP: 202 with a body', detail: answer.body.slice(0, 120) });
    return;
  }
  if (c.request.method !== 'POST') return;
  const rpc = rpcMessages(answer);
  if (!rpc) {
    out.push({ kind: 'MCP: answer is neither JSON-RPC nor problem+json', detail: `${answer.status} ${type}` });
    return;
  }
  for (const m of rpc.messages as (Rpc | undefined)[]) {
    if (!m || typeof m !== 'object' || m.jsonrpc !== '2.0' || !('id' in m) || 'error' in m === 'result' in m) {
      out.push({ kind: 'MCP: malformed JSON-RPC response', detail: JSON.stringify(m)?.slice(0, 160) ?? String(m) });
      continue;
    }
    if (m.result?.isError) {
      // A tool's error is its problem body: a 5xx there is the service failing, as on REST.
      const problem = parseJson(String(m.result.content?.[0]?.text ?? '')) as { status?: unknown; code?: unknown } | undefined;
      if (typeof problem?.status === 'number' && problem.status >= 500)
        out.push({
          kind: `MCP: a tool answered ${problem.status} ${String(problem.code)}`,
          detail: JSON.stringify(m.result).slice(0, 160),
        });
    }
    if (m.error && (!isRpcCode(m.error.code) || typeof m.error.message !== 'string')) {
      out.push({ kind: 'MCP: JSON-RPC error code outside the documented set', detail: JSON.stringify(m.error).slice(0, 160) });
    }
  }
  if (answer.status === 429) return;
  if (c.batch && answer.status < 300) {
    const refusedWhole = !c.batch.revisionHasBatches && !rpc.array && (rpc.messages[0] as Rpc)?.error?.code === -32600;
    const what = c.batch.size === 1 ? 'one' : c.batch.repeatedIds ? 'several with a repeated id' : 'several';
    // Over SSE each response is an event of its own (Streamable HTTP); only a JSON answer must be an array.
    const sse = type.startsWith('text/event-stream');
    if (!rpc.array && !refusedWhole && !sse)
      out.push({ kind: `MCP: a batch of ${what} answered without an array`, detail: answer.body.slice(0, 160) });
    else if ((rpc.array || sse) && !refusedWhole && rpc.messages.length < c.batch.requests) {
      out.push({
        kind: 'MCP: a batch answered with fewer responses than it had requests',
        detail: `${c.batch.requests} requests, ${rpc.messages.length} responses`,
      });
    }
  }
  const expect = c.rpc;
  if (!expect || rpc.messages.length !== 1 || c.mustReject) return;
  const m = rpc.messages[0] as Rpc;
  const code = m?.error?.code as number | undefined;
  if (expect.codes && !(code !== undefined && expect.codes.includes(code))) {
    out.push({
      kind: `MCP: JSON-RPC error code ${code ?? '(success)'} where ${expect.codes.join(' or ')} is due`,
      detail: answer.body.slice(0, 160),
    });
  }
  if (expect.notCodes && code !== undefined && expect.notCodes.includes(code)) {
    out.push({ kind: `MCP: JSON-RPC error code ${code} for well-formed JSON`, detail: answer.body.slice(0, 160) });
  }
  if (expect.badArguments && !m?.error && !m?.result?.isError) {
    out.push({ kind: 'MCP: tool arguments that break the published inputSchema were accepted', detail: answer.body.slice(0, 160) });
  }
}

/**
 * Judges one answer (or the error sending it raised).
 * @returns every broken rule; empty when the answer is acceptable
 */
export function judge(c: FuzzCase, answer: FuzzAnswer | Error): Violation[] {
  if (answer instanceof FuzzTimeoutError)
    return [{ kind: `no answer within ${answer.timeoutMs} ms (hang detector)`, detail: answer.message }];
  if (answer instanceof Error) return [{ kind: 'connection failed or reset', detail: answer.message }];
  const out: Violation[] = [];
  const head = c.request.method === 'HEAD';

  if (answer.status >= 500) {
    out.push({ kind: `HTTP ${answer.status}`, detail: answer.body.slice(0, 160) });
  }
  if (!/^[0-9a-f-]{36}$/.test(answer.headers['x-request-id'] ?? '')) out.push({ kind: 'no X-Request-Id', detail: `HTTP ${answer.status}` });

  if (!head) {
    if (c.surface === 'mcp' && c.request.method === 'POST' && answer.status !== 405 && answer.status !== 404) checkRpc(c, answer, out);
    else if (answer.status >= 400) checkProblem(answer, out);
    else if (answer.status === 200 && c.surface === 'page') {
      if (!/^text\/(html|markdown);/.test(answer.headers['content-type'] ?? '')) {
        out.push({ kind: 'site page that is not HTML or Markdown', detail: answer.headers['content-type'] ?? '(no Content-Type)' });
      }
    } else if (answer.status === 200 && c.surface === 'rest' && c.request.method !== 'OPTIONS') {
      if (!(answer.headers['content-type'] ?? '').startsWith('application/json') || parseJson(answer.body) === undefined) {
        out.push({
          kind: 'REST 200 that is not JSON',
          detail: `${answer.headers['content-type'] ?? '(no Content-Type)'}: ${answer.body.slice(0, 120)}`,
        });
      }
    }
  }

  const planted = new Set(
    [c.request.path, ...c.request.headers.map(([, v]) => v), typeof c.request.body === 'string' ? c.request.body : ''].flatMap(
      (t) => t.match(CANARY_PATTERN) ?? [],
    ),
  );
  if (planted.size) {
    for (const text of errorTexts(c, answer)) {
      const echoed = [...planted].find((p) => text.includes(p));
      if (echoed) {
        out.push({
          kind: 'submitted value echoed in an error',
          detail: `${echoed} in ${text.slice(Math.max(0, text.indexOf(echoed) - 80), text.indexOf(echoed) + 40)}`,
        });
        break;
      }
    }
  }

  if (c.request.method !== 'OPTIONS' && isFundDataPath(c.request.path) && !isPrivateNoStore(answer.headers['cache-control'])) {
    out.push({
      kind: `fund answer ${answer.status < 400 ? '2xx' : answer.status} without Cache-Control: private, no-store`,
      detail: `Cache-Control: ${answer.headers['cache-control'] ?? '(none)'}`,
    });
  }

  if (c.mustReject) {
    const rpc = c.surface === 'mcp' && answer.status < 300 ? rpcMessages(answer) : undefined;
    const refusedInRpc = rpc !== undefined && (rpc.messages as Rpc[]).every((m) => m?.error || m?.result?.isError);
    if (answer.status < 300 && !refusedInRpc) {
      out.push({ kind: `accepted: ${c.mustReject}`, detail: `HTTP ${answer.status}` });
    }
  }

  if (c.hostileHost && c.request.path === '/api/v1/openapi.json' && answer.status === 200) {
    const cacheControl = answer.headers['cache-control'] ?? '';
    const vary = (answer.headers.vary ?? '').toLowerCase().split(/\s*,\s*/);
    if (answer.body.includes(c.hostileHost) && !/private|no-store/.test(cacheControl) && !vary.includes('host') && !vary.includes('*')) {
      out.push({
        kind: "OpenAPI: the request's Host in a shared-cacheable body without Vary: Host",
        detail: `Cache-Control: ${cacheControl}`,
      });
    }
  }
  return out;
}
