/**
 * MCP cases: JSON-RPC messages and batches to both servers, with the protocol-version, Accept and
 * Origin headers and the JSON-RPC error codes a malformed message must get.
 */
import fc from 'fast-check';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { canary, hostileText, jsonVerdict } from '../schema.ts';
import { type Headers, argumentsFor, auth, clientIp, contentType, sometimes } from './common.ts';
import { type FuzzCase, type FuzzKeys, type FuzzModel, type RpcExpectation, SELF_ORIGIN, type ToolModel } from './model.ts';

export type Message = { value: unknown; rpc?: RpcExpectation; reject?: string };

export const rpcId = fc.oneof(fc.integer({ min: 0, max: 1e6 }), fc.string({ maxLength: 8 }));

/** One JSON-RPC message for a server: valid calls, notifications, and malformed ones with the codes they must get. */
export function message(tools: ToolModel[], otherTools: ToolModel[]): fc.Arbitrary<Message> {
  const initialize = fc
    .record({
      id: rpcId,
      version: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom<unknown>(...SUPPORTED_PROTOCOL_VERSIONS, '2026-06-18') },
        { weight: 1, arbitrary: canary },
        { weight: 1, arbitrary: fc.constantFrom<unknown>(5, null, true, ['2025-11-25'], {}) },
      ),
      clientName: fc.oneof(fc.constant('fuzz'), hostileText),
    })
    .map(
      ({ id, version, clientName }): Message => ({
        value: {
          jsonrpc: '2.0',
          id,
          method: 'initialize',
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: clientName, version: '1.0.0' } },
        },
        ...(typeof version === 'string' ? {} : { rpc: { codes: [-32602] } }),
      }),
    );
  const list = rpcId.map((id): Message => ({ value: { jsonrpc: '2.0', id, method: 'tools/list' } }));
  const call = fc
    .record({
      id: rpcId,
      tool: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...tools) }, { weight: 1, arbitrary: fc.constantFrom(...otherTools) }),
    })
    .chain(({ id, tool }) => argumentsFor(tool.input).map((args) => ({ id, tool, args })))
    .map(({ id, tool, args }): Message => {
      const own = tools.includes(tool);
      const value = { jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool.name, arguments: args } };
      if (!own) return { value, rpc: { codes: [-32602] } };
      return jsonVerdict(tool.input, args) ? { value } : { value, rpc: { badArguments: true } };
    });
  const malformed = fc.oneof(
    fc.constantFrom<Message>(
      { value: { jsonrpc: '2.0', id: 1.5, method: 'tools/list' }, rpc: { notCodes: [-32700] } },
      { value: { jsonrpc: '2.0', id: { a: 1 }, method: 'tools/list' }, rpc: { codes: [-32600] } },
      { value: { jsonrpc: '2.0', id: [1], method: 'tools/list' }, rpc: { codes: [-32600] } },
      { value: { jsonrpc: '2.0', id: true, method: 'tools/list' }, rpc: { codes: [-32600] } },
      { value: { jsonrpc: '2.0', id: null, method: 'tools/list' }, rpc: { codes: [-32600] } },
      { value: { jsonrpc: '1.0', id: 1, method: 'tools/list' }, rpc: { codes: [-32600] } },
      { value: { id: 1, method: 'tools/list' }, rpc: { codes: [-32600] } },
      { value: { jsonrpc: '2.0', id: 1, method: 5 }, rpc: { codes: [-32600] } },
      { value: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: [] }, rpc: { codes: [-32600, -32602] } },
      { value: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: 'x' }, rpc: { codes: [-32600, -32602] } },
      { value: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: 5 } }, rpc: { codes: [-32600, -32602] } },
      { value: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: 'x' } }, rpc: { codes: [-32600, -32602] } },
      { value: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} }, rpc: { codes: [-32602] } },
      { value: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 5 } }, rpc: { codes: [-32602] } },
      { value: { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }, rpc: { codes: [-32602] } },
      { value: { jsonrpc: '2.0', id: 1, method: 'resources/list' }, rpc: { codes: [-32601] } },
      { value: { jsonrpc: '2.0', id: 1, method: 'prompts/get', params: { name: 'x' } }, rpc: { codes: [-32601] } },
      { value: { jsonrpc: '2.0', method: 'notifications/initialized' } },
      { value: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } } },
      { value: { jsonrpc: '2.0', id: 7, result: {} } },
      { value: { jsonrpc: '2.0', id: 1, method: 'ping' } },
    ),
    canary.map((c): Message => ({ value: { jsonrpc: '2.0', id: 1, method: c }, rpc: { codes: [-32601] } })),
    // An unknown tool is named in the error only when it has a tool name's shape (an identifier, like a
    // field name in a pointer); a canary with another shape must never come back.
    canary.map(
      (c): Message => ({
        value: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: `${c}-${c}`, arguments: {} } },
        rpc: { codes: [-32602] },
      }),
    ),
    fc.constantFrom<unknown>([], 'x', 1, null, []).map((args) => ({
      value: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tools[0]!.name, arguments: args } },
      rpc: { codes: [-32602] },
    })),
  );
  return fc.oneof(
    { weight: 2, arbitrary: initialize },
    { weight: 2, arbitrary: list },
    { weight: 6, arbitrary: call },
    { weight: 3, arbitrary: malformed },
  );
}

/** What the oracle needs to know of a batch (see {@link FuzzCase.batch}). */
export function batchOf(values: unknown[], revisionHasBatches: boolean): NonNullable<FuzzCase['batch']> {
  const ids = values
    .filter((v): v is { id: string | number; method: string } => {
      const m = v as Record<string, unknown>;
      return (
        typeof m.method === 'string' &&
        m.jsonrpc === '2.0' &&
        (typeof m.id === 'string' || (typeof m.id === 'number' && Number.isInteger(m.id)))
      );
    })
    .map((m) => m.id);
  return { size: values.length, requests: ids.length, repeatedIds: new Set(ids).size !== ids.length, revisionHasBatches };
}

/** A protocol revision header: none, implemented ones, a later one (served as the newest), and invalid ones (400). */
export const versionHeader: fc.Arbitrary<{ headers: Headers; hasBatches: boolean; reject?: string }> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ headers: [] as Headers, hasBatches: true }) },
  {
    weight: 4,
    arbitrary: fc
      .constantFrom(...SUPPORTED_PROTOCOL_VERSIONS, '2026-06-18')
      .map((v) => ({ headers: [['mcp-protocol-version', v]] as Headers, hasBatches: v < '2025-06-18' })),
  },
  {
    weight: 1,
    arbitrary: fc
      .oneof(canary, fc.constantFrom('2025-13-01', '', 'latest', '2025-11-25, 2025-06-18'))
      .map((v) => ({ headers: [['mcp-protocol-version', v]] as Headers, hasBatches: true, reject: 'an unsupported MCP-Protocol-Version' })),
  },
);

export const acceptHeader: fc.Arbitrary<Headers> = fc.constantFrom<Headers>(
  [['accept', 'application/json, text/event-stream']],
  [['accept', 'application/json, text/event-stream']],
  [['accept', 'application/json']],
  [['accept', 'text/event-stream']],
  [['accept', '*/*']],
  [],
  [['accept', 'text/html']],
);

/** Origin: none (non-browser clients), the Worker's own, or a foreign one (403). */
export const originHeader: fc.Arbitrary<{ headers: Headers; reject?: string }> = fc.oneof(
  { weight: 8, arbitrary: fc.constant({ headers: [] as Headers }) },
  { weight: 1, arbitrary: fc.constant({ headers: [['origin', SELF_ORIGIN]] as Headers }) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('https://evil.example', 'null', 'http://localhost.evil.example', 'http://127.0.0.1.nip.io')
      .map((o) => ({ headers: [['origin', o]] as Headers, reject: 'a foreign Origin' })),
  },
);

/** A `tools/call` of one tool with generated arguments (an `isError` answer expected when they break its schema). */
export function callOf(tool: ToolModel): fc.Arbitrary<Message> {
  return fc.record({ id: rpcId, args: argumentsFor(tool.input) }).map(({ id, args }): Message => {
    const value = { jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool.name, arguments: args } };
    return jsonVerdict(tool.input, args) ? { value } : { value, rpc: { badArguments: true } };
  });
}

/**
 * MCP: one message or a batch to one server, with its headers, key, Origin and revision.
 * @param only a tool of the server: the body is one `tools/call` of it (the fuzzer's tour, harness.ts)
 */
export function mcp(model: FuzzModel, keys: FuzzKeys, server: 'public' | 'fund', only?: ToolModel): fc.Arbitrary<FuzzCase> {
  const tools = server === 'public' ? model.publicTools : model.fundTools;
  const other = server === 'public' ? model.fundTools : model.publicTools;
  const path = server === 'public' ? '/api/mcp/public' : '/api/mcp';
  const body = only
    ? callOf(only).map((m) => ({ messages: [m], batch: false }))
    : fc.oneof(
        { weight: 8, arbitrary: message(tools, other).map((m) => ({ messages: [m], batch: false })) },
        {
          weight: 2,
          arbitrary: fc.array(message(tools, other), { minLength: 1, maxLength: 4 }).map((messages) => ({ messages, batch: true })),
        },
      );
  return fc
    .record({
      body,
      raw: only
        ? fc.constant(null)
        : sometimes(
            fc.oneof(
              fc.constantFrom(
                '',
                '{',
                '[',
                '{"jsonrpc":"2.0",',
                '\u0000',
                'null',
                '5',
                '"x"',
                '[]',
                '\uFEFF{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
              ),
              canary,
            ),
            10,
          ),
      type: contentType,
      who: auth(keys, server === 'fund' ? 'mcp-fund' : 'calc'),
      version: versionHeader,
      accept: acceptHeader,
      origin: originHeader,
      ip: clientIp,
    })
    .map(({ body, raw, type, who, version, accept, origin, ip }): FuzzCase => {
      const reject = origin.reject ?? who.reject ?? version.reject ?? type.reject;
      const text = raw ?? JSON.stringify(body.batch ? body.messages.map((m) => m.value) : body.messages[0]!.value);
      let rpc: RpcExpectation | undefined;
      if (raw !== null) {
        let parsed: unknown;
        let ok = true;
        try {
          parsed = JSON.parse(raw);
        } catch {
          ok = false;
        }
        rpc = ok
          ? (Array.isArray(parsed) && parsed.length === 0) || typeof parsed !== 'object' || parsed === null
            ? { codes: [-32600] }
            : undefined
          : raw.startsWith('\uFEFF')
            ? undefined
            : { codes: [-32700] };
      } else if (!body.batch) {
        rpc = body.messages[0]!.rpc;
      }
      return {
        family: `mcp-${server}`,
        route: path,
        surface: 'mcp',
        request: {
          method: 'POST',
          path,
          headers: [...type.headers, ...accept, ...version.headers, ...origin.headers, ...who.headers, ...ip],
          body: text,
        },
        ...(reject ? { mustReject: reject } : {}),
        ...(rpc ? { rpc } : {}),
        ...(raw === null && body.batch
          ? {
              batch: batchOf(
                body.messages.map((m) => m.value),
                version.hasBatches,
              ),
            }
          : {}),
      };
    });
}
