/**
 * The allow-list step of the redaction (lib/redaction.ts) in one pass: a response checked against its
 * resource's strict schema and written as JSON as it is checked, field by field in the schema's order.
 *
 * zod checks a value by interpreting its schema, and in workerd, which allows no code generation, it cannot
 * compile one; checking a 1,826-row NAV history that way, then serializing the copy it returns, was 2–4 ms
 * of an isolate's first request. A schema made only of the kinds an allow-list uses (strict objects, arrays,
 * strings with patterns and lengths, finite numbers with integer and range checks, booleans, enums, literals,
 * nullable values and optional fields) is turned here once into a writer of closures; the writer accepts
 * exactly the values zod's parse accepts and writes exactly `JSON.stringify` of what that parse returns
 * (test/allow-list.test.ts holds it to zod, value for value). A schema with anything else has no writer, and
 * the caller parses with zod instead.
 */
import type * as z from 'zod';

/** Writes `value` as JSON text, or throws {@link NotAllowed} when the schema does not accept it. */
export type AllowListWriter = (value: unknown) => string;

/** Thrown by a writer for a value its schema does not accept (never a message: the caller names the failure). */
export class NotAllowed extends Error {
  override readonly name = 'NotAllowed';
}

const notAllowed = (): never => {
  throw new NotAllowed();
};

/** What a schema's `_zod.def` holds that the writer reads (zod 4's definitions). */
interface Def {
  type: string;
  checks?: { _zod: { def: CheckDef } }[];
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  innerType?: z.ZodType;
  entries?: Record<string, unknown>;
  values?: readonly unknown[];
}

/** A check's definition: its kind and its bound, pattern or format. */
interface CheckDef {
  check: string;
  format?: string;
  pattern?: RegExp;
  value?: number;
  inclusive?: boolean;
  maximum?: number;
  minimum?: number;
  length?: number;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Thrown while compiling: the schema holds a kind or a check the writer does not implement. */
class Unsupported extends Error {}

/** A test on a value of the checked kind (a string's length, a number's range): true when it passes. */
type Test<T> = (value: T) => boolean;

/** How many code points `s` has (a surrogate pair is one), which is how zod measures a string's length. */
function codePoints(s: string): number {
  let count = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    if ((s.charCodeAt(i) & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count--;
      i++;
    }
  }
  return count;
}

/** The tests of a string's checks (patterns, and lengths in code points), as zod runs them. */
function stringTests(def: Def): Test<string>[] {
  return (def.checks ?? []).map(({ _zod: { def: c } }): Test<string> => {
    if (c.check === 'string_format' && c.format === 'regex' && c.pattern) {
      const pattern = c.pattern;
      return (s) => {
        pattern.lastIndex = 0;
        return pattern.test(s);
      };
    }
    // A code point is one or two units: only a length between the bound and twice it needs counting.
    if (c.check === 'max_length' && c.maximum !== undefined) return (s) => s.length <= c.maximum! || codePoints(s) <= c.maximum!;
    if (c.check === 'min_length' && c.minimum !== undefined) return (s) => s.length >= 2 * c.minimum! || codePoints(s) >= c.minimum!;
    if (c.check === 'length_equals' && c.length !== undefined) return (s) => codePoints(s) === c.length;
    throw new Unsupported();
  });
}

/** The tests of a number's checks (safe integer, bounds), as zod runs them; every number must be finite. */
function numberTests(def: Def): Test<number>[] {
  return (def.checks ?? []).map(({ _zod: { def: c } }): Test<number> => {
    if (c.check === 'number_format' && c.format === 'safeint') return Number.isSafeInteger;
    if (c.check === 'greater_than' && c.value !== undefined) return c.inclusive ? (n) => n >= c.value! : (n) => n > c.value!;
    if (c.check === 'less_than' && c.value !== undefined) return c.inclusive ? (n) => n <= c.value! : (n) => n < c.value!;
    throw new Unsupported();
  });
}

/** An array's element count checks. */
function lengthTests(def: Def): Test<readonly unknown[]>[] {
  return (def.checks ?? []).map(({ _zod: { def: c } }): Test<readonly unknown[]> => {
    if (c.check === 'max_length' && c.maximum !== undefined) return (a) => a.length <= c.maximum!;
    if (c.check === 'min_length' && c.minimum !== undefined) return (a) => a.length >= c.minimum!;
    if (c.check === 'length_equals' && c.length !== undefined) return (a) => a.length === c.length;
    throw new Unsupported();
  });
}

/** True when every test passes (a loop, not `every`: this runs once per field of an answer). */
function passes<T>(tests: readonly Test<T>[], value: T): boolean {
  for (let i = 0; i < tests.length; i++) if (!tests[i]!(value)) return false;
  return true;
}

/** A strict object's writer: every own key known, every required field present, fields in the schema's order. */
function objectWriter(def: Def): AllowListWriter {
  if (!def.catchall || defOf(def.catchall).type !== 'never' || (def.checks ?? []).length) throw new Unsupported();
  const fields = Object.entries(def.shape ?? {}).map(([key, schema]) => {
    const optional = defOf(schema).type === 'optional';
    return { key, prefix: `${JSON.stringify(key)}:`, optional, write: compile(optional ? defOf(schema).innerType! : schema) };
  });
  const known = new Set(fields.map((f) => f.key));
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) notAllowed();
    const record = value as Record<string, unknown>;
    for (const key in record) if (!known.has(key)) notAllowed();
    let out = '';
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i]!;
      const v = record[f.key];
      if (v === undefined && f.optional) continue;
      out += `${out === '' ? '' : ','}${f.prefix}${f.write(v)}`;
    }
    return `{${out}}`;
  };
}

/** An array's writer: its element count checks, then each element. */
function arrayWriter(def: Def): AllowListWriter {
  const tests = lengthTests(def);
  const element = compile(def.element!);
  return (value) => {
    if (!Array.isArray(value) || !passes(tests, value)) notAllowed();
    const items = value as unknown[];
    let out = '';
    for (let i = 0; i < items.length; i++) out += (i === 0 ? '' : ',') + element(items[i]);
    return `[${out}]`;
  };
}

/** The writer of one kind of schema, or {@link Unsupported}. */
function compile(schema: z.ZodType): AllowListWriter {
  const def = defOf(schema);
  switch (def.type) {
    case 'object':
      return objectWriter(def);
    case 'array':
      return arrayWriter(def);
    case 'string': {
      const tests = stringTests(def);
      return (value) => (typeof value === 'string' && passes(tests, value) ? JSON.stringify(value) : notAllowed());
    }
    case 'number': {
      const tests = numberTests(def);
      return (value) => (typeof value === 'number' && Number.isFinite(value) && passes(tests, value) ? String(value) : notAllowed());
    }
    case 'boolean':
      if ((def.checks ?? []).length) throw new Unsupported();
      return (value) => (value === true ? 'true' : value === false ? 'false' : notAllowed());
    case 'enum':
    case 'literal': {
      const allowed = new Set(def.type === 'enum' ? Object.values(def.entries ?? {}) : (def.values ?? []));
      if ((def.checks ?? []).length || [...allowed].some((v) => typeof v !== 'string')) throw new Unsupported();
      return (value) => (allowed.has(value) ? JSON.stringify(value) : notAllowed());
    }
    case 'nullable': {
      const inner = compile(def.innerType!);
      return (value) => (value === null ? 'null' : inner(value));
    }
    default:
      throw new Unsupported();
  }
}

const writers = new WeakMap<z.ZodType, AllowListWriter | null>();

/**
 * The one-pass writer of an allow-list schema, made once per schema and kept (plain closures, shared by every
 * request of the isolate), or null when the schema holds a kind or check this module does not implement
 * (the caller then parses with zod).
 */
export function allowListWriter(schema: z.ZodType): AllowListWriter | null {
  let writer = writers.get(schema);
  if (writer === undefined) {
    try {
      writer = compile(schema);
    } catch (err) {
      if (!(err instanceof Unsupported)) throw err;
      writer = null;
    }
    writers.set(schema, writer);
  }
  return writer;
}
