/**
 * Both surfaces refuse the same inputs: the same hostile argument sets (prototype-polluting and inherited
 * member names) go to every calculator over REST (the JSON body) and over the public MCP server (the
 * `tools/call` arguments), and to every fund tool over REST (the query string) and over the fund MCP server;
 * each surface refuses with the same field errors, under `/body` or `/query` and under `/arguments`.
 * The bodies are JSON text, so that a member named `__proto__` reaches the service as a client sends it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { toolName } from '../../lib/calculators/definition.ts';
import { createApp } from '../../lib/service.ts';
import { createKey, DEMO_API_KEY } from '../../lib/keys.ts';
import { fakeEnv } from '../support/fakes.ts';
import { SPEC_MCP_HEADERS } from '../support/contract.ts';
import { CALCULATORS, FUND_TOOLS } from '../../lib/registry.ts';

const app = createApp();

/** Argument sets as JSON text: member names an object inherits, or that set its prototype. */
const HOSTILE_OBJECTS = [
  '{"__proto__":{}}',
  '{"__proto__":null}',
  '{"__proto__":{"polluted":true}}',
  '{"__proto__":[]}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"prototype":1}',
  '{"toString":"x","valueOf":1,"hasOwnProperty":1}',
  '{"__defineGetter__":1,"__lookupSetter__":1,"isPrototypeOf":1}',
];

/** Names a query string may carry, each as its own parameter. */
const HOSTILE_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__', 'valueOf'];

interface Problem {
  code: string;
  errors?: { pointer: string; detail: string }[];
}

/** The refusal of a REST answer: its code and field errors with the location prefix removed. */
async function restRefusal(res: Response, location: string): Promise<{ status: number; code: string; errors: string[] }> {
  const problem = (await res.json()) as Problem;
  return {
    status: res.status,
    code: problem.code,
    errors: (problem.errors ?? []).map((e) => `${e.pointer.replace(`/${location}`, '')} ${e.detail}`).sort(),
  };
}

/** The refusal of an MCP `tools/call` answer: the isError result's problem, as {@link restRefusal} gives it. */
async function mcpRefusal(res: Response): Promise<{ status: number; code: string; errors: string[] }> {
  const text = await res.text();
  expect(res.status, text).toBe(200);
  const result = (JSON.parse(text) as { result: { isError?: boolean; content: { text: string }[] } }).result;
  expect(result.isError).toBe(true);
  const problem = JSON.parse(result.content[0]!.text) as Problem & { status: number };
  return {
    status: problem.status,
    code: problem.code,
    errors: (problem.errors ?? []).map((e) => `${e.pointer.replace('/arguments', '')} ${e.detail}`).sort(),
  };
}

/** A `tools/call` body with `args` spliced in as JSON text. */
const toolsCall = (name: string, args: string) =>
  `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${args}}}`;

/** The calculator's example with `member` (JSON text of one member) added first. */
function exampleWith(example: unknown, member: string): string {
  const text = JSON.stringify(example);
  return text === '{}' ? `{${member}}` : `{${member},${text.slice(1)}`;
}

afterAll(() => {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty('polluted');
});

describe('calculators: REST body and public MCP arguments refuse the same hostile members', () => {
  for (const def of CALCULATORS) {
    it(`${def.slug}`, async () => {
      const sets = [
        ...HOSTILE_OBJECTS,
        exampleWith(def.example, '"__proto__":{"polluted":true}'),
        exampleWith(def.example, '"constructor":1'),
      ];
      for (const args of sets) {
        const env = fakeEnv().env;
        const rest = await app.request(
          `/api/v1/calc/${def.path}`,
          { method: 'POST', headers: { 'content-type': 'application/json' }, body: args },
          env,
        );
        const mcp = await app.request(
          '/api/mcp/public',
          { method: 'POST', headers: SPEC_MCP_HEADERS, body: toolsCall(toolName(def), args) },
          env,
        );
        const restSaid = await restRefusal(rest, 'body');
        expect(restSaid, args).toMatchObject({ status: 400, code: 'invalid_request' });
        expect(restSaid.errors.length, args).toBeGreaterThan(0);
        expect(await mcpRefusal(mcp), args).toEqual(restSaid);
      }
    });
  }
});

describe('fund tools: REST query string and fund MCP arguments refuse the same hostile names', () => {
  it.each(FUND_TOOLS.map((t) => [t.tool, t] as const))('%s', async (_, def) => {
    const f = fakeEnv();
    const { key } = await createKey(f.API_KEYS, { fundId: 'sample-fund', label: 'hostile' });
    for (const names of [...HOSTILE_NAMES.map((n) => [n]), HOSTILE_NAMES]) {
      const query = names.map((n) => `${encodeURIComponent(n)}=1`).join('&');
      const rest = await app.request(`/api/v1/fund/${def.path}?${query}`, { headers: { authorization: `Bearer ${DEMO_API_KEY}` } }, f.env);
      const args = `{${names.map((n) => `${JSON.stringify(n)}:"1"`).join(',')}}`;
      const mcp = await app.request(
        '/api/mcp',
        { method: 'POST', headers: { ...SPEC_MCP_HEADERS, authorization: `Bearer ${key}` }, body: toolsCall(def.tool, args) },
        f.env,
      );
      const restSaid = await restRefusal(rest, 'query');
      expect(restSaid, query).toMatchObject({ status: 400, code: 'invalid_request' });
      expect(restSaid.errors, query).toEqual(expect.arrayContaining(names.map((n) => `/${n} is not a known field`)));
      expect(await mcpRefusal(mcp), args).toEqual(restSaid);
    }
  });
});
