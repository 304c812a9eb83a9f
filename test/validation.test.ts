/** Strict validation: JSON pointers per RFC 6901, and no submitted value in any error detail. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as z from 'zod';
import { parseInput, pointerToken, toPointer } from '../lib/validation.ts';
import { ValidationError } from '../lib/errors.ts';
import { CALCULATORS } from '../lib/registry.ts';

describe('JSON pointers', () => {
  it('escapes ~ and / (RFC 6901 §3)', () => {
    expect(toPointer('body', ['a/b', 'm~n', 0])).toBe('/body/a~1b/m~0n/0');
  });

  it('cuts very long names', () => {
    expect(pointerToken('x'.repeat(500))).toHaveLength(65);
  });
});

describe('parseInput', () => {
  const schema = z.strictObject({
    n: z.number().min(0).max(10),
    e: z.enum(['a', 'b']),
    s: z.string().max(3),
    list: z.array(z.number()).max(2),
  });

  it('names every failing field and its rule', () => {
    const err = (() => {
      try {
        parseInput(schema, { n: 11, e: 'c', s: 'long', list: [1, 'x', 3], extra: 1 }, 'body');
      } catch (e) {
        return e as ValidationError;
      }
    })()!;
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.errors).toEqual(
      expect.arrayContaining([
        { pointer: '/body/n', detail: 'must be ≤ 10' },
        { pointer: '/body/e', detail: 'must be one of "a", "b"' },
        { pointer: '/body/s', detail: 'length must be ≤ 3' },
        { pointer: '/body/list', detail: 'item count must be ≤ 2' },
        { pointer: '/body/extra', detail: 'is not a known field' },
      ]),
    );
  });

  it('says a missing required field is required, and names the type of one that is there but wrong', () => {
    const required = z.strictObject({ date: z.string(), inner: z.strictObject({ n: z.number() }).optional() });
    const errorsOf = (input: unknown) => {
      try {
        parseInput(required, input, 'body');
      } catch (e) {
        return (e as ValidationError).errors;
      }
      return undefined;
    };
    expect(errorsOf({})).toEqual([{ pointer: '/body/date', detail: 'is required' }]);
    expect(errorsOf({ date: null })).toEqual([{ pointer: '/body/date', detail: 'must be of type string' }]);
    expect(errorsOf({ date: 'x', inner: {} })).toEqual([{ pointer: '/body/inner/n', detail: 'is required' }]);
    // A member the prototype has is not a given field.
    expect(errorsOf(JSON.parse('{"inner":{"__proto__":{"n":1}},"date":"x"}'))).toContainEqual({
      pointer: '/body/inner/n',
      detail: 'is required',
    });
  });

  it('points into arrays by index', () => {
    expect(() => parseInput(schema, { n: 1, e: 'a', s: 'x', list: [1, 'x'] }, 'body')).toThrow(
      expect.objectContaining({ errors: [{ pointer: '/body/list/1', detail: 'must be of type number' }] }),
    );
  });

  it('never puts a submitted value into an error, for any calculator field (property)', () => {
    const marker = fc.string({ minLength: 6, maxLength: 20 }).map((s) => `Zq${s.replace(/[^A-Za-z0-9]/g, '')}9Zq`);
    const values = (m: string) => [m, { [m]: m }, [m], 1e21 + m.length, -1e21 - m.length, m.length % 2 === 0];
    for (const def of CALCULATORS) {
      const fields = Object.keys(def.input.shape);
      fc.assert(
        fc.property(fc.constantFrom(...fields), marker, fc.nat(5), (field, m, i) => {
          const value = values(m)[i];
          const result = def.input.safeParse({ [field]: value });
          if (result.success) return;
          let error: unknown;
          try {
            parseInput(def.input, { [field]: value }, 'body');
          } catch (e) {
            error = e;
          }
          expect(error).toBeInstanceOf(ValidationError);
          const text = JSON.stringify((error as ValidationError).errors);
          expect(text).not.toContain(m);
          if (typeof value === 'number') expect(text).not.toContain(String(value));
        }),
        { numRuns: 100 },
      );
    }
  });
});
