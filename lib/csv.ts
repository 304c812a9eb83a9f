/**
 * CSV text inputs of the calculators, parsed by csv-parse (RFC 4180: quoted fields, embedded commas and
 * newlines, doubled quotes; a UTF-8 BOM and CRLF line ends are accepted). Headers match case-insensitively
 * and ignoring surrounding spaces. Errors name the field, row and column, never a cell's content.
 */
import { parse } from 'csv-parse/sync';
import { PayloadTooLargeError, ValidationError } from './errors.ts';
import { inputPointer } from './validation.ts';
import { dec } from './decimal.ts';

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
export function parseCsv(
  text: string,
  field: string,
  columns: { required: readonly string[]; optional?: readonly string[] },
): CsvRow[] {
  const pointer = inputPointer([field]);
  if (text.trim() === '') return [];
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      bom: true,
      trim: true,
      skip_empty_lines: true,
      relax_column_count: false,
      info: true,
      to: MAX_CSV_ROWS + 2,
    }) as unknown as { record: string[]; info: { lines: number } }[];
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
  return body.map(({ record, info }) => {
    const cells: Record<string, string> = {};
    for (const [name, i] of index) cells[name] = record[i] ?? '';
    return { line: info.lines, cells };
  });
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
  if (dec(s).abs().gt(MAX_AMOUNT_USD)) return null;
  return s;
}
