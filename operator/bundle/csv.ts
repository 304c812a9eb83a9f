/**
 * Reading and writing bundle files (docs/import.md#files): RFC 4180 CSV in UTF-8, read as a stream.
 *
 * Reading: the bytes are checked to be UTF-8 (an invalid byte is an error naming its line and column, never
 * silently replaced; a leading BOM is dropped), then parsed by csv-parse's stream API (quoted fields,
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

/** An invalid UTF-8 sequence: its line, its byte offset in that line (1-based) and its first byte. */
export interface BadByte {
  line: number;
  byteInLine: number;
  byte: number;
}

/** The first byte and the second's range of each valid UTF-8 lead byte (RFC 3629, table 3-7 of Unicode). */
function leadOf(b: number): [size: number, lo: number, hi: number] {
  if (b >= 0xc2 && b <= 0xdf) return [2, 0x80, 0xbf];
  if (b === 0xe0) return [3, 0xa0, 0xbf];
  if (b === 0xed) return [3, 0x80, 0x9f];
  if (b >= 0xe1 && b <= 0xef) return [3, 0x80, 0xbf];
  if (b === 0xf0) return [4, 0x90, 0xbf];
  if (b === 0xf4) return [4, 0x80, 0x8f];
  if (b >= 0xf1 && b <= 0xf3) return [4, 0x80, 0xbf];
  return [0, 0, 0];
}

/**
 * The UTF-8 sequence at `i`: its length when valid (1 to 4); else minus the length of its maximal ill-formed
 * part (the lead and the continuation bytes that fit it, at least 1), which is one bad sequence.
 */
function sequenceAt(buf: Buffer, i: number): number {
  const b = buf[i]!;
  if (b < 0x80) return 1;
  const [size, lo, hi] = leadOf(b);
  if (size === 0) return -1;
  let k = 1;
  for (; k < size && i + k < buf.length; k++) {
    const c = buf[i + k]!;
    if (k === 1 ? c < lo || c > hi : (c & 0xc0) !== 0x80) break;
  }
  return k === size ? size : -k;
}

const REPLACEMENT = Buffer.from('\uFFFD', 'utf8');

/** Bad bytes noted per file, at most: past it they are only counted (a binary file has millions). */
const MAX_BAD_BYTES = 1_000;

/**
 * Checks that the bytes are UTF-8 and passes them on (csv-parse decodes each field itself, so decoding here
 * too would do the work twice), holding back a character split across two chunks. Lines and their byte
 * offsets are counted so that an invalid byte is noted where it is ({@link bad}); it is passed on as U+FFFD
 * so that the rest of the file is still read and checked, and the caller reports it.
 */
class StrictUtf8 extends Transform {
  readonly #onBytes: ((n: number) => void) | undefined;
  #tail: Buffer | null = null;
  #line = 1;
  /** Bytes of the current line passed before the chunk being read. */
  #lineBytes = 0;
  /** The invalid sequences not yet taken by {@link takeBad}, oldest first. */
  readonly bad: BadByte[] = [];
  /** Every invalid sequence seen, noted or not. */
  badCount = 0;
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
    done(null, this.#pass(body));
  }
  override _flush(done: TransformCallback): void {
    done(null, this.#tail ? this.#pass(this.#tail) : undefined);
  }
  /** `body` as it is when valid (the common case, checked at native speed); else with each bad sequence noted and replaced. */
  #pass(body: Buffer): Buffer {
    const valid = isUtf8(body);
    const parts: Buffer[] = [];
    let from = 0;
    let lineStart = -this.#lineBytes;
    for (let i = 0; i < body.length; ) {
      const b = body[i]!;
      if (b === 10) {
        this.#line++;
        lineStart = i + 1;
        i++;
        continue;
      }
      if (valid || b < 0x80) {
        if (valid) {
          // Count lines only: jump to the next line feed.
          const next = body.indexOf(10, i);
          if (next < 0) break;
          i = next;
        } else i++;
        continue;
      }
      const size = sequenceAt(body, i);
      if (size > 0) {
        i += size;
        continue;
      }
      this.badCount++;
      if (this.bad.length < MAX_BAD_BYTES) this.bad.push({ line: this.#line, byteInLine: i - lineStart + 1, byte: b });
      parts.push(body.subarray(from, i), REPLACEMENT);
      i -= size;
      from = i;
    }
    this.#lineBytes = body.length - lineStart;
    if (from === 0) return body;
    parts.push(body.subarray(from));
    return Buffer.concat(parts);
  }
  /** The noted bad sequences on lines up to `line`, taken off the list. */
  takeBad(line: number): BadByte[] {
    let n = 0;
    while (n < this.bad.length && this.bad[n]!.line <= line) n++;
    return this.bad.splice(0, n);
  }
}

/** The error for a bad byte: where it is (line, column, byte in the line), never the cell's value. */
function encodingError(file: string, at: BadByte, column: string): BundleError {
  const hex = at.byte.toString(16).toUpperCase().padStart(2, '0');
  return { file, line: at.line, column, rule: 'encoding', message: `not valid UTF-8: byte 0x${hex} at byte ${at.byteInLine} of the line` };
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
 * wrong number of fields is reported (`field_count`) and skipped. An invalid UTF-8 byte is reported
 * (`encoding`) at its line and column, with its offset in the line, and the file is read on: the record
 * holding it is still checked (the byte read as U+FFFD), so that only real errors follow. Broken quoting
 * stops the file (`csv_syntax`) after reporting it.
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
  const utf8 = new StrictUtf8(options.onBytes);
  /** Reports the bad bytes up to `line`, each at the column of the cell holding it (its n-th U+FFFD of the record). */
  const badBytes = (line: number, record: readonly string[] | null) => {
    const bad = utf8.takeBad(line);
    const holders: number[] = [];
    if (record && header)
      for (let j = 0; j < record.length && holders.length < bad.length; j++)
        for (let p = record[j]!.indexOf('\uFFFD'); p >= 0 && holders.length < bad.length; p = record[j]!.indexOf('\uFFFD', p + 1))
          holders.push(j);
    bad.forEach((at, n) => {
      const k = n < holders.length ? header!.index.indexOf(holders[n]!) : -1;
      report(encodingError(spec.file, at, k >= 0 ? header!.names[k]! : '-'));
    });
  };
  const parser = parse({ bom: true, relax_column_count: true, skip_empty_lines: true, info: lines, max_record_size: MAX_RECORD_CHARS });
  const take = (item: { record: string[]; info: { lines: number } } | string[]) => {
    const record = lines ? (item as { record: string[] }).record : (item as string[]);
    const line = lines ? (item as { info: { lines: number } }).info.lines : records + 2;
    lastLine = line;
    if (utf8.bad.length > 0) badBytes(line, header ? record : null);
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
    await pipeline(createReadStream(path, { highWaterMark: 256 * 1024 }), utf8, parser);
  } catch (err) {
    const e = err as { code?: string; line?: number; lines?: number };
    badBytes(Number.POSITIVE_INFINITY, null);
    if (e.code === 'CSV_QUOTE_NOT_CLOSED')
      // The parser notices at the end of the file; the quote opened in the record after the last one read.
      report({ file: spec.file, line: lastLine + 1, column: '-', rule: 'csv_syntax', message: 'a quoted field is never closed' });
    else if (typeof e.code === 'string' && e.code.startsWith('CSV_'))
      report({ file: spec.file, line: e.lines ?? 0, column: '-', rule: 'csv_syntax', message: `not RFC 4180 CSV (${e.code})` });
    else throw err;
    return { records, complete: false };
  }
  // Bad bytes after the last record (on blank lines), and those past the noted ones.
  badBytes(Number.POSITIVE_INFINITY, null);
  const unnoted = utf8.badCount - Math.min(utf8.badCount, MAX_BAD_BYTES);
  if (unnoted > 0)
    report({ file: spec.file, line: 0, column: '-', rule: 'encoding', message: `${unnoted} more bytes that are not valid UTF-8` });
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
