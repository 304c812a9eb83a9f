/**
 * What the fuzzer sends: fast-check arbitraries of whole requests, generated from the service's own
 * declarations (the route table `lib/routes.ts`, the calculator and fund-tool declarations and their zod
 * schemas, as the MCP servers publish them in `tools/list`) and from the OpenAPI document the Worker serves
 * (query parameters and request bodies of every operation).
 *
 * Each case carries what the oracle needs to judge its answer beyond the rules every answer obeys: whether
 * it must be refused (and why), the JSON-RPC error codes a malformed message must get, whether it is a
 * fund-data request (answers `private, no-store`), and whether its `Host` is hostile.
 */
import fc from 'fast-check';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { ROUTES } from '../../lib/routes.ts';
import { CALCULATORS } from '../../lib/calculators/index.ts';
import { toolName } from '../../lib/calculators/definition.ts';
import { FUND_TOOLS } from '../../lib/fund/tools/index.ts';
import { toolInputSchema } from '../../lib/mcp/tools.ts';
import { DEMO_API_KEY } from '../../lib/keys.ts';
import { allowedMethods } from '../../lib/endpoint.ts';
import type { FuzzRequest } from './http.ts';
import { canary, csvOfRows, hostileText, hostileValue, jsonVerdict, queryVerdict, validValue, type Schema } from './schema.ts';

/** The keys the fuzzer calls with, minted into the Worker's local KV before the run. */
export interface FuzzKeys {
  /** A key of the fund the Worker serves (`FUND_ID`), with a daily calculator limit the run cannot reach. */
  sample: string;
  /** A key of another fund (403 on fund data; valid for calculators). */
  other: string;
  /** A key minted for the served fund, then revoked. */
  revoked: string;
}

/** One query parameter of an operation, as the OpenAPI document lists it. */
export interface QueryParameter {
  name: string;
  required: boolean;
  schema: Schema;
}

/** One REST operation: path, method, its declaration's auth, and the OpenAPI document's parameters and body. */
export interface RestOperation {
  path: string;
  method: 'GET' | 'POST';
  auth: 'none' | 'optional' | 'required';
  query: QueryParameter[];
  body?: Schema;
}

/** A tool of an MCP server and its input schema as `tools/list` shows it. */
export interface ToolModel {
  name: string;
  input: Schema;
}

/** Everything cases are generated from. */
export interface FuzzModel {
  operations: RestOperation[];
  publicTools: ToolModel[];
  fundTools: ToolModel[];
  /** Every route path with the methods it allows (`Allow`). */
  allow: Map<string, string[]>;
}

/** JSON-RPC expectations of a single (non-batch) message. */
export interface RpcExpectation {
  /** The error codes the message must get (when it gets a JSON-RPC answer at all). */
  codes?: number[];
  /** Codes it must not get (an id of `1.5` is well-formed JSON: never `-32700`). */
  notCodes?: number[];
  /** A `tools/call` whose arguments break the tool's input schema: an error or an `isError` result. */
  badArguments?: boolean;
}

/** A generated request and what its answer is judged by. */
export interface FuzzCase {
  /** Generator family (`rest-calc`, `mcp-fund`, `host`, ...). */
  family: string;
  /** The route it aims at (the route table's path), or `(other path)`. */
  route: string;
  request: FuzzRequest;
  /** `page`: a documentation page of the site (HTML or Markdown, not JSON). */
  surface: 'rest' | 'mcp' | 'page';
  /** Set when the request must not succeed, with the reason. */
  mustReject?: string;
  rpc?: RpcExpectation;
  /**
   * A batch: its size, the requests in it (messages with a method and a string or number id), whether two of
   * them share an id, and whether the protocol revision it was sent under still has batches.
   */
  batch?: { size: number; requests: number; repeatedIds: boolean; revisionHasBatches: boolean };
  /** The `Host` sent is not a loopback name. */
  hostileHost?: string;
}

/** The placeholder a header value may hold for the Worker's own origin (`http://127.0.0.1:<port>`). */
export const SELF_ORIGIN = '{{self}}';

/**
 * Builds the model: the route table and declarations, cross-checked against the OpenAPI document.
 * @throws {Error} an operation of the route table is missing from the document
 */
export function buildModel(openapi: { paths: Record<string, Record<string, Record<string, unknown>>> }): FuzzModel {
  const operations: RestOperation[] = [];
  const allow = new Map<string, string[]>();
  for (const route of ROUTES) {
    allow.set(route.path, allowedMethods(route));
    if (route.path.startsWith('/api/mcp')) continue;
    for (const [method, op] of Object.entries(route.endpoint.methods)) {
      const documented = openapi.paths[route.path]?.[method.toLowerCase()];
      if (!documented) throw new Error(`the OpenAPI document lacks ${method} ${route.path}`);
      const params = (documented.parameters as { name: string; required: boolean; schema: Schema }[] | undefined) ?? [];
      const body = (documented.requestBody as { content: Record<string, { schema: Schema }> } | undefined)?.content['application/json']
        ?.schema;
      operations.push({
        path: route.path,
        method: method as 'GET' | 'POST',
        auth: op.auth,
        query: params.map((p) => ({ name: p.name, required: p.required, schema: p.schema })),
        ...(body ? { body } : {}),
      });
    }
  }
  const publicTools = CALCULATORS.map((def) => ({ name: toolName(def), input: toolInputSchema(def.input) as Schema }));
  const fundTools = FUND_TOOLS.map((def) => ({ name: def.tool, input: toolInputSchema(def.query) as Schema }));
  return { operations, publicTools, fundTools, allow };
}

type Headers = [string, string][];

/** `arb` once in `n` cases, else `null` (fast-check's `option` is the reverse: `null` once in `freq`). */
function sometimes<T>(arb: fc.Arbitrary<T>, n: number): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: n - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });
}
type Auth = { headers: Headers; reject?: string };

/** Who is asking: a client address (or none), as the calculator quota and the demo key's burst guard see it. */
const clientIp: fc.Arbitrary<Headers> = fc.oneof(
  { weight: 6, arbitrary: fc.ipV4().map((ip): Headers => [['cf-connecting-ip', ip]]) },
  { weight: 2, arbitrary: fc.ipV6().map((ip): Headers => [['cf-connecting-ip', ip]]) },
  { weight: 1, arbitrary: fc.constantFrom<Headers>([], [['cf-connecting-ip', 'not-an-ip']], [['cf-connecting-ip', '']]) },
);

/**
 * Authorization header variants. `scope`: what the route needs — a fund key (REST fund data: the demo key
 * reads the synthetic fund), a fund key that is not the demo key (the fund MCP server), or nothing
 * (calculators: any valid key or none; a credential that is not valid is refused).
 */
function auth(keys: FuzzKeys, scope: 'fund' | 'mcp-fund' | 'calc'): fc.Arbitrary<Auth> {
  const accepted: fc.Arbitrary<Auth>[] = [
    fc.constant<Auth>({ headers: [['authorization', `Bearer ${keys.sample}`]] }),
    fc.constantFrom('bearer', 'BEARER', 'Bearer  ').map((scheme): Auth => ({ headers: [['authorization', `${scheme} ${keys.sample}`]] })),
  ];
  if (scope !== 'mcp-fund') accepted.push(fc.constant<Auth>({ headers: [['authorization', `Bearer ${DEMO_API_KEY}`]] }));
  if (scope === 'calc')
    accepted.push(fc.constant<Auth>({ headers: [] }), fc.constant<Auth>({ headers: [['authorization', `Bearer ${keys.other}`]] }));
  const refused: fc.Arbitrary<Auth>[] = [
    fc.constant<Auth>({ headers: [['authorization', keys.sample]], reject: 'a key without the Bearer scheme' }),
    fc.constant<Auth>({ headers: [['authorization', `Bearer ${keys.revoked}`]], reject: 'a revoked key' }),
    fc.constant<Auth>({
      headers: [
        ['authorization', `Bearer ${keys.sample}`],
        ['authorization', `Bearer ${keys.other}`],
      ],
      reject: 'two Authorization headers',
    }),
    fc.constant<Auth>({
      headers: [
        ['authorization', `Bearer ${keys.sample}`],
        ['authorization', `Bearer ${keys.sample}`],
      ],
      reject: 'two Authorization headers',
    }),
    canary.map((c): Auth => ({ headers: [['authorization', `Bearer svc_dk_${c}${'A'.repeat(32 - c.length)}`]], reject: 'an unknown key' })),
    canary.map((c): Auth => ({ headers: [['authorization', `Bearer ${c}`]], reject: 'a malformed key' })),
    canary.map((c): Auth => ({ headers: [['authorization', `Basic ${c}`]], reject: 'a Basic credential' })),
    fc
      .constantFrom('Bearer', 'Bearer ', `Bearer ${keys.sample}x`)
      .map((v): Auth => ({ headers: [['authorization', v]], reject: 'a malformed Authorization header' })),
  ];
  if (scope === 'calc') accepted.push(fc.constant<Auth>({ headers: [['authorization', '']] }));
  if (scope !== 'calc') {
    refused.push(fc.constantFrom<Headers>([], [['authorization', '']]).map((headers) => ({ headers, reject: 'no key' })));
    refused.push(fc.constant<Auth>({ headers: [['authorization', `Bearer ${keys.other}`]], reject: "another fund's key" }));
  }
  if (scope === 'mcp-fund')
    refused.push(
      fc.constant<Auth>({ headers: [['authorization', `Bearer ${DEMO_API_KEY}`]], reject: 'the demo key on the fund MCP server' }),
    );
  return fc.oneof({ weight: 4, arbitrary: fc.oneof(...accepted) }, { weight: 1, arbitrary: fc.oneof(...refused) });
}

/** Fields not in any schema, with canary values (their names may be echoed as pointers; their values never). */
const unknownField = fc.tuple(
  fc.constantFrom('extra', '__proto__', 'constructor', 'Days', 'inputs', 'prototype', 'ünïcode', ''),
  fc.oneof(canary, hostileValue({})),
);

/**
 * A JSON object for an input schema: each field omitted, valid (at or near its bounds) or hostile, plus
 * sometimes an unknown field. The oracle decides with {@link jsonVerdict} whether it must be refused.
 */
export function argumentsFor(s: Schema): fc.Arbitrary<Record<string, unknown>> {
  const props = Object.entries((s.properties as Record<string, Schema>) ?? {});
  const fields = props.map(([name, schema]) =>
    fc
      .oneof(
        { weight: 5, arbitrary: fc.constant(undefined) },
        { weight: 5, arbitrary: validValue(schema, name) },
        { weight: 2, arbitrary: hostileValue(schema) },
      )
      .map((v) => [name, v] as const),
  );
  return fc.tuple(fc.tuple(...fields), sometimes(unknownField, 8)).map(([entries, extra]) => {
    const out: Record<string, unknown> = {};
    for (const [name, value] of entries) if (value !== undefined) out[name] = value;
    if (extra) Object.defineProperty(out, extra[0], { value: extra[1], enumerable: true, writable: true, configurable: true });
    return out;
  });
}

/** A body as sent: JSON of the object, or a mangled spelling of it. */
function bodyText(value: unknown): fc.Arbitrary<{ text: string; parsed?: unknown; unsure?: boolean }> {
  const json = JSON.stringify(value);
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant({ text: json, parsed: value }) },
    { weight: 1, arbitrary: fc.constantFrom(' \n\t', '\r\n').map((ws) => ({ text: `${ws}${json}${ws}`, parsed: value })) },
    // RFC 8259 §8.1: a parser may ignore a leading byte order mark, so it is not judged either way.
    { weight: 1, arbitrary: fc.constant({ text: `\uFEFF${json}` }).map((b) => ({ ...b, unsure: true })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          json.slice(0, -1),
          `${json}x`,
          `${json}${json}`,
          '',
          'null',
          '[]',
          '"x"',
          '5',
          'true',
          "{'a':1}",
          '{"a":1,}',
          '\u0000',
        )
        .map((text) => ({ text })),
    },
    { weight: 1, arbitrary: canary.map((c) => ({ text: `{"horizonYears":"${c}"` })) },
  );
}

/** Content-Type variants: JSON ones, and ones that are not JSON (415). */
const contentType: fc.Arbitrary<{ headers: Headers; reject?: string }> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .constantFrom<Headers>(
        [['content-type', 'application/json']],
        [['content-type', 'application/json; charset=utf-8']],
        [['content-type', 'Application/JSON']],
        [['content-type', 'application/vnd.api+json']],
      )
      .map((headers) => ({ headers })),
  },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        fc.constantFrom<Headers>(
          [],
          [['content-type', 'text/plain']],
          [['content-type', 'application/x-www-form-urlencoded']],
          [['content-type', 'multipart/form-data; boundary=x']],
          [['content-type', 'application/json, text/plain']],
          [['content-type', 'application/jsonx']],
        ),
        canary.map((c): Headers => [['content-type', `application/${c}`]]),
      )
      .map((headers) => ({ headers, reject: 'a Content-Type that is not JSON' })),
  },
);

/** Query-string values for a parameter: valid spellings, the grammar's edges (hex, exponents, blanks) and hostile text. */
function queryValue(p: QueryParameter): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: validValue(p.schema, p.name).map(String) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '0x10',
        '0x1F',
        '0b11',
        '0o17',
        '1e2',
        '1E1',
        '+5',
        ' 5',
        '5 ',
        '05',
        '5.0',
        '-1',
        '0',
        '1.5',
        'Infinity',
        'NaN',
        '',
        '9'.repeat(400),
        '0.950',
        '1_0',
      ),
    },
    { weight: 1, arbitrary: fc.oneof(hostileText, canary) },
  );
}

function encodeQuery(pairs: [string, string][]): string {
  return pairs.length
    ? `?${pairs.map(([k, v]) => `${encodeURIComponent(k.toWellFormed())}=${encodeURIComponent(v.toWellFormed())}`).join('&')}`
    : '';
}

/** Why a query must be refused (an invalid or unknown parameter, a repeated one, a required one missing), or nothing. */
function queryRejection(op: RestOperation, pairs: [string, string][]): string | undefined {
  const names = pairs.map(([k]) => k);
  if (new Set(names).size !== names.length) return 'a repeated query parameter';
  for (const [name, value] of pairs) {
    const p = op.query.find((q) => q.name === name);
    if (!p) return 'an unknown query parameter';
    if (queryVerdict(p.schema, value) === 'invalid') return `query parameter ${name} not a documented value`;
  }
  const missing = op.query.find((q) => q.required && !names.includes(q.name));
  return missing ? `required query parameter ${missing.name} missing` : undefined;
}

/** A query string for an operation, and why it must be refused (if it must). */
function queryFor(op: RestOperation): fc.Arbitrary<{ query: string; reject?: string; unsure: boolean }> {
  const declared = op.query.map((p) =>
    fc.option(queryValue(p), { freq: 3 }).map((v) => (v === null ? [] : [[p.name, v] as [string, string]])),
  );
  return fc
    .tuple(
      fc.tuple(...declared),
      sometimes(
        fc.tuple(fc.constantFrom(...(op.query.length ? op.query.map((q) => q.name) : ['days'])), fc.oneof(canary, fc.constant('1'))),
        8,
      ),
      sometimes(fc.tuple(fc.constantFrom('x', 'DAYS', 'days[]', '__proto__', 'callback', ''), canary), 8),
    )
    .map(([lists, duplicate, unknown]) => {
      const pairs = lists.flat();
      if (duplicate) pairs.push(duplicate);
      if (unknown) pairs.push(unknown);
      const unsure = pairs.some(([name, value]) => {
        const p = op.query.find((q) => q.name === name);
        return p !== undefined && queryVerdict(p.schema, value) === 'unsure';
      });
      const reject = queryRejection(op, pairs);
      return { query: encodeQuery(pairs), unsure, ...(reject ? { reject } : {}) };
    });
}

/** REST calculators: `POST /api/v1/calc/<slug>` with generated bodies, content types, keys and client addresses. */
function restCalc(model: FuzzModel, keys: FuzzKeys): fc.Arbitrary<FuzzCase> {
  const ops = model.operations.filter((o) => o.method === 'POST' && o.body);
  return fc
    .constantFrom(...ops)
    .chain((op) =>
      fc.record({
        op: fc.constant(op),
        body: argumentsFor(op.body!).chain(bodyText),
        type: contentType,
        who: auth(keys, 'calc'),
        ip: clientIp,
        query: sometimes(
          canary.map((c) => `?x=${c}`),
          15,
        ),
      }),
    )
    .map(({ op, body, type, who, ip, query }) => {
      const bodyOk = body.parsed !== undefined && jsonVerdict(op.body!, body.parsed);
      const reject =
        who.reject ??
        type.reject ??
        (query ? 'a query parameter on a calculator' : undefined) ??
        (bodyOk || body.unsure ? undefined : 'a body that breaks the input schema');
      return {
        family: 'rest-calc',
        route: op.path,
        surface: 'rest' as const,
        request: { method: 'POST', path: `${op.path}${query ?? ''}`, headers: [...type.headers, ...who.headers, ...ip], body: body.text },
        ...(reject ? { mustReject: reject } : {}),
      };
    });
}

/** REST fund data: `GET`/`HEAD /api/v1/fund/<path>` with generated queries and key variants. */
function restFund(model: FuzzModel, keys: FuzzKeys): fc.Arbitrary<FuzzCase> {
  const ops = model.operations.filter((o) => o.method === 'GET' && o.auth === 'required');
  return fc
    .constantFrom(...ops)
    .chain((op) =>
      fc.record({
        op: fc.constant(op),
        q: queryFor(op),
        who: auth(keys, 'fund'),
        ip: clientIp,
        method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD'),
      }),
    )
    .map(({ op, q, who, ip, method }) => {
      const reject = who.reject ?? q.reject;
      return {
        family: 'rest-fund',
        route: op.path,
        surface: 'rest' as const,
        request: { method, path: `${op.path}${q.query}`, headers: [...who.headers, ...ip] },
        ...(reject ? { mustReject: reject } : {}),
      };
    });
}

type Message = { value: unknown; rpc?: RpcExpectation; reject?: string };

const rpcId = fc.oneof(fc.integer({ min: 0, max: 1e6 }), fc.string({ maxLength: 8 }));

/** One JSON-RPC message for a server: valid calls, notifications, and malformed ones with the codes they must get. */
function message(tools: ToolModel[], otherTools: ToolModel[]): fc.Arbitrary<Message> {
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
function batchOf(values: unknown[], revisionHasBatches: boolean): NonNullable<FuzzCase['batch']> {
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
const versionHeader: fc.Arbitrary<{ headers: Headers; hasBatches: boolean; reject?: string }> = fc.oneof(
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

const acceptHeader: fc.Arbitrary<Headers> = fc.constantFrom<Headers>(
  [['accept', 'application/json, text/event-stream']],
  [['accept', 'application/json, text/event-stream']],
  [['accept', 'application/json']],
  [['accept', 'text/event-stream']],
  [['accept', '*/*']],
  [],
  [['accept', 'text/html']],
);

/** Origin: none (non-browser clients), the Worker's own, or a foreign one (403). */
const originHeader: fc.Arbitrary<{ headers: Headers; reject?: string }> = fc.oneof(
  { weight: 8, arbitrary: fc.constant({ headers: [] as Headers }) },
  { weight: 1, arbitrary: fc.constant({ headers: [['origin', SELF_ORIGIN]] as Headers }) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('https://evil.example', 'null', 'http://localhost.evil.example', 'http://127.0.0.1.nip.io')
      .map((o) => ({ headers: [['origin', o]] as Headers, reject: 'a foreign Origin' })),
  },
);

/** MCP: one message or a batch to one server, with its headers, key, Origin and revision. */
function mcp(model: FuzzModel, keys: FuzzKeys, server: 'public' | 'fund'): fc.Arbitrary<FuzzCase> {
  const tools = server === 'public' ? model.publicTools : model.fundTools;
  const other = server === 'public' ? model.fundTools : model.publicTools;
  const path = server === 'public' ? '/api/mcp/public' : '/api/mcp';
  const body = fc.oneof(
    { weight: 8, arbitrary: message(tools, other).map((m) => ({ messages: [m], batch: false })) },
    {
      weight: 2,
      arbitrary: fc.array(message(tools, other), { minLength: 1, maxLength: 4 }).map((messages) => ({ messages, batch: true })),
    },
  );
  return fc
    .record({
      body,
      raw: sometimes(
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

/**
 * Methods sent to every path. A method name outside HTTP's registry (`FOO`) never reaches the Worker:
 * workerd answers it 501 `text/plain` itself, so it is not sent.
 */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/** Method and content-type confusion on every route: methods it does not serve (405), bodies on GET, forms on POST. */
function methodConfusion(model: FuzzModel, keys: FuzzKeys): fc.Arbitrary<FuzzCase> {
  const paths = [...model.allow.keys()];
  return fc
    .record({
      path: fc.constantFrom(...paths),
      method: fc.constantFrom(...METHODS),
      who: auth(keys, 'fund'),
      type: contentType,
      body: fc.option(
        fc.oneof(
          fc.constant('{}'),
          canary.map((c) => JSON.stringify({ days: c })),
          canary.map((c) => `a=${c}`),
        ),
        { freq: 2 },
      ),
    })
    .map(({ path, method, who, type, body }): FuzzCase => {
      const allowed = model.allow.get(path)!;
      const reject = method === 'OPTIONS' ? undefined : allowed.includes(method) ? undefined : `method ${method} not allowed here`;
      return {
        family: 'method',
        route: path,
        surface: path.startsWith('/api/mcp') ? 'mcp' : 'rest',
        request: { method, path, headers: [...type.headers, ...who.headers], ...(body !== null ? { body } : {}) },
        ...(reject ? { mustReject: reject } : {}),
      };
    });
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]', 'localhost:8787', '127.0.0.1:9', '[::1]:8787'];
const HOSTILE_HOSTS = [
  'evil.example',
  'evil.example:8787',
  'localhost.evil.example',
  '127.0.0.1.nip.io',
  'attacker.test:80',
  'xn--80ak6aa92e.com',
];

/**
 * `Host` and `Origin` headers of a DNS-rebinding attacker against the Worker on loopback: the MCP servers
 * must refuse a non-loopback `Host`, however the `Origin` matches it; the OpenAPI document must not put an
 * attacker's `Host` into a body shared caches may keep.
 */
function hostHeaders(keys: FuzzKeys): fc.Arbitrary<FuzzCase> {
  return fc
    .record({
      host: fc.oneof(fc.constantFrom(...HOSTILE_HOSTS), fc.constantFrom(...LOOPBACK_HOSTS)),
      origin: fc.constantFrom('none', 'same', 'self'),
      target: fc.constantFrom('public', 'fund', 'openapi', 'calc', 'overview'),
      id: rpcId,
    })
    .map(({ host, origin, target, id }): FuzzCase => {
      const hostile = HOSTILE_HOSTS.includes(host);
      const originHeaders: Headers =
        origin === 'same' ? [['origin', `http://${host}`]] : origin === 'self' ? [['origin', SELF_ORIGIN]] : [];
      const init = JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
      });
      const json: Headers = [
        ['content-type', 'application/json'],
        ['accept', 'application/json, text/event-stream'],
      ];
      const base = { family: 'host', surface: 'rest' as const, ...(hostile ? { hostileHost: host } : {}) };
      switch (target) {
        case 'public':
        case 'fund': {
          const path = target === 'public' ? '/api/mcp/public' : '/api/mcp';
          const key: Headers = target === 'fund' ? [['authorization', `Bearer ${keys.sample}`]] : [];
          const reject = hostile ? 'a non-loopback Host on the MCP server (DNS rebinding)' : undefined;
          return {
            ...base,
            surface: 'mcp',
            route: path,
            request: { method: 'POST', path, headers: [['host', host], ...originHeaders, ...json, ...key], body: init },
            ...(reject ? { mustReject: reject } : {}),
          };
        }
        case 'openapi':
          return {
            ...base,
            route: '/api/v1/openapi.json',
            request: { method: 'GET', path: '/api/v1/openapi.json', headers: [['host', host], ...originHeaders] },
          };
        case 'calc':
          return {
            ...base,
            route: '/api/v1/calc/fee-calculator',
            request: {
              method: 'POST',
              path: '/api/v1/calc/fee-calculator',
              headers: [['host', host], ...originHeaders, ...json, ['authorization', `Bearer ${keys.sample}`]],
              body: '{}',
            },
          };
        default:
          return {
            ...base,
            route: '/api/v1/fund/overview',
            request: {
              method: 'GET',
              path: '/api/v1/fund/overview',
              headers: [['host', host], ...originHeaders, ['authorization', `Bearer ${keys.sample}`]],
            },
          };
      }
    });
}

/** The site's documentation pages (lib/site/pages.ts): answered as HTML or Markdown. */
const SITE_PAGES = new Set(['/', '/docs', '/llms.txt', '/llms-full.txt']);

const OTHER_PATHS = [
  '/',
  '/api',
  '/api/v1/fund',
  '/api/v1/fund/',
  '/api/v1/fund/overview/',
  '/api/v1/fund/nope',
  '/api/v1/fund/../calc/fee-calculator',
  '/api/v1/fund/%2e%2e/calc/fee-calculator',
  '/api/v1/fund/overview%00',
  '/api/v1/fund/overview;x=1',
  '/api/v1/FUND/overview',
  '//api/v1/fund/overview',
  '/api/v1/fund/risk/var/x',
  '/api/mcp/',
  '/api/mcp/public/',
  '/api/mcp/x',
  '/api/v1/openapi.json/x',
  '/api/v1/calc/',
  '/api/v1/calc/unknown',
  '/api/v1/fund/overview?%ZZ=1',
  '/api/v1/fund/exposure/series?days=%E0%A4%A',
];

/** Paths outside the route table, on the edges of it (trailing slashes, dot segments, encodings, case). */
function otherPaths(keys: FuzzKeys): fc.Arbitrary<FuzzCase> {
  return fc
    .record({
      path: fc.constantFrom(...OTHER_PATHS),
      method: fc.constantFrom('GET', 'POST', 'HEAD', 'DELETE'),
      who: auth(keys, 'fund'),
      c: canary,
    })
    .map(
      ({ path, method, who, c }): FuzzCase => ({
        family: 'path',
        route: '(other path)',
        surface: SITE_PAGES.has(new URL(path, 'http://x').pathname)
          ? 'page'
          : new URL(path, 'http://x').pathname === '/api/mcp'
            ? 'mcp'
            : 'rest',
        request: {
          method,
          path: path.includes('?') ? `${path}&c=${c}` : `${path}?c=${c}`,
          headers: [...who.headers, ['content-type', 'application/json']],
          body: method === 'POST' ? '{}' : undefined,
        },
      }),
    );
}

/** Built once per process: the large payloads are shared by every case that sends them. */
const BIG = {
  // Four times the sizes once measured at 3.6 s and 2.8 s; still far below the 1 MiB cap.
  digits: `{"reportText":"up ${'1'.repeat(262_144)}"}`,
  dots: `{"reportText":"${'.'.repeat(180_000)} x"}`,
  percent: `{"reportText":"${'-1'.repeat(30_000)}.%"}`,
  overCap: `{"reportText":"${'a'.repeat(1024 * 1024)}"}`,
  deepArray: `{"annualGrossReturnPctByYear":${'['.repeat(50_000)}${']'.repeat(50_000)}}`,
  deepObject: `{"navUsd":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`,
  hugeNumber: `{"horizonYears":${'9'.repeat(500_000)}}`,
  rows10000: JSON.stringify({ positionsCsv: csvOfRows('positionsCsv', 10_000) }),
  rows10001: JSON.stringify({ positionsCsv: csvOfRows('positionsCsv', 10_001) }),
  lpRows10001: JSON.stringify({ lpRowsCsv: csvOfRows('lpRowsCsv', 10_001) }),
  mcpDeep: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"x":${'['.repeat(50_000)}${']'.repeat(50_000)}}}}`,
};

/** Large and deep inputs: the grader's backtracking shapes, the 1 MiB cap, 10,000 and 10,001 CSV rows, deep nesting. */
function big(keys: FuzzKeys): fc.Arbitrary<FuzzCase> {
  const calc = (slug: string, body: string, reject?: string, mcpArgs = false): FuzzCase => ({
    family: 'big',
    route: mcpArgs ? '/api/mcp/public' : `/api/v1/calc/${slug}`,
    surface: mcpArgs ? 'mcp' : 'rest',
    request: mcpArgs
      ? {
          method: 'POST',
          path: '/api/mcp/public',
          headers: [
            ['content-type', 'application/json'],
            ['accept', 'application/json, text/event-stream'],
            ['authorization', `Bearer ${keys.sample}`],
          ],
          body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"calc_${slug.replace(/-/g, '_')}","arguments":${body}}}`,
        }
      : {
          method: 'POST',
          path: `/api/v1/calc/${slug}`,
          headers: [
            ['content-type', 'application/json'],
            ['authorization', `Bearer ${keys.sample}`],
          ],
          body,
        },
    ...(reject ? { mustReject: reject } : {}),
  });
  return fc.oneof(
    fc.constantFrom(
      calc('lp-report-grader', BIG.digits),
      calc('lp-report-grader', BIG.dots),
      calc('lp-report-grader', BIG.percent),
      calc('lp-report-grader', BIG.digits, undefined, true),
      calc('lp-report-grader', BIG.overCap, 'a body over 1 MiB'),
      calc('fee-calculator', BIG.deepArray, 'a deeply nested value of the wrong type'),
      calc('exposure-analysis', BIG.deepObject, 'a deeply nested value of the wrong type'),
      calc('fee-calculator', BIG.hugeNumber, 'a number out of range'),
      calc('exposure-analysis', BIG.rows10000),
      calc('exposure-analysis', BIG.rows10001, 'a CSV of 10,001 rows'),
      calc('fund-health-check', BIG.rows10001, 'a CSV of 10,001 rows'),
      calc('nav-validator', BIG.lpRows10001, 'a CSV of 10,001 rows'),
      calc('exposure-analysis', BIG.rows10001, 'a CSV of 10,001 rows', true),
    ),
    fc.constant<FuzzCase>({
      family: 'big',
      route: '/api/mcp',
      surface: 'mcp',
      request: {
        method: 'POST',
        path: '/api/mcp',
        headers: [
          ['content-type', 'application/json'],
          ['authorization', `Bearer ${keys.sample}`],
        ],
        body: BIG.mcpDeep,
      },
    }),
  );
}

/**
 * Every case the fuzzer sends, weighted toward the routes' own inputs.
 * @param model what the service declares (see {@link buildModel})
 * @param keys the keys minted for the run
 */
export function fuzzCase(model: FuzzModel, keys: FuzzKeys): fc.Arbitrary<FuzzCase> {
  return fc.oneof(
    { weight: 22, arbitrary: restCalc(model, keys) },
    { weight: 22, arbitrary: restFund(model, keys) },
    { weight: 15, arbitrary: mcp(model, keys, 'public') },
    { weight: 15, arbitrary: mcp(model, keys, 'fund') },
    { weight: 8, arbitrary: methodConfusion(model, keys) },
    { weight: 7, arbitrary: hostHeaders(keys) },
    { weight: 4, arbitrary: otherPaths(keys) },
    { weight: 1, arbitrary: big(keys) },
  );
}
