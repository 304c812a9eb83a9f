/**
 * Request parts every kind of case draws on: client addresses, credentials, unknown fields, tool
 * arguments, body texts and content types.
 */
import fc from 'fast-check';
import { DEMO_API_KEY } from '../../../lib/keys.ts';
import { canary, hostileValue, jsonVerdict, validValue, type Schema } from '../schema.ts';
import type { FuzzKeys } from './model.ts';

export type Headers = [string, string][];

/** `arb` once in `n` cases, else `null` (fast-check's `option` is the reverse: `null` once in `freq`). */
export function sometimes<T>(arb: fc.Arbitrary<T>, n: number): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: n - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });
}
export type Auth = { headers: Headers; reject?: string };

/** Who is asking: a client address (or none), as the calculator quota and the demo key's burst guard see it. */
export const clientIp: fc.Arbitrary<Headers> = fc.oneof(
  { weight: 6, arbitrary: fc.ipV4().map((ip): Headers => [['cf-connecting-ip', ip]]) },
  { weight: 2, arbitrary: fc.ipV6().map((ip): Headers => [['cf-connecting-ip', ip]]) },
  { weight: 1, arbitrary: fc.constantFrom<Headers>([], [['cf-connecting-ip', 'not-an-ip']], [['cf-connecting-ip', '']]) },
);

/**
 * Authorization header variants. `scope`: what the route needs — a fund key (REST fund data: the demo key
 * reads the synthetic fund), a fund key that is not the demo key (the fund MCP server), or nothing
 * (calculators: any valid key or none; a credential that is not valid is refused).
 */
export function auth(keys: FuzzKeys, scope: 'fund' | 'mcp-fund' | 'calc'): fc.Arbitrary<Auth> {
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
export const unknownField = fc.tuple(
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
export function bodyText(value: unknown): fc.Arbitrary<{ text: string; parsed?: unknown; unsure?: boolean }> {
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
export const contentType: fc.Arbitrary<{ headers: Headers; reject?: string }> = fc.oneof(
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
