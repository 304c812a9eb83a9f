/**
 * Strict request validation with zod: every failure becomes one {@link FieldError} per field, addressed by
 * an RFC 6901 JSON pointer under `/body`, `/query` or `/arguments`, whose detail names the rule and never the value.
 */
import * as z from 'zod';
import { ValidationError, type FieldError } from './errors.ts';

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

/** JSON pointer of a path under `location`, e.g. `['horizonYears']` → `/body/horizonYears`. */
export function toPointer(location: InputLocation, path: readonly PropertyKey[]): string {
  return `/${location}${path.map((s) => `/${pointerToken(s)}`).join('')}`;
}

function bound(value: number | bigint, inclusive: boolean | undefined, lower: boolean): string {
  const op = lower ? (inclusive === false ? '>' : '≥') : inclusive === false ? '<' : '≤';
  return `${op} ${String(value)}`;
}

/**
 * Turns one zod issue into client-safe details. Built only from the schema (expected type, bounds,
 * allowed values, unknown key names); `issue.input` is never read. Custom refinements carry messages
 * written in this code base, which by rule never include the input.
 */
export function describeIssue(issue: z.core.$ZodIssue, location: InputLocation): FieldError[] {
  const at = (path: readonly PropertyKey[]) => toPointer(location, path);
  switch (issue.code) {
    case 'invalid_type':
      return [{ pointer: at(issue.path), detail: `must be of type ${issue.expected}` }];
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
  throw new ValidationError(result.error.issues.flatMap((issue) => describeIssue(issue, location)));
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
