/**
 * The redaction's one-pass allow-list writer (lib/allow-list.ts) is zod's parse, value for value: it accepts
 * exactly what the schema's parse accepts and writes exactly `JSON.stringify` of what the parse returns
 * (a fast-check property over schemas and values of every kind it implements, near misses included), every
 * fund tool's allow-list has a writer (so no answer falls back to zod's slower path), each tool's response
 * example is written as zod would, and a schema of a kind it does not implement has none.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as z from 'zod';
import { allowListWriter, NotAllowed } from '../lib/allow-list.ts';
import { FUND_TOOLS } from '../lib/registry.ts';
import { RESPONSE_EXAMPLES } from '../lib/generated/examples.ts';
import { operationIdOf } from '../lib/endpoint.ts';
import { runRangeSchema } from '../lib/fund/analytics/runs.ts';

/** What zod makes of `value`: the JSON of its parse, or null when it refuses it. */
function byZod(schema: z.ZodType, value: unknown): string | null {
  const parsed = schema.safeParse(value);
  return parsed.success ? JSON.stringify(parsed.data) : null;
}

/** What the writer makes of `value`: its text, or null when it refuses it (any other error fails the test). */
function byWriter(schema: z.ZodType, value: unknown): string | null {
  const write = allowListWriter(schema);
  if (!write) throw new Error('no writer for the schema');
  try {
    return write(value);
  } catch (err) {
    if (err instanceof NotAllowed) return null;
    throw err;
  }
}

/** A schema of the kinds the writer implements, with a generator of values near it (most fitting, some not). */
interface Case {
  schema: z.ZodType;
  value: fc.Arbitrary<unknown>;
}

/** Values that fit no schema, or only by chance: the near misses of any field. */
const stray = fc.oneof(
  fc.constantFrom(undefined, null, NaN, Infinity, -Infinity, -0, 2 ** 53, 1.5, '', 'x', '2026-01-01', true, [], {}),
  fc.string({ maxLength: 6 }),
  fc.integer(),
  fc.double(),
);

const leaf: fc.Arbitrary<Case> = fc.oneof(
  fc.record({ min: fc.option(fc.nat(3), { nil: undefined }), max: fc.option(fc.nat(6), { nil: undefined }) }).map(({ min, max }) => {
    let schema = z.string().regex(/^[a-c]*$/);
    if (min !== undefined) schema = schema.min(min);
    if (max !== undefined) schema = schema.max(max);
    return { schema, value: fc.oneof(fc.stringMatching(/^[a-c]{0,7}$/), fc.constantFrom('d', 'ab\n', '"a"', '\u2028'), stray) };
  }),
  fc.constant<Case>({ schema: z.string().max(5), value: fc.oneof(fc.string({ maxLength: 7, unit: 'binary' }), stray) }),
  fc.constant<Case>({ schema: z.string().length(2), value: fc.oneof(fc.string({ maxLength: 3 }), stray) }),
  fc
    .record({ int: fc.boolean(), lo: fc.option(fc.integer({ min: -5, max: 5 }), { nil: undefined }), strict: fc.boolean() })
    .map(({ int, lo, strict }) => {
      let schema = int ? z.number().int() : z.number();
      if (lo !== undefined) schema = strict ? schema.gt(lo).lt(lo + 10) : schema.min(lo).max(lo + 10);
      return { schema, value: fc.oneof(fc.integer({ min: -20, max: 20 }), fc.double({ min: -20, max: 20 }), stray) };
    }),
  fc.constant<Case>({ schema: z.boolean(), value: fc.oneof(fc.boolean(), stray) }),
  fc.constant<Case>({ schema: z.enum(['complete', 'partial']), value: fc.oneof(fc.constantFrom('complete', 'partial', 'failed'), stray) }),
  fc.constant<Case>({ schema: z.literal('ewma'), value: fc.oneof(fc.constant('ewma'), stray) }),
);

const schemaCase: fc.Arbitrary<Case> = fc.letrec<{ node: Case }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    tie('node').map((c) => ({ schema: c.schema.nullable(), value: fc.oneof(c.value, fc.constant(null)) })),
    fc.record({ element: tie('node'), max: fc.option(fc.nat(3), { nil: undefined }) }).map(({ element, max }) => ({
      schema: max === undefined ? z.array(element.schema) : z.array(element.schema).max(max),
      value: fc.oneof(fc.array(element.value, { maxLength: 4 }), stray),
    })),
    fc
      .uniqueArray(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'nav', '__proto__x', 'with "quote"'), tie('node'), fc.boolean()), {
        selector: ([k]) => k,
        maxLength: 4,
      })
      .map((fields) => {
        const shape = Object.fromEntries(fields.map(([k, c, optional]) => [k, optional ? c.schema.optional() : c.schema]));
        // Fields in any order, some left out or undefined, now and then one more.
        const value = fc
          .tuple(
            fc.shuffledSubarray(fields, { minLength: Math.max(0, fields.length - 1) }),
            fc.array(fc.oneof(...fields.map(([, c]) => c.value), fc.constant(undefined)), {
              minLength: fields.length,
              maxLength: fields.length,
            }),
            fc.option(fc.constantFrom('extra', 'a'), { nil: undefined }),
          )
          .map(([kept, values, extra]) => {
            const out: Record<string, unknown> = {};
            for (const [i, [k]] of kept.entries()) out[k] = values[i];
            if (extra !== undefined && !(extra in out)) out[extra] = 1;
            return out;
          });
        return { schema: z.strictObject(shape), value: fc.oneof({ weight: 5, arbitrary: value }, stray) };
      }),
  ),
})).node;

describe('the allow-list writer', () => {
  it('property: accepts what zod accepts, and writes the JSON of what zod returns', () => {
    const sample = schemaCase.chain((c) => fc.tuple(fc.constant(c.schema), c.value));
    let accepted = 0;
    fc.assert(
      fc.property(sample, ([schema, value]) => {
        const zod = byZod(schema, value);
        expect(byWriter(schema, value)).toBe(zod);
        if (zod !== null) accepted++;
      }),
      { numRuns: 3000 },
    );
    // The property is about both answers: many samples must fit their schema, not only fail it.
    expect(accepted).toBeGreaterThan(600);
  });

  it('refuses the near misses of each kind', () => {
    const row = z.strictObject({
      date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
      n: z.number().int().nullable(),
      s: z.enum(['a', 'b']),
      opt: z.boolean().optional(),
    });
    const ok = { date: '2026-01-02', n: 3, s: 'a' };
    expect(byWriter(row, ok)).toBe('{"date":"2026-01-02","n":3,"s":"a"}');
    expect(byWriter(row, { s: 'b', opt: true, n: null, date: '2026-01-02' })).toBe('{"date":"2026-01-02","n":null,"s":"b","opt":true}');
    const misses: unknown[] = [
      { ...ok, extra: 1 },
      { date: ok.date, n: 3 },
      { ...ok, n: undefined },
      { ...ok, n: 2 ** 53 },
      { ...ok, n: NaN },
      { ...ok, n: Infinity },
      { ...ok, n: '3' },
      { ...ok, s: 'c' },
      { ...ok, date: '2026-1-2' },
      { ...ok, opt: null },
      Object.assign(Object.create({ inherited: 1 }) as object, ok),
      [ok],
      null,
      'x',
    ];
    for (const miss of misses) {
      expect(byZod(row, miss), JSON.stringify(miss)).toBeNull();
      expect(byWriter(row, miss), JSON.stringify(miss)).toBeNull();
    }
    // A hole in an array is an undefined element.
    const holey: number[] = [];
    holey[0] = 1;
    holey[2] = 3;
    expect(byZod(z.array(z.number()), holey)).toBeNull();
    expect(byWriter(z.array(z.number()), holey)).toBeNull();
  });

  it('has no writer for a schema of a kind it does not implement (the caller parses with zod)', () => {
    for (const schema of [
      z.object({ a: z.string() }),
      z.looseObject({ a: z.string() }),
      z.string().email(),
      z.union([z.string(), z.number()]),
      z.record(z.string(), z.number()),
      z.string().optional(),
      z.number().multipleOf(2),
      z.enum({ one: 1, two: 2 }),
      z.strictObject({ a: z.string().default('x') }),
      z.strictObject({ a: z.string().transform((s) => s.length) }),
    ]) {
      expect(allowListWriter(schema)).toBeNull();
    }
  });

  it('writes every fund tool’s allow-list, and each tool’s response example as zod does', () => {
    expect(FUND_TOOLS.length).toBeGreaterThan(10);
    for (const def of FUND_TOOLS) {
      expect(allowListWriter(def.output), def.tool).not.toBeNull();
      const example = RESPONSE_EXAMPLES[operationIdOf(def.tool)];
      expect(example, def.tool).toBeDefined();
      expect(byWriter(def.output, example), def.tool).toBe(byZod(def.output, example));
      expect(byWriter(def.output, example), def.tool).not.toBeNull();
    }
    expect(allowListWriter(runRangeSchema())).not.toBeNull();
  });
});
