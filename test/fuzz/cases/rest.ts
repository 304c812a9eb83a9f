/**
 * REST cases: calculator bodies and fund-data query strings, with the refusals the oracle expects.
 */
import fc from 'fast-check';
import { canary, hostileText, jsonVerdict, queryVerdict, validValue } from '../schema.ts';
import { argumentsFor, auth, bodyText, clientIp, contentType, sometimes } from './common.ts';
import type { FuzzCase, FuzzKeys, FuzzModel, QueryParameter, RestOperation } from './model.ts';

/** Query-string values for a parameter: valid spellings, the grammar's edges (hex, exponents, blanks) and hostile text. */
export function queryValue(p: QueryParameter): fc.Arbitrary<string> {
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

export function encodeQuery(pairs: [string, string][]): string {
  return pairs.length
    ? `?${pairs.map(([k, v]) => `${encodeURIComponent(k.toWellFormed())}=${encodeURIComponent(v.toWellFormed())}`).join('&')}`
    : '';
}

/** Why a query must be refused (an invalid or unknown parameter, a repeated one, a required one missing), or nothing. */
export function queryRejection(op: RestOperation, pairs: [string, string][]): string | undefined {
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
export function queryFor(op: RestOperation): fc.Arbitrary<{ query: string; reject?: string; unsure: boolean }> {
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
export function restCalc(model: FuzzModel, keys: FuzzKeys): fc.Arbitrary<FuzzCase> {
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
export function restFund(model: FuzzModel, keys: FuzzKeys): fc.Arbitrary<FuzzCase> {
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
