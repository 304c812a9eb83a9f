/**
 * A tool's answer written into the fund server's JSON answer as text (`AnswerSplice`, lib/mcp/sdk-adapter.ts):
 * the bytes on the wire are those the SDK writes for the result itself (text content and `structuredContent`
 * parsed from it), for every fund tool; SSE and batch answers, which the SDK writes whole, carry the same
 * result; and the splice finds its placeholders whatever the answer's text holds.
 */
import { describe, expect, it } from 'vitest';
import { FUND_TOOLS } from '../../lib/registry.ts';
import { AnswerSplice } from '../../lib/mcp/sdk-adapter.ts';
import { answerResult, structuredJsonOf, type ToolAnswer } from '../../lib/mcp/tools.ts';
import { fundExample } from '../support/examples.ts';
import { FUND, IP, app, fundFixture, post, sseData, toolsCall, type RpcMessage } from './support.ts';

/** The JSON-RPC response the SDK's transport writes for `result`: its own members' order, serialized once. */
const sdkMessage = (result: unknown, id: number | string) => JSON.stringify({ result, jsonrpc: '2.0', id });

/** What the SDK writes when handed `hold`'s result: the message of the placeholders. */
function heldBody(splice: AnswerSplice, answer: ToolAnswer, id: number | string = 1): string {
  return sdkMessage(splice.hold(answer), id);
}

describe('AnswerSplice', () => {
  const texts = [
    '{"a":1}',
    '[1,{"b":"c"}]',
    '{}',
    '[]',
    // Text holding the placeholders' own characters, as data and as keys.
    '{"text":"","structuredContent":{},"x":"\\"text\\":\\"\\"","y":"\\"structuredContent\\":{}"}',
    '[{"text":""},{"structuredContent":{}}]',
    // Escapes, non-ASCII, a lone surrogate escaped by JSON.stringify, a line separator.
    JSON.stringify({ s: 'quote " backslash \\ tab \t nl \n é € 😀 \ud800 \u2028' }),
  ];

  it.each(texts)('writes the bytes the SDK writes for the whole result: %s', (text) => {
    const splice = new AnswerSplice();
    const body = heldBody(splice, { text }, 7);
    expect(splice.holding).toBe(true);
    expect(body).toBe('{"result":{"content":[{"type":"text","text":""}],"structuredContent":{}},"jsonrpc":"2.0","id":7}');
    expect(splice.into(body)).toBe(sdkMessage(answerResult({ text }), 7));
  });

  it('an id that holds the placeholders as text does not move them', () => {
    const id = '"text":"" "structuredContent":{}';
    const splice = new AnswerSplice();
    const text = '{"k":"v"}';
    expect(splice.into(heldBody(splice, { text }, id))).toBe(sdkMessage(answerResult({ text }), id));
  });

  it('the structured JSON of an array is `{ items }`, of an object the text; other texts are not held', () => {
    expect(structuredJsonOf('{"a":1}')).toBe('{"a":1}');
    expect(structuredJsonOf('[1]')).toBe('{"items":[1]}');
    expect(structuredJsonOf('"s"')).toBeUndefined();
    expect(structuredJsonOf(' {}')).toBeUndefined();
    const splice = new AnswerSplice();
    expect(splice.hold({ text: '3' } as ToolAnswer)).toEqual({ content: [{ type: 'text', text: '3' }], structuredContent: 3 });
    expect(splice.holding).toBe(false);
  });

  it('an answer with its own structured object, and a second answer, go to the SDK whole', () => {
    const splice = new AnswerSplice();
    const own = { text: '{"a":1}', structured: { a: 1 } };
    expect(splice.hold(own)).toEqual(answerResult(own));
    expect(splice.holding).toBe(false);
    splice.hold({ text: '{"b":2}' });
    expect(splice.holding).toBe(true);
    expect(splice.hold({ text: '{"c":3}' })).toEqual({ content: [{ type: 'text', text: '{"c":3}' }], structuredContent: { c: 3 } });
  });

  it('an answer without a result (an error) is sent as the SDK wrote it; half the placeholders is refused', () => {
    const splice = new AnswerSplice();
    const error = '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}';
    expect(splice.into(error)).toBe(error);
    splice.hold({ text: '{"a":1}' });
    expect(splice.into(error)).toBe(error);
    expect(() => splice.into('{"result":{"content":[{"type":"text","text":""}]},"jsonrpc":"2.0","id":1}')).toThrow(/placeholder/);
    expect(() => splice.into('{"result":{"structuredContent":{}},"jsonrpc":"2.0","id":1}')).toThrow(/placeholder/);
  });

  it('nothing held: a body is sent as the SDK wrote it', () => {
    const body = sdkMessage(answerResult({ text: '{"a":1}' }), 1);
    expect(new AnswerSplice().into(body)).toBe(body);
  });
});

describe('fund server answers on the wire', () => {
  const restOf = async (env: Awaited<ReturnType<typeof fundFixture>>['env'], auth: string, path: string, query: string) => {
    const rest = await app.request(`/api/v1/fund/${path}${query}`, { headers: { authorization: auth, 'cf-connecting-ip': IP } }, env);
    const text = await rest.text();
    expect(rest.status, text).toBe(200);
    return text;
  };

  it.each(FUND_TOOLS.map((def) => [def.tool, def] as const))(
    '%s: the JSON answer is the SDK message of the REST body, byte for byte',
    async (name, def) => {
      const { env, auth } = await fundFixture();
      const { args, query } = fundExample(def);
      const res = await post(FUND, toolsCall(name, args, 'call-1'), { env, auth });
      const wire = await res.text();
      expect(res.status, wire).toBe(200);
      const rest = await restOf(env, auth, def.path, query);
      expect(wire).toBe(sdkMessage(answerResult({ text: rest }), 'call-1'));
    },
  );

  it('SSE and batch answers, written by the SDK, carry the same result', async () => {
    const { env, auth } = await fundFixture();
    const rest = await restOf(env, auth, 'nav-history', '?days=30');
    const expected = answerResult({ text: rest });

    const sse = await post(FUND, toolsCall('get_nav_history', { days: 30 }), { env, auth, headers: { accept: 'text/event-stream' } });
    expect(sse.status).toBe(200);
    const [event] = sseData(await sse.text()) as RpcMessage[];
    expect(event?.result).toEqual(expected);

    const batch = await post(FUND, [toolsCall('get_nav_history', { days: 30 })], { env, auth });
    const text = await batch.text();
    expect(batch.status, text).toBe(200);
    expect(JSON.parse(text)).toEqual([{ jsonrpc: '2.0', id: 3, result: expected }]);
  });
});
