/**
 * The MCP servers' JSON-RPC framing (docs/mcp.md#json-rpc-errors-and-batches): notifications, batches by
 * protocol revision, malformed JSON, non-JSON-RPC JSON, 413 and 415, never echoing a submitted value.
 */
import { describe, expect, it, vi } from 'vitest';
import { MCP_ANSWER_TIMEOUT_MS } from '../../lib/limits.ts';
import { McpAnswerTimeoutError, withinTime } from '../../lib/mcp/dispatch.ts';
import { expectProblem } from '../support/problems.ts';
import {
  T,
  SECRET,
  INITIALIZE,
  type RpcMessage,
  type ToolResult,
  type ToolDefinition,
  post,
  toolsList,
  toolsCall,
  okJson,
  rpcError,
  expectNoInternals,
  SERVERS,
  admitted,
  CHEAP_CALL,
} from './support.ts';
import { FUND_TOOL_NAMES, PUBLIC_TOOL_NAMES } from '../support/declared.ts';

describe('JSON-RPC framing', () => {
  describe.each(SERVERS)('%s server', (kind, path) => {
    it('answers notifications only with 202 and an empty body, counting nothing', async () => {
      const { options, RATE_LIMITS, FUND_BURST } = await admitted(kind);
      for (const body of [
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        [
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
        ],
      ]) {
        const res = await post(path, body, options);
        expect(res.status).toBe(202);
        expect(await res.text()).toBe('');
        expect(res.headers.get('ratelimit')).toBeNull();
      }
      expect(RATE_LIMITS.puts).toEqual([]);
      expect(FUND_BURST.counts.size).toBe(0);
    });

    it('answers a batch of two requests with an array of two responses matched by id', async () => {
      const { options, FUND_BURST, record } = await admitted(kind);
      const res = await post(path, [toolsList('list-1'), { ...CHEAP_CALL[kind], id: 42 }], options);
      const { body } = await okJson<RpcMessage[]>(res);
      expect(Array.isArray(body)).toBe(true);
      expect(body).toHaveLength(2);
      const list = body.find((m) => m.id === 'list-1')!;
      const call = body.find((m) => m.id === 42)!;
      expect((list.result!.tools as ToolDefinition[]).length).toBe(kind === 'public' ? PUBLIC_TOOL_NAMES.length : FUND_TOOL_NAMES.length);
      const result = call.result as unknown as ToolResult;
      expect(result.isError).toBeUndefined();
      expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);
      if (kind === 'public') expect(res.headers.get('ratelimit')).toBe(`"daily";r=499;t=${T}`);
      else expect([...FUND_BURST.counts]).toEqual([[`key:${record.keyId}`, 1]]);
    });

    // JSON-RPC 2.0 §6: the answer to a batch is an array, even of one response; the SDK sends a bare object.
    it.each([
      ['one request', [toolsList(5)]],
      ['a request and a notification', [{ jsonrpc: '2.0', method: 'notifications/initialized' }, toolsList(5)]],
    ])('answers a batch of %s under 2025-03-26 with an array of one response', async (_label, batch) => {
      const { options } = await admitted(kind);
      const { body } = await okJson<RpcMessage[]>(
        await post(path, batch, { ...options, headers: { 'mcp-protocol-version': '2025-03-26' } }),
      );
      expect(Array.isArray(body)).toBe(true);
      expect(body).toHaveLength(1);
      expect(body[0]).toMatchObject({ jsonrpc: '2.0', id: 5, result: { tools: expect.any(Array) } });
    });

    it('answers a one-request batch of a tools/call with an array, charging it once', async () => {
      const { options, FUND_BURST, RATE_LIMITS } = await admitted(kind);
      const res = await post(path, [CHEAP_CALL[kind]], { ...options, headers: { 'mcp-protocol-version': '2024-11-05' } });
      const { body } = await okJson<RpcMessage[]>(res);
      expect(body).toHaveLength(1);
      expect(body[0]!.id).toBe(3);
      expect((body[0]!.result as unknown as ToolResult).isError).toBeUndefined();
      if (kind === 'public') expect(RATE_LIMITS.puts).toHaveLength(1);
      else expect([...FUND_BURST.counts.values()]).toEqual([1]);
    });

    // MCP removed JSON-RPC batching in revision 2025-06-18: batches are refused under it and every later one,
    // whether named by the header or negotiated by an initialize in the batch, and served under earlier ones
    // (no header: the SDK's assumption, 2025-03-26).
    it.each([['2025-06-18'], ['2025-11-25'], ['2026-06-18']])(
      'refuses any batch under MCP-Protocol-Version %s with 400 -32600, counting nothing',
      async (version) => {
        const { options, RATE_LIMITS, FUND_BURST, CALC_BURST } = await admitted(kind);
        for (const batch of [[toolsList(1)], [toolsList(1), CHEAP_CALL[kind]], [{ jsonrpc: '2.0', method: 'notifications/initialized' }]]) {
          const res = await post(path, batch, { ...options, headers: { 'mcp-protocol-version': version } });
          const { body } = await rpcError(res, 400, -32600);
          expect(body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/batch/i) } });
        }
        expect(RATE_LIMITS.puts).toEqual([]);
        expect(CALC_BURST.counts.size).toBe(0);
        expect(FUND_BURST.counts.size).toBe(0);
      },
    );

    it('refuses a batch holding an initialize that negotiates 2025-06-18 or later, and serves one negotiating 2025-03-26', async () => {
      const { options } = await admitted(kind);
      for (const version of ['2025-06-18', '2025-11-25', '2026-06-18']) {
        const batch = [{ ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: version } }];
        await rpcError(await post(path, batch, options), 400, -32600);
      }
      const old = [{ ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: '2025-03-26' } }];
      const { body } = await okJson<RpcMessage[]>(await post(path, old, options));
      expect(body).toEqual([expect.objectContaining({ id: 1, result: expect.objectContaining({ protocolVersion: '2025-03-26' }) })]);
    });

    // Found by the fuzz suite: the SDK never answers a request cancelled in its own batch, and the JSON
    // answer waited for it until the runtime ended the request (a hang, then a bare 500).
    it('refuses a batch that cancels one of its own requests with 400 -32600, and serves a cancellation of another', async () => {
      const { options } = await admitted(kind);
      const cancel = (requestId: unknown) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } });
      for (const batch of [
        [toolsList('I'), cancel(1), { ...CHEAP_CALL[kind], id: 1 }],
        [cancel('I'), toolsList('I')],
      ]) {
        const { body } = await rpcError(await post(path, batch, options), 400, -32600);
        expect(body.id).toBeNull();
      }
      const { body } = await okJson<RpcMessage[]>(await post(path, [toolsList('I'), cancel(99)], options));
      expect(body).toEqual([expect.objectContaining({ id: 'I' })]);
    });

    // The SDK matches responses to requests by id: of two requests sharing one, only one was answered (and
    // both tools/calls were charged).
    it('refuses a batch of two requests with the same id with 400 -32600, counting nothing', async () => {
      const { options, RATE_LIMITS, FUND_BURST, CALC_BURST } = await admitted(kind);
      for (const batch of [
        [toolsList(1), { jsonrpc: '2.0', id: 1, method: 'ping' }],
        [
          { ...CHEAP_CALL[kind], id: 'a' },
          { ...CHEAP_CALL[kind], id: 'a' },
        ],
      ]) {
        const { body } = await rpcError(await post(path, batch, options), 400, -32600);
        expect(body.id).toBeNull();
      }
      expect(RATE_LIMITS.puts).toEqual([]);
      expect(CALC_BURST.counts.size).toBe(0);
      expect(FUND_BURST.counts.size).toBe(0);
      // Ids equal as text but of different types are distinct (JSON-RPC compares them as values).
      const { body } = await okJson<RpcMessage[]>(
        await post(
          path,
          [
            { jsonrpc: '2.0', id: 1, method: 'ping' },
            { jsonrpc: '2.0', id: '1', method: 'ping' },
          ],
          options,
        ),
      );
      expect(body.map((m) => m.id).sort()).toEqual([1, '1']);
    });

    // The SDK refuses a batch of more than 100 messages, but only after the tools/calls in it were charged.
    it('refuses a batch of 101 messages with 400 -32600 before charging its calls, and serves one of 100', async () => {
      const { options, RATE_LIMITS, FUND_BURST, CALC_BURST } = await admitted(kind);
      const calls = Array.from({ length: 101 }, (_, i) => ({ ...CHEAP_CALL[kind], id: i }));
      const { body } = await rpcError(await post(path, calls, options), 400, -32600);
      expect(body.error!.message).toMatch(/100/);
      expect(RATE_LIMITS.puts).toEqual([]);
      expect(CALC_BURST.counts.size).toBe(0);
      expect(FUND_BURST.counts.size).toBe(0);
      const lists = Array.from({ length: 100 }, (_, i) => toolsList(i));
      expect((await okJson<RpcMessage[]>(await post(path, lists, options))).body).toHaveLength(100);
    });

    // The SDK refuses an initialize batched with other messages, but only after the tools/calls were charged.
    it('refuses an initialize batched with a tools/call with 400 -32600, charging nothing', async () => {
      const { options, RATE_LIMITS, FUND_BURST, CALC_BURST } = await admitted(kind);
      const old = { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: '2025-03-26' } };
      const { body } = await rpcError(await post(path, [old, CHEAP_CALL[kind]], options), 400, -32600);
      expect(body.id).toBeNull();
      expect(RATE_LIMITS.puts).toEqual([]);
      expect(CALC_BURST.counts.size).toBe(0);
      expect(FUND_BURST.counts.size).toBe(0);
    });

    it('refuses an empty batch with a 400 JSON-RPC error', async () => {
      const { options } = await admitted(kind);
      const { body } = await rpcError(await post(path, [], options), 400, -32600);
      expect(body.id).toBeNull();
    });

    it.each([
      ['truncated JSON', '{"jsonrpc":"2.0","id":1,"method":"tools/list"'],
      ['not JSON at all', `${SECRET} is not json`],
      ['an empty body', ''],
    ])('refuses %s with 400 -32700 and id null, without echoing it', async (_label, raw) => {
      const { options, RATE_LIMITS, FUND_BURST } = await admitted(kind);
      const { body, text } = await rpcError(await post(path, raw, options), 400, -32700);
      expect(body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.any(String) } });
      expect(text).not.toContain(SECRET);
      expect(RATE_LIMITS.puts).toEqual([]);
      expect(FUND_BURST.counts.size).toBe(0);
    });

    // JSON-RPC 2.0 §5.1: well-formed JSON that is not a valid Request object is -32600 Invalid Request with id
    // null (-32700 is for a body that is not JSON at all). MCP narrows `id` to a string or an integer, and
    // `params` and `params._meta` to objects.
    it.each([
      ['an object that is not JSON-RPC', { foo: 1 }],
      ['null', null],
      ['a number', 42],
      ['a batch holding a non-message', [toolsList(), { foo: SECRET }]],
      ['a wrong jsonrpc version', { jsonrpc: '1.0', id: 1, method: 'tools/list' }],
      ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'tools/list' }],
      ['an object id', { jsonrpc: '2.0', id: { n: SECRET }, method: 'tools/list' }],
      ['an array id', { jsonrpc: '2.0', id: [1], method: 'tools/list' }],
      ['a boolean id', { jsonrpc: '2.0', id: true, method: 'tools/list' }],
      ['a null id', { jsonrpc: '2.0', id: null, method: 'tools/list' }],
      ['a method that is not a string', { jsonrpc: '2.0', id: 1, method: 7 }],
      ['array params', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: [SECRET] }],
      ['string params', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: SECRET }],
      ['null params', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: null }],
      ['a numeric _meta', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: 5 } }],
      ['a string _meta', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: SECRET } }],
      ['an array _meta on a notification', { jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: [] } }],
      ['an object progressToken', { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { progressToken: { x: SECRET } } } }],
      ['an unknown top-level member', { jsonrpc: '2.0', id: 1, method: 'tools/list', [SECRET]: 1 }],
    ])('refuses %s with 400 -32600 Invalid Request and id null', async (_label, value) => {
      const { options, RATE_LIMITS, FUND_BURST, CALC_BURST } = await admitted(kind);
      const res = await post(path, value, options);
      const { body, text } = await rpcError(res, 400, -32600);
      expect(body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) } });
      expect(text).not.toContain(SECRET);
      expect(RATE_LIMITS.puts).toEqual([]);
      expect(CALC_BURST.counts.size).toBe(0);
      expect(FUND_BURST.counts.size).toBe(0);
    });

    // JSON-RPC 2.0 §5.1: -32602 for invalid method parameters; the SDK alone answers -32603 Internal error
    // when a request's params fail the method's schema.
    it.each([
      ['initialize with a numeric protocolVersion', { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: 5 } }],
      ['initialize without clientInfo', { ...INITIALIZE, params: { protocolVersion: '2025-11-25', capabilities: {} } }],
      ['initialize without params', { jsonrpc: '2.0', id: 1, method: 'initialize' }],
      ['initialize with string capabilities', { ...INITIALIZE, params: { ...INITIALIZE.params, capabilities: SECRET } }],
      ['tools/list with a numeric cursor', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 5 } }],
      ['initialize with clientInfo that is an array', { ...INITIALIZE, params: { ...INITIALIZE.params, clientInfo: [SECRET] } }],
    ])('answers %s with -32602 Invalid params (HTTP 200) for its id', async (_label, value) => {
      const { options } = await admitted(kind);
      const { body, text } = await okJson(await post(path, value, options));
      expect(body).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: expect.any(String) } });
      expectNoInternals(text, [SECRET]);
    });

    it('answers a ping, and an initialize without optional members, as the SDK does', async () => {
      const { options } = await admitted(kind);
      expect((await okJson(await post(path, { jsonrpc: '2.0', id: 1, method: 'ping' }, options))).body).toEqual({
        jsonrpc: '2.0',
        id: 1,
        result: {},
      });
      const init = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      };
      expect((await okJson(await post(path, init, options))).body.result?.protocolVersion).toBe('2025-03-26');
    });

    it.each([
      ['text/plain', { 'content-type': 'text/plain' }],
      ['form', { 'content-type': 'application/x-www-form-urlencoded' }],
      ['no Content-Type', { 'content-type': null }],
      // A +json type is JSON to the REST endpoints, but MCP posts application/json only (the SDK answered
      // it with a bare JSON-RPC 415 before; found by the fuzz suite).
      ['application/vnd.api+json', { 'content-type': 'application/vnd.api+json' }],
    ] as const)('refuses a %s body with 415 problem+json', async (_label, headers) => {
      const { options, key } = await admitted(kind);
      const res = await post(path, JSON.stringify(toolsList()), { ...options, headers });
      const { text } = await expectProblem(res, 415, 'unsupported_media_type');
      expectNoInternals(text, [key]);
      if (kind === 'fund') expect(res.headers.get('cache-control')).toBe('private, no-store');
    });

    it.each(['Application/JSON', 'application/json; charset=utf-8'])('serves a %s body', async (type) => {
      const { options } = await admitted(kind);
      expect((await post(path, JSON.stringify(toolsList()), { ...options, headers: { 'content-type': type } })).status).toBe(200);
    });

    it('refuses a body over 1 MiB with 413 problem+json', async () => {
      const { options } = await admitted(kind);
      const big = JSON.stringify({ ...toolsList(), params: { padding: 'x'.repeat(1024 * 1024) } });
      const { text } = await expectProblem(await post(path, big, options), 413, 'payload_too_large');
      expectNoInternals(text);
    });

    it('answers an unknown method with JSON-RPC -32601 that does not echo it', async () => {
      const { options } = await admitted(kind);
      const res = await post(path, { jsonrpc: '2.0', id: 9, method: `resources/${SECRET}` }, options);
      const { body, text } = await okJson(res);
      expect(body).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32601, message: expect.any(String) } });
      expect(text).not.toContain(SECRET);
    });

    it('answers an unknown tool with JSON-RPC -32602 (HTTP 200) that does not echo its name', async () => {
      const { options } = await admitted(kind);
      const name = `calc_${SECRET}_tool`;
      const res = await post(path, toolsCall(name, {}, 11), options);
      const { body, text } = await okJson(res);
      expect(body).toEqual({ jsonrpc: '2.0', id: 11, error: { code: -32602, message: expect.any(String) } });
      expect(text).not.toContain(SECRET);
      expect(body.error!.message).not.toContain(name);
      expectNoInternals(text);
    });

    // No error text carries a dependency's exception text (docs/api.md#errors). A tools/call whose params do not
    // match the SDK's request schema is answered -32603 with zod's issue list (JSON) as the message, because
    // the SDK's Protocol.setRequestHandler parses with CallToolRequestSchema and a thrown ZodError has no code.
    it.each([
      ['arguments that are not an object', { name: 'calc_fee_calculator', arguments: SECRET }],
      ['a name that is not a string', { name: 12345, arguments: {} }],
    ])('answers a tools/call with %s as JSON-RPC -32602 without dependency text', async (_label, params) => {
      const { options } = await admitted(kind);
      const res = await post(path, { jsonrpc: '2.0', id: 12, method: 'tools/call', params }, options);
      const { body, text } = await okJson(res);
      expectNoInternals(text, [SECRET]);
      expect(body.error?.code).toBe(-32602);
    });
  });
});

describe('an MCP answer that never completes', () => {
  it('is cut at the time limit with McpAnswerTimeoutError (a logged 500), not left to hang', async () => {
    vi.useFakeTimers();
    try {
      const never = new Promise<never>(() => {});
      const late = withinTime(never, MCP_ANSWER_TIMEOUT_MS);
      const caught = late.catch((err: unknown) => err);
      await vi.advanceTimersByTimeAsync(MCP_ANSWER_TIMEOUT_MS);
      expect(await caught).toBeInstanceOf(McpAnswerTimeoutError);
      expect(await withinTime(Promise.resolve('ok'), MCP_ANSWER_TIMEOUT_MS)).toBe('ok');
      expect(vi.getTimerCount()).toBe(0); // the timer is cleared once the work settles
    } finally {
      vi.useRealTimers();
    }
  });
});
