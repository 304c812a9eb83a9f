/**
 * The import's spool: while validation reads the bulk files, each valid row is written once, as a line of
 * COPY's text format with the fund id in front, to a temporary file per table, so the write phase streams
 * those files into `COPY ... FROM STDIN` as they are, without reading the bundle a second time.
 *
 * Rows dated after the latest stored run (every row, for a first load or `--replace`) go to the table's
 * main file; rows dated up to it (an append's history, written only if restated) go to a second file, each
 * line behind its date, so that the restated dates can be picked out. The folder is removed when the
 * import ends, however it ends (`close`, and on process exit).
 */
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import type { Cell } from './validate.ts';

/** Escapes a value for COPY's text format (NULL is `\N`). */
export function copyValue(v: Cell): string {
  if (v === null) return '\\N';
  if (!/[\\\t\n\r]/.test(v)) return v;
  return v.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

const CHUNK = 1 << 20;

class SpoolFile {
  readonly path: string;
  readonly #fd: number;
  #buffer = '';
  rows = 0;
  bytes = 0;
  constructor(path: string) {
    this.path = path;
    this.#fd = openSync(path, 'w');
  }
  add(line: string): void {
    this.#buffer += line;
    this.rows++;
    if (this.#buffer.length >= CHUNK) this.flush();
  }
  flush(): void {
    if (this.#buffer) this.bytes += writeSync(this.#fd, this.#buffer);
    this.#buffer = '';
  }
  close(): void {
    this.flush();
    closeSync(this.#fd);
  }
}

const live = new Set<string>();
process.on('exit', () => {
  for (const dir of live) rmSync(dir, { recursive: true, force: true });
});

/** The spool of one import. */
export class Spool {
  readonly #dir = mkdtempSync(join(tmpdir(), 'fund-edge-import-'));
  readonly #prefix: string;
  readonly #after: string | null;
  readonly #files = new Map<string, { main: SpoolFile; history: SpoolFile | null }>();

  /**
   * @param fundId written in front of every line (the `fund_id` column)
   * @param storedThrough the latest stored run (append): rows dated up to it go to the history file
   */
  constructor(fundId: string, storedThrough: string | null) {
    live.add(this.#dir);
    this.#prefix = `${copyValue(fundId)}\t`;
    this.#after = storedThrough;
  }

  /** Adds a valid row of `table` (cells in the file's column order). */
  add(table: string, date: string, cells: readonly Cell[]): void {
    let f = this.#files.get(table);
    if (!f) {
      f = { main: new SpoolFile(join(this.#dir, `${table}.copy`)), history: null };
      this.#files.set(table, f);
    }
    let line = this.#prefix;
    for (let k = 0; k < cells.length; k++) line += k === 0 ? copyValue(cells[k]!) : `\t${copyValue(cells[k]!)}`;
    if (this.#after !== null && date <= this.#after) {
      f.history ??= new SpoolFile(join(this.#dir, `${table}.history`));
      f.history.add(`${date}\t${line}\n`);
    } else f.main.add(`${line}\n`);
  }

  /** Finishes writing (call once validation is done). */
  seal(): void {
    for (const f of this.#files.values()) {
      f.main.close();
      f.history?.close();
    }
  }

  /** Rows spooled for `table` after the stored runs. */
  rows(table: string): number {
    return this.#files.get(table)?.main.rows ?? 0;
  }

  /**
   * The COPY text of `table`: its new rows and, from its history, the rows of `restated` dates.
   * @returns readable streams, in order (none when the table has nothing to write)
   */
  streams(table: string, restated: ReadonlySet<string>): { streams: AsyncIterable<string | Buffer>[]; rows(): number } {
    const f = this.#files.get(table);
    const streams: AsyncIterable<string | Buffer>[] = [];
    if (!f) return { streams, rows: () => 0 };
    if (f.main.rows > 0) streams.push(createReadStream(f.main.path, { highWaterMark: CHUNK }));
    let dated: DatedLines | null = null;
    if (f.history && restated.size > 0) {
      dated = new DatedLines(restated);
      streams.push(createReadStream(f.history.path, { highWaterMark: CHUNK, encoding: 'utf8' }).pipe(dated));
    }
    return { streams, rows: () => f.main.rows + (dated?.kept ?? 0) };
  }

  /** Bytes of the new rows spooled for `table` (progress). */
  bytes(table: string): number {
    return this.#files.get(table)?.main.bytes ?? 0;
  }

  /** Removes the spool. */
  close(): void {
    rmSync(this.#dir, { recursive: true, force: true });
    live.delete(this.#dir);
  }
}

/** Keeps the lines `date\tline` whose date is wanted, without the date. */
class DatedLines extends Transform {
  #rest = '';
  kept = 0;
  readonly #wanted: ReadonlySet<string>;
  constructor(wanted: ReadonlySet<string>) {
    super({ decodeStrings: false, encoding: 'utf8' });
    this.#wanted = wanted;
  }
  override _transform(chunk: Buffer | string, _enc: BufferEncoding, done: TransformCallback): void {
    const lines = (this.#rest + chunk.toString()).split('\n');
    this.#rest = lines.pop()!;
    let out = '';
    for (const line of lines) {
      const tab = line.indexOf('\t');
      if (this.#wanted.has(line.slice(0, tab))) {
        out += `${line.slice(tab + 1)}\n`;
        this.kept++;
      }
    }
    done(null, out);
  }
  override _flush(done: TransformCallback): void {
    done(null);
  }
}
