/**
 * Reading and writing bundle files (docs/import.md#files): RFC 4180 CSV in UTF-8, read as a stream.
 *
 * Reading: the bytes are checked to be UTF-8 (an invalid byte is an error naming its line, never silently
 * replaced; a leading BOM is dropped), then parsed by csv-parse's stream API (quoted fields,
 * doubled quotes, fields spanning lines, CRLF or LF). The header names the columns: matched trimmed and
 * case-insensitively, after the operator's renames (`--map`); each record is handed over as its cells in the
 * file spec's column order, with the line it ends on. Nothing holds more than the parser's buffer.
 *
 * Writing: {@link csvLine} quotes a field only when it must (a comma, a quote, CR or LF) and ends lines with
 * CRLF, so the same rows always give the same bytes.
 */
import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import type { BundleFile, FileColumn } from './format.ts';

/** One problem with a bundle: where it is and which rule it breaks (docs/import.md#rules). */
export interface BundleError {
  file: string;
  /** 1-based line (the header is line 1); 0 for the file as a whole. */
  line: number;
  /** The column as the file's header names it (`-` when the error is not about one column). */
  column: string;
  rule: string;
  /** What is wrong, in words; quotes the value only for a column that is not personal. */
  message: string;
}

/** Column renames per file: `{ "positions.csv": { "Qty": "quantity" } }` (docs/import.md#mapping-columns). */
export type ColumnMap = Record<string, Record<string, string>>;

/** What the header said: for each spec column, its index in a record (−1: absent) and its name in the file. */
export interface Header {
  index: number[];
  names: string[];
  width: number;
}

const norm = (name: string) => name.trim().toLowerCase();

/**
 * Resolves a header against a file spec.
 * @returns the header, or null with the errors reported (unknown, duplicate or missing columns)
 */
export function resolveHeader(
  spec: BundleFile,
  header: readonly string[],
  map: ColumnMap,
  report: (e: BundleError) => void,
): Header | null {
  const renames = new Map(Object.entries(map[spec.file] ?? {}).map(([from, to]) => [norm(from), norm(to)]));
  const index = spec.columns.map(() => -1);
  const names = spec.columns.map((c) => c.name);
  let ok = true;
  const fail = (column: string, rule: string, message: string) => {
    ok = false;
    report({ file: spec.file, line: 1, column, rule, message });
  };
  header.forEach((raw, i) => {
    const given = norm(raw);
    const name = renames.get(given) ?? given;
    const at = spec.columns.findIndex((c) => c.name === name);
    const shown = renames.has(given) ? `${raw.trim()} → ${name}` : raw.trim();
    if (at < 0) fail(shown || `#${i + 1}`, 'unknown_column', `not a column of ${spec.file}`);
    else if (index[at] !== -1) fail(shown, 'duplicate_column', `column ${name} appears twice`);
    else {
      index[at] = i;
      names[at] = shown;
    }
  });
  spec.columns.forEach((c, k) => {
    if (index[k] === -1 && !c.optional) fail(c.name, 'missing_column', `required column ${c.name} is missing`);
  });
  return ok ? { index, names, width: header.length } : null;
}

/** Checks a `--map` file's content against the bundle specs; returns its problems in words. */
export function checkColumnMap(map: unknown, files: readonly BundleFile[]): string[] {
  if (map === null || typeof map !== 'object' || Array.isArray(map)) return ['the map must be a JSON object of file names'];
  const problems: string[] = [];
  for (const [file, renames] of Object.entries(map)) {
    const spec = files.find((f) => f.file === file);
    if (!spec) problems.push(`${file}: not a bundle file`);
    else if (renames === null || typeof renames !== 'object' || Array.isArray(renames)) problems.push(`${file}: renames must be an object`);
    else
      for (const [from, to] of Object.entries(renames)) {
        if (typeof to !== 'string' || !spec.columns.some((c: FileColumn) => c.name === norm(to)))
          problems.push(`${file}: ${from} is renamed to ${String(to)}, which is not a column of ${file}`);
      }
  }
  return problems;
}

/**
 * Checks that the bytes are UTF-8 and passes them on as they are (csv-parse decodes each field itself, so
 * decoding here too would do the work twice), holding back a character split across two chunks. Lines are
 * counted so that an invalid byte is reported where it is.
 */
class StrictUtf8 extends Transform {
  readonly #onBytes: ((n: number) => void) | undefined;
  #tail: Buffer | null = null;
  #lines = 1;
  constructor(onBytes?: (n: number) => void) {
    super();
    this.#onBytes = onBytes;
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.#onBytes?.(chunk.length);
    const buf = this.#tail ? Buffer.concat([this.#tail, chunk]) : chunk;
    // Hold back a trailing sequence its lead byte says is incomplete.
    let end = buf.length;
    let i = end - 1;
    while (i >= 0 && end - i < 4 && (buf[i]! & 0xc0) === 0x80) i--;
    if (i >= 0) {
      const lead = buf[i]!;
      const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
      if (size > end - i) end = i;
    }
    const body = end === buf.length ? buf : buf.subarray(0, end);
    this.#tail = end === buf.length ? null : Buffer.from(buf.subarray(end));
    if (!isUtf8(body)) {
      done(this.#invalid(body));
      return;
    }
    for (let k = body.indexOf(10); k >= 0; k = body.indexOf(10, k + 1)) this.#lines++;
    done(null, body);
  }
  override _flush(done: TransformCallback): void {
    done(this.#tail ? this.#invalid(this.#tail) : null);
  }
  /** The error for a chunk holding invalid UTF-8, with the line of its first bad byte. */
  #invalid(body: Buffer): Error {
    const loose = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false }).decode(body);
    const bad = Math.max(0, loose.indexOf('\uFFFD'));
    let line = this.#lines;
    for (let k = loose.indexOf('\n'); k >= 0 && k < bad; k = loose.indexOf('\n', k + 1)) line++;
    return Object.assign(new Error('invalid UTF-8'), { code: 'BUNDLE_ENCODING', line });
  }
}

/** What {@link scanFile} saw. */
export interface ScanResult {
  /** Data records handed to `visit`. */
  records: number;
  /** False when the header or the CSV syntax stopped the scan (the errors were reported). */
  complete: boolean;
}

/**
 * Streams a bundle file: resolves its header, then calls `visit` with each data record's cells in the spec's
 * column order (an absent optional column is `undefined`), synchronously as the parser yields records
 * (a `readable` loop: about a tenth faster than async iteration at millions of records). A record with the
 * wrong number of fields is reported (`field_count`) and skipped; invalid UTF-8 or broken quoting stops the
 * file (`encoding`, `csv_syntax`) after reporting it.
 * @param options.lines whether `visit` needs line numbers (csv-parse's `info`)
 * @param options.onBytes called with each chunk's size (progress)
 */
export async function scanFile(
  path: string,
  spec: BundleFile,
  map: ColumnMap,
  report: (e: BundleError) => void,
  visit: (cells: (string | undefined)[], line: number) => void,
  options: { lines?: boolean; onBytes?: (n: number) => void; onHeader?: (h: Header) => void } = {},
): Promise<ScanResult> {
  const lines = options.lines ?? true;
  let header: Header | null | undefined;
  let records = 0;
  let lastLine = 1;
  const cells: (string | undefined)[] = new Array(spec.columns.length);
  const parser = parse({ bom: true, relax_column_count: true, skip_empty_lines: true, info: lines, max_record_size: MAX_RECORD_CHARS });
  const take = (item: { record: string[]; info: { lines: number } } | string[]) => {
    const record = lines ? (item as { record: string[] }).record : (item as string[]);
    const line = lines ? (item as { info: { lines: number } }).info.lines : records + 2;
    lastLine = line;
    if (header === undefined) {
      header = resolveHeader(spec, record, map, report);
      if (header !== null) options.onHeader?.(header);
      return;
    }
    if (header === null) return;
    if (record.length !== header.width) {
      report({
        file: spec.file,
        line,
        column: '-',
        rule: 'field_count',
        message: `${record.length} fields where the header has ${header.width}`,
      });
      return;
    }
    const index = header.index;
    for (let k = 0; k < index.length; k++) cells[k] = index[k]! < 0 ? undefined : record[index[k]!];
    records++;
    visit(cells, line);
  };
  parser.on('readable', () => {
    for (let item = parser.read(); item !== null; item = parser.read()) take(item);
  });
  try {
    await pipeline(createReadStream(path, { highWaterMark: 256 * 1024 }), new StrictUtf8(options.onBytes), parser);
  } catch (err) {
    const e = err as { code?: string; line?: number; lines?: number };
    if (e.code === 'BUNDLE_ENCODING')
      report({ file: spec.file, line: e.line ?? 0, column: '-', rule: 'encoding', message: 'not valid UTF-8' });
    else if (e.code === 'CSV_QUOTE_NOT_CLOSED')
      // The parser notices at the end of the file; the quote opened in the record after the last one read.
      report({ file: spec.file, line: lastLine + 1, column: '-', rule: 'csv_syntax', message: 'a quoted field is never closed' });
    else if (typeof e.code === 'string' && e.code.startsWith('CSV_'))
      report({ file: spec.file, line: e.lines ?? 0, column: '-', rule: 'csv_syntax', message: `not RFC 4180 CSV (${e.code})` });
    else throw err;
    return { records, complete: false };
  }
  if (header === undefined) {
    report({
      file: spec.file,
      line: 1,
      column: '-',
      rule: 'missing_header',
      message: 'the file is empty: it needs at least its header line',
    });
    return { records, complete: false };
  }
  return { records, complete: header !== null };
}

/** Longest record accepted, in characters: a longer one (such as an unterminated quote) is a syntax error, not a memory hog. */
export const MAX_RECORD_CHARS = 1 << 20;

const NEEDS_QUOTES = /[",\r\n]/;

/** One CSV record, CRLF-terminated: a field is quoted (quotes doubled) only when it holds `,`, `"`, CR or LF; null is empty. */
export function csvLine(values: readonly (string | null)[]): string {
  let out = '';
  for (let i = 0; i < values.length; i++) {
    const v = values[i] ?? '';
    if (i > 0) out += ',';
    out += NEEDS_QUOTES.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
  }
  return `${out}\r\n`;
}

/**
 * The cells of a file that passed validation, record by record, in the spec's column order (a pull-based
 * read, for walking two files side by side).
 */
export async function* readCells(path: string, spec: BundleFile, map: ColumnMap): AsyncGenerator<(string | undefined)[]> {
  const parser = parse({ bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: MAX_RECORD_CHARS });
  const source = pipeline(createReadStream(path, { highWaterMark: 256 * 1024 }), parser);
  source.catch(() => {});
  let header: Header | null | undefined;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (header === undefined) {
        header = resolveHeader(spec, record, map, () => {});
        if (header === null) return;
        continue;
      }
      yield header!.index.map((i) => (i < 0 ? undefined : record[i]));
    }
    await source;
  } finally {
    parser.destroy();
  }
}
