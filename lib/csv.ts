/**
 * CSV text inputs of the calculators, parsed by csv-parse (RFC 4180: quoted fields, embedded commas and
 * newlines, doubled quotes; a UTF-8 BOM and CRLF line ends are accepted). Headers match case-insensitively
 * and ignoring surrounding spaces. Errors name the field, row and column, never a cell's content.
 */
import { parse } from 'csv-parse/sync';
import { PayloadTooLargeError, ValidationError } from './errors.ts';
import { inputPointer } from './validation.ts';

import { MAX_CSV_ROWS } from './limits.ts';
/** The row cap (lib/limits.ts): a CSV with more data rows than this is 413 `payload_too_large`. */
export { MAX_CSV_ROWS };

/**
 * One parsed data row: canonical column name → trimmed cell text; `line` is the 1-based source line on
 * which the row ends (a quoted cell spanning lines ends later than it starts).
 */
export interface CsvRow {
  line: number;
  cells: Record<string, string>;
}

/**
 * Parses `text` whose first non-empty line is a header.
 * @param field input field the text came from; errors point at it relative to the input (`/positionsCsv`),
 *   and the edge adds `/body` or `/arguments` (`atLocation` in lib/validation.ts)
 * @param columns canonical column names; `required` ones must be present in the header, others are optional
 * @returns the data rows in order (empty for empty text or a header alone); blank lines are skipped
 * @throws {ValidationError} on a quoting error, a row with the wrong number of cells, or a missing column
 * @throws {PayloadTooLargeError} over {@link MAX_CSV_ROWS} data rows
 */
export function parseCsv(text: string, field: string, columns: { required: readonly string[]; optional?: readonly string[] }): CsvRow[] {
  const pointer = inputPointer([field]);
  if (text.trim() === '') return [];
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records =
      simpleRecords(text) ??
      (parse(text, {
        bom: true,
        trim: true,
        skip_empty_lines: true,
        relax_column_count: false,
        info: true,
        to: MAX_CSV_ROWS + 2,
      }) as unknown as { record: string[]; info: { lines: number } }[]);
  } catch (err) {
    const line = typeof (err as { lines?: unknown }).lines === 'number' ? (err as { lines: number }).lines : undefined;
    const code = (err as { code?: unknown }).code;
    const what =
      code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH' || code === 'CSV_RECORD_DONT_MATCH_COLUMNS_LENGTH'
        ? 'has a different number of cells than the header'
        : 'is not valid CSV (check the quotes)';
    throw new ValidationError([{ pointer, detail: line ? `line ${line} ${what}` : `CSV ${what}` }]);
  }
  if (records.length === 0) return [];
  if (records.length - 1 > MAX_CSV_ROWS) {
    throw new PayloadTooLargeError(`A CSV may hold at most ${MAX_CSV_ROWS} data rows.`, [
      { pointer, detail: `must hold at most ${MAX_CSV_ROWS} data rows` },
    ]);
  }
  const [header, ...body] = records;
  const known = [...columns.required, ...(columns.optional ?? [])];
  const index = new Map<string, number>();
  header!.record.forEach((name, i) => {
    const canonical = known.find((k) => k.toLowerCase() === name.trim().toLowerCase());
    if (canonical && !index.has(canonical)) index.set(canonical, i);
  });
  const missing = columns.required.filter((c) => !index.has(c));
  if (missing.length) {
    throw new ValidationError(missing.map((c) => ({ pointer, detail: `header lacks the column ${c}` })));
  }
  const names = [...index.keys()];
  const positions = [...index.values()];
  return body.map(({ record, info }) => {
    const cells: Record<string, string> = {};
    for (let k = 0; k < names.length; k++) cells[names[k]!] = record[positions[k]!] ?? '';
    return { line: info.lines, cells };
  });
}

/**
 * The records csv-parse gives (with the options of {@link parseCsv}) for the common simple CSV, in one pass
 * of `split` (csv-parse costs about 2 µs a row, 20 ms for 10,000 rows; this about a tenth): no quote
 * character, no whitespace but spaces and `\n` line ends (one leading BOM allowed), every non-blank line
 * with the header's number of cells, at most {@link MAX_CSV_ROWS} + 1 records. Linear in the text.
 * @returns null for anything else (a quote, `\r`, a tab, a line of spaces, a ragged row, too many rows), which
 *   csv-parse then reads, so its errors and its handling of every other case stay the only ones (exported for
 *   its property test against csv-parse)
 */
export function simpleRecords(text: string): { record: string[]; info: { lines: number } }[] | null {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (/["\uFEFF]|[^\S \n]/.test(body)) return null;
  const lines = body.split('\n');
  const spaced = body.includes(' ');
  const records: { record: string[]; info: { lines: number } }[] = [];
  let width = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    if (line.trim() === '' || records.length > MAX_CSV_ROWS) return null;
    const record = line.split(',');
    if (width === -1) width = record.length;
    else if (record.length !== width) return null;
    if (spaced) for (let j = 0; j < record.length; j++) record[j] = record[j]!.trim();
    records.push({ record, info: { lines: i + 1 } });
  }
  return records;
}

/** Largest magnitude of a money cell, USD (as for JSON amounts, so cents stay exact). */
export const MAX_AMOUNT_USD = 1e15;

/**
 * Reads a money cell: plain decimal (`-1234.5`), with thousands separators (`1,234.50`), an optional `$`,
 * or accounting negatives (`(1,234.50)`).
 * @returns the canonical decimal string, or `null` if the cell is not a number or its magnitude exceeds
 *   {@link MAX_AMOUNT_USD}
 */
export function parseAmountCell(cell: string): string | null {
  let s = cell.trim();
  let negative = false;
  if (/^\(.*\)$/.test(s)) {
    negative = true;
    s = s.slice(1, -1).trim();
  }
  s = s.replace(/^([+-]?)\$/, '$1');
  if (!/^[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$|^[+-]?\.\d+$/.test(s)) return null;
  s = s.replace(/,/g, '');
  if (negative) {
    if (/^[+-]/.test(s)) return null;
    s = `-${s}`;
  }
  // |s| > 1e15 without decimal.js: the integer digits (leading zeros dropped) are more than 16, or 16 digits
  // other than 1 followed by zeros, or exactly 1e15 with a non-zero fraction.
  const point = s.indexOf('.');
  const whole = (point === -1 ? s : s.slice(0, point)).replace(/^[+-]?0*/, '');
  if (whole.length > 16) return null;
  if (whole.length === 16 && (whole !== '1000000000000000' || /[1-9]/.test(point === -1 ? '' : s.slice(point + 1)))) return null;
  return s;
}
