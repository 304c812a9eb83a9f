/**
 * Strict request validation with zod: every failure becomes one {@link FieldError} per field, addressed by
 * an RFC 6901 JSON pointer under `/body`, `/query` or `/arguments`, whose detail names the rule and never the value.
 */
import * as z from 'zod';
import { ApiError, ValidationError, type FieldError } from './errors.ts';

/**
 * Where a validated value came from; the first segment of every error pointer: the JSON body or the query
 * string of a REST call, or the `arguments` of an MCP `tools/call`.
 */
export type InputLocation = 'body' | 'query' | 'arguments';

/** Escapes one RFC 6901 reference token (`~` → `~0`, `/` → `~1`). Long tokens are cut to 64 characters. */
export function pointerToken(segment: PropertyKey): string {
  const text = String(segment);
  const cut = text.length > 64 ? `${text.slice(0, 64)}…` : text;
  return cut.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * JSON pointer of a path within the input, e.g. `['positionsCsv']` → `/positionsCsv`. Core code (calculators,
 * the CSV reader) names fields this way: it does not know whether the input was a body or MCP arguments.
 */
export function inputPointer(path: readonly PropertyKey[]): string {
  return path.map((s) => `/${pointerToken(s)}`).join('');
}

/** JSON pointer of a path under `location`, e.g. `['horizonYears']` → `/body/horizonYears`. */
export function toPointer(location: InputLocation, path: readonly PropertyKey[]): string {
  return `/${location}${inputPointer(path)}`;
}

/**
 * Runs core code on validated input; an {@link ApiError} it throws names fields by {@link inputPointer},
 * and leaves here with every pointer under `/<location>` (`/positionsCsv` → `/arguments/positionsCsv`).
 * The edge (the REST endpoint, the MCP tool) calls this once, so the core never names a location.
 */
export function atLocation<T>(location: InputLocation, run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof ApiError) err.locateFields(location);
    throw err;
  }
}

function bound(value: number | bigint, inclusive: boolean | undefined, lower: boolean): string {
  const op = lower ? (inclusive === false ? '>' : '≥') : inclusive === false ? '<' : '≤';
  return `${op} ${String(value)}`;
}

/** Detail of a query parameter given more than once (`?days=7&days=8`). */
const REPEATED = 'must be given once (the parameter is repeated)';

/**
 * How the value at `path` of an input is given, without reading it: absent (no own member, or `undefined`),
 * an array, or something else. Lets a missing required field say "is required" and a repeated query
 * parameter say so, rather than name a type the caller never sent.
 */
function presence(input: unknown, path: readonly PropertyKey[]): 'absent' | 'array' | 'present' {
  let node = input;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return 'absent';
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node === undefined ? 'absent' : Array.isArray(node) ? 'array' : 'present';
}

/**
 * Turns one zod issue into client-safe details. Built only from the schema (expected type, bounds,
 * allowed values, unknown key names) and, when `input` is given, whether the field is there at all (a
 * missing required field "is required"; a query parameter given twice "must be given once"); `issue.input`
 * and the submitted values are never read. Custom refinements carry messages written in this code base,
 * which by rule never include the input.
 */
export function describeIssue(issue: z.core.$ZodIssue, location: InputLocation, input?: unknown): FieldError[] {
  const at = (path: readonly PropertyKey[]) => toPointer(location, path);
  switch (issue.code) {
    case 'invalid_type': {
      const given = input === undefined || issue.path.length === 0 ? 'present' : presence(input, issue.path);
      if (given === 'absent') return [{ pointer: at(issue.path), detail: 'is required' }];
      if (given === 'array' && location === 'query' && issue.expected !== 'array') return [{ pointer: at(issue.path), detail: REPEATED }];
      return [{ pointer: at(issue.path), detail: `must be of type ${issue.expected}` }];
    }
    case 'too_big': {
      const what = issue.origin === 'string' ? 'length must be' : issue.origin === 'array' ? 'item count must be' : 'must be';
      return [{ pointer: at(issue.path), detail: `${what} ${bound(issue.maximum, issue.inclusive, false)}` }];
    }
    case 'too_small': {
      const what = issue.origin === 'string' ? 'length must be' : issue.origin === 'array' ? 'item count must be' : 'must be';
      return [{ pointer: at(issue.path), detail: `${what} ${bound(issue.minimum, issue.inclusive, true)}` }];
    }
    case 'invalid_format':
      // Regex checks in this code base all carry a written message; zod's own ones name the format only.
      return [{ pointer: at(issue.path), detail: issue.format === 'regex' ? issue.message : `must be a valid ${issue.format}` }];
    case 'not_multiple_of':
      return [{ pointer: at(issue.path), detail: `must be a multiple of ${issue.divisor}` }];
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({ pointer: at([...issue.path, key]), detail: 'is not a known field' }));
    case 'invalid_value':
      return [{ pointer: at(issue.path), detail: `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}` }];
    case 'invalid_union':
      return [{ pointer: at(issue.path), detail: 'does not match any allowed shape' }];
    case 'invalid_key':
    case 'invalid_element':
      return [{ pointer: at(issue.path), detail: 'holds an invalid entry' }];
    case 'custom':
      return [{ pointer: at(issue.path), detail: issue.message }];
    default:
      return [{ pointer: at((issue as z.core.$ZodIssueBase).path), detail: 'is invalid' }];
  }
}

/**
 * Parses `input` with `schema`.
 * @returns the parsed value (defaults applied)
 * @throws {ValidationError} 400 `invalid_request` with every failing field
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, location: InputLocation): z.output<S> {
  const result = schema.safeParse(input, { reportInput: false });
  if (result.success) return result.data;
  throw new ValidationError(result.error.issues.flatMap((issue) => describeIssue(issue, location, input)));
}

/**
 * A value built on its first use and kept (once per isolate): the declarations' zod schemas, so that starting
 * an isolate builds none of them (building every endpoint's schemas at import was half of the Worker's
 * startup CPU, docs/performance.md) and each is built by the first request that reads it. Synchronous: what
 * it keeps is a finished value, never a pending promise.
 * @param build makes the value; called at most once (again only if it threw)
 */
export function lazy<T>(build: () => T): () => T {
  let built = false;
  let value: T;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value;
  };
}

/**
 * An object's members with `schemas` as getters that build each schema on first read ({@link lazy}): what
 * `defineCalculator` and `defineFundTool` make of a declaration, so that `def.input` reads as a schema.
 */
export function withLazySchemas<T extends object, S extends Record<string, () => unknown>>(
  members: T,
  schemas: S,
): T & { readonly [K in keyof S]: ReturnType<S[K]> } {
  const getters: PropertyDescriptorMap = {};
  for (const [name, build] of Object.entries(schemas)) getters[name] = { get: lazy(build), enumerable: true };
  return Object.defineProperties({ ...members }, getters) as T & { readonly [K in keyof S]: ReturnType<S[K]> };
}

/** A copy of `object` with `extra` members added, keeping its getters as getters (a spread would call them). */
export function withMembers<T extends object, E extends object>(object: T, extra: E): T & E {
  return Object.defineProperties({ ...extra }, Object.getOwnPropertyDescriptors(object)) as T & E;
}

/**
 * A money amount in USD (JSON number) within [min, max]; the default range ±1e15 keeps cents exact in
 * decimal arithmetic and JSON numbers.
 */
export const usd = ({ min = -1e15, max = 1e15 }: { min?: number; max?: number } = {}) => z.number().min(min).max(max);

/** True when `s` is a calendar date `YYYY-MM-DD` (UTC) that exists (2026-02-30 is not). */
export function isCalendarDate(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

/** A calendar date `YYYY-MM-DD` (UTC) that exists; one error per bad value, shape first. */
export const isoDate = () =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date shaped YYYY-MM-DD', abort: true })
    .refine(isCalendarDate, { message: 'must be a calendar date that exists' });

/**
 * How a number is written in a query string: decimal digits with an optional leading `-`, no leading zero
 * (except `0` itself), and for a non-integer field an optional `.` and digits; JSON's number grammar
 * without the exponent. Not accepted: `0x10`, `1e1`, ` 5`, `+5`, `05`, `.5`, an empty value, and `5.0`
 * where an integer is expected. Both patterns are anchored and have one unbounded repetition each, so
 * they run in linear time.
 */
export const QUERY_INTEGER = /^-?(?:0|[1-9]\d*)$/;
/** See {@link QUERY_INTEGER}. */
export const QUERY_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

const queryStringSchemas = new WeakMap<z.ZodObject, z.ZodObject>();

/**
 * The query-string form of a strict parameter schema whose fields are typed as JSON (what MCP tool
 * arguments and `tools/list` use): each number field (`z.number()`, optionally `.int()`, or a literal of
 * numbers, optionally with `.default(...)`) first reads its string by {@link QUERY_INTEGER} or
 * {@link QUERY_NUMBER} and fails with "must be a decimal integer" / "must be a decimal number" otherwise;
 * other fields are unchanged. Built once per schema.
 * @param schema a `z.strictObject` of query parameters
 * @returns a strict object schema that takes the query string's values (strings, or arrays when repeated)
 */
export function queryStringSchema<S extends z.ZodObject>(schema: S): S {
  let out = queryStringSchemas.get(schema);
  if (!out) {
    const shape: Record<string, z.ZodType> = {};
    for (const [name, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) shape[name] = fromQueryString(field);
    out = z.strictObject(shape);
    queryStringSchemas.set(schema, out);
  }
  return out as S;
}

/** One field of {@link queryStringSchema}. */
function fromQueryString(field: z.ZodType): z.ZodType {
  const def = field._zod.def as { type: string; innerType?: z.ZodType; defaultValue?: unknown; values?: unknown[] };
  if (def.type === 'default' && def.innerType) {
    const inner = fromQueryString(def.innerType);
    return inner === def.innerType ? field : inner.default(def.defaultValue as never);
  }
  const integer =
    def.type === 'number' ? (field as z.ZodNumber).isInt : def.type === 'literal' && def.values!.every((v) => Number.isInteger(v));
  if (def.type !== 'number' && !(def.type === 'literal' && def.values!.every((v) => typeof v === 'number'))) return field;
  const grammar = integer ? QUERY_INTEGER : QUERY_NUMBER;
  const message = integer ? 'must be a decimal integer' : 'must be a decimal number';
  return z.preprocess((value, ctx) => {
    if (typeof value === 'string' && grammar.test(value)) return Number(value);
    ctx.addIssue({ code: 'custom', message: Array.isArray(value) ? REPEATED : message });
    return value;
  }, field);
}
