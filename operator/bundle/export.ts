/**
 * `npm run fund -- export`: writes a fund as a bundle (docs/import.md#export), from the embedded store (either
 * synthetic fund) or from the database. Both write the same bytes for the same rows: every file in its key
 * order (docs/import.md#order), values as stored (decimal text with its scale, dates `YYYY-MM-DD`, NULL
 * empty), CRLF line ends. So a fund exported, imported and exported again gives the same files.
 *
 * `from`/`through` cut a slice by date: the runs, positions, prices, journal lines and capital accounts
 * dated in it; expenses accrued in it or, with `from`, settled in it; with `through`, the investors who have
 * a capital account by then, and each expense as it stood on that date (one settled later is still accrued).
 * The small files (fund, share classes, fee terms, accounts, investors) are always whole: a bundle carries
 * its own reference data. `--through` then `--from` the next day give the two bundles of an append.
 *
 * The files hold investors' personal data: each is written with mode 0600 in a folder of mode 0700
 * ({@link privateFolder}). Text cells a spreadsheet would run as formulas are written as they are (the
 * round trip) and counted per file ({@link ExportReport}`.formulas`), for the CLI to warn.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, createWriteStream, existsSync, fchmodSync, mkdirSync, openSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { dirname, join, relative, resolve } from 'node:path';
import type { Client } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { DEMO_FUND, SAMPLE_FUND, simulateFund } from '../../lib/fund/synthetic.ts';
import { BUNDLE_FILES, type BundleFile } from './format.ts';
import { csvLine } from './csv.ts';
import { type FormulaCells, FormulaTally, looksLikeFormula } from './formulas.ts';

/** A date slice of the fund (inclusive bounds; either may be absent). */
export interface Slice {
  from?: string;
  through?: string;
}

/** What an export wrote: rows per file, and the files with text cells a spreadsheet would run as formulas. */
export interface ExportReport {
  rows: Record<string, number>;
  formulas: FormulaCells[];
}

/**
 * Why a bundle may not be written to `dir`: it lies inside a git work tree and git does not ignore it, so a
 * `git add -A` would commit investors' personal data. Asks git itself (`rev-parse`, `check-ignore`).
 * @returns the refusal in words, or undefined when `dir` is outside every work tree (or git is not
 *   installed) or git ignores it
 */
export function workTreeProblem(dir: string): string | undefined {
  const target = resolve(dir);
  let probe = target;
  while (!existsSync(probe)) probe = dirname(probe);
  const git = (cwd: string, args: string[]) =>
    spawnSync('git', ['-C', cwd, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const top = git(probe, ['rev-parse', '--show-toplevel']);
  if (top.status !== 0) return undefined;
  const root = top.stdout.trim();
  const inside = relative(root, join(realpathSync(probe), relative(probe, target), BUNDLE_FILES[0]!.file));
  if (git(root, ['check-ignore', '-q', '--', inside]).status === 0) return undefined;
  return `${dir} is inside the git work tree ${root}, and git does not ignore it: a bundle holds investors' personal data, which \`git add\` would commit. Export to a folder outside the work tree (such as ~/fund-bundles/), or add the folder to .gitignore first.`;
}

/**
 * Makes `dir` the bundle's private folder, mode 0700 (its missing parents too). A folder that exists is
 * narrowed to 0700 when it is empty or holds only bundle files (a previous export); otherwise, if others
 * may read it, the export is refused rather than a shared folder's mode changed.
 * @throws {Error} when `dir` is not a folder, or is one others may read that holds other files
 */
export function privateFolder(dir: string): void {
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700); // the mode mkdir gives is narrowed by the umask, never widened: set it exactly
    return;
  }
  const st = statSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a folder.`);
  if ((st.mode & 0o077) === 0) return;
  const names = new Set(BUNDLE_FILES.map((f) => f.file));
  if (readdirSync(dir).some((f) => !names.has(f)))
    throw new Error(
      `${dir} may be read by other users and holds other files: export into a new folder (it is made with mode 0700), or chmod 700 ${dir} first.`,
    );
  chmodSync(dir, 0o700);
}

/** The table files (the administrator's positions are never exported: they are the administrator's). */
const TABLE_FILES = BUNDLE_FILES.filter((f) => f.table !== null);

/**
 * Writes a bundle file's lines, waiting when the disk is behind: mode 0600 (an existing file is narrowed
 * too), counting its physical lines so that a formula-like cell is noted at the line it is on.
 */
class LineWriter {
  readonly #out;
  readonly #spec: BundleFile;
  readonly #tally: FormulaTally;
  /** The text columns' indexes (only text can be a formula; a negative number is a number). */
  readonly #text: number[];
  #buffer = '';
  /** The line the next record starts on. */
  #line = 1;
  rows = 0;
  constructor(dir: string, spec: BundleFile, tally: FormulaTally) {
    const fd = openSync(join(dir, spec.file), 'w', 0o600);
    fchmodSync(fd, 0o600);
    this.#out = createWriteStream('', { fd });
    this.#spec = spec;
    this.#tally = tally;
    this.#text = spec.columns.flatMap((c, k) => (c.type === 'text' ? [k] : []));
  }
  /** Writes one record (the header included), noting its formula-like text cells. */
  async record(values: readonly (string | null)[]): Promise<void> {
    for (const k of this.#text) {
      const v = values[k];
      if (v && looksLikeFormula(v)) this.#tally.note(this.#spec.file, this.#line, this.#spec.columns[k]!.name);
    }
    const line = csvLine(values);
    for (let i = line.indexOf('\n'); i >= 0; i = line.indexOf('\n', i + 1)) this.#line++;
    await this.#write(line);
  }
  async #write(line: string): Promise<void> {
    this.#buffer += line;
    if (this.#buffer.length >= 1 << 16) await this.#flush();
  }
  async #flush(): Promise<void> {
    const chunk = this.#buffer;
    this.#buffer = '';
    if (!this.#out.write(chunk)) await once(this.#out, 'drain');
  }
  async close(): Promise<void> {
    await this.#flush();
    this.#out.end();
    await once(this.#out, 'finish');
  }
}

/** A row field as the file writes it. */
function cellOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : String(value);
}

const inSlice = (date: string, slice: Slice) => (!slice.from || date >= slice.from) && (!slice.through || date <= slice.through);

/** Byte-order comparison of keys (the "C" collation the database sorts identifiers in, for ASCII text). */
function byKeys<T>(...keys: ((row: T) => string)[]): (a: T, b: T) => number {
  return (a, b) => {
    for (const key of keys) {
      const x = key(a);
      const y = key(b);
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
}

/**
 * Exports one of the embedded synthetic funds (`sample-fund`, `demo-fund`).
 * @throws {Error} for any other fund id
 */
export async function exportEmbedded(fundId: string, dir: string, slice: Slice = {}): Promise<ExportReport> {
  const spec = [SAMPLE_FUND, DEMO_FUND].find((s) => s.fundId === fundId);
  if (!spec) throw new Error(`The embedded store holds ${SAMPLE_FUND.fundId} and ${DEMO_FUND.fundId}, not ${fundId}.`);
  const data = simulateFund(spec).dataset();
  const lineNumbers = new Map<string, number>();
  const ledger = data.ledger.map((line) => {
    const lineNo = (lineNumbers.get(line.entryId) ?? 0) + 1;
    lineNumbers.set(line.entryId, lineNo);
    return { ...line, lineNo };
  });
  const joined = new Set(data.capital.filter((c) => !slice.through || c.navDate <= slice.through).map((c) => c.investorId));
  const expenses = data.expenses
    .filter(
      (e) =>
        (!slice.through || e.date <= slice.through) &&
        (!slice.from || e.date >= slice.from || (e.paidDate !== null && e.paidDate >= slice.from)),
    )
    .map((e) =>
      slice.through && e.paidDate !== null && e.paidDate > slice.through ? { ...e, status: 'accrued' as const, paidDate: null } : e,
    );
  const rows: Record<string, readonly object[]> = {
    funds: [data.fund],
    share_classes: [...data.shareClasses].sort(byKeys((r) => r.shareClassId)),
    fee_terms: [...data.shareClasses].sort(byKeys((r) => r.shareClassId)),
    nav_runs: data.runs.filter((r) => inSlice(r.navDate, slice)).sort(byKeys((r) => r.navDate)),
    positions: data.positions
      .filter((r) => inSlice(r.navDate, slice))
      .sort(
        byKeys(
          (r) => r.navDate,
          (r) => r.book,
          (r) => r.asset,
          (r) => r.venue,
        ),
      ),
    prices: data.prices
      .filter((r) => inSlice(r.priceDate, slice))
      .sort(
        byKeys(
          (r) => r.priceDate,
          (r) => r.asset,
        ),
      ),
    accounts: [...data.accounts].sort(byKeys((r) => r.code)),
    ledger_lines: ledger.filter((r) => inSlice(r.entryDate, slice)),
    investors: data.investors.filter((r) => !slice.through || joined.has(r.investorId)).sort(byKeys((r) => r.investorId)),
    capital_accounts: data.capital
      .filter((r) => inSlice(r.navDate, slice))
      .sort(
        byKeys(
          (r) => r.navDate,
          (r) => r.investorId,
        ),
      ),
    expenses: expenses.sort(
      byKeys(
        (r) => r.date,
        (r) => r.id,
      ),
    ),
  };
  privateFolder(dir);
  const tally = new FormulaTally();
  const written: Record<string, number> = {};
  for (const spec of TABLE_FILES) {
    const out = new LineWriter(dir, spec, tally);
    await out.record(spec.columns.map((c) => c.name));
    for (const row of rows[spec.table!.table]!) {
      const r = row as Record<string, unknown>;
      await out.record(spec.columns.map((c) => cellOf(r[c.field])));
    }
    written[spec.file] = rows[spec.table!.table]!.length;
    await out.close();
  }
  return { rows: written, formulas: tally.list() };
}

/** The select expression of a column as its canonical text (what the file holds). */
export function textOf(name: string, type: string, alias = ''): string {
  const ref = `${alias}${name}`;
  return type === 'date' ? `to_char(${ref}, 'YYYY-MM-DD')` : type === 'text' ? ref : `${ref}::text`;
}

/** ORDER BY of each table in the export (its key, dated files by date first). */
const ORDER: Record<string, string> = {
  funds: 'fund_id',
  share_classes: 'share_class_id',
  fee_terms: 'share_class_id',
  nav_runs: 'nav_date',
  positions: 'nav_date, book, asset, venue',
  prices: 'price_date, asset',
  accounts: 'code',
  ledger_lines: 'entry_date, entry_id, line_no',
  investors: 'investor_id',
  capital_accounts: 'nav_date, investor_id',
  expenses: 'expense_date, expense_id',
};

/** The date column that slices each dated table. */
const SLICED_BY: Record<string, string> = {
  nav_runs: 'nav_date',
  positions: 'nav_date',
  prices: 'price_date',
  ledger_lines: 'entry_date',
  capital_accounts: 'nav_date',
};

/** Unescapes one field of COPY's text format (`\N` is NULL). */
function copyField(field: string): string | null {
  if (field === '\\N') return null;
  if (!field.includes('\\')) return field;
  return field.replace(/\\(.)/g, (_, c: string) =>
    c === 't' ? '\t' : c === 'n' ? '\n' : c === 'r' ? '\r' : c === 'b' ? '\b' : c === 'f' ? '\f' : c === 'v' ? '\v' : c,
  );
}

/**
 * Exports a fund from the database, one `COPY (SELECT ...) TO STDOUT` per file, streamed.
 * @returns rows per file; null when the database holds no such fund
 */
export async function exportDatabase(client: Client, fundId: string, dir: string, slice: Slice = {}): Promise<ExportReport | null> {
  const found = await client.query('SELECT 1 FROM funds WHERE fund_id = $1', [fundId]);
  if (found.rowCount === 0) return null;
  privateFolder(dir);
  const lit = (s: string) => client.escapeLiteral(s);
  const tally = new FormulaTally();
  const written: Record<string, number> = {};
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    for (const spec of TABLE_FILES) {
      const table = spec.table!.table;
      const where = [`fund_id = ${lit(fundId)}`];
      const dated = SLICED_BY[table];
      if (dated && slice.from) where.push(`${dated} >= ${lit(slice.from)}::date`);
      if (dated && slice.through) where.push(`${dated} <= ${lit(slice.through)}::date`);
      let columns = spec.columns.map((c) => textOf(c.name, c.type));
      if (table === 'investors' && slice.through)
        where.push(
          `EXISTS (SELECT 1 FROM capital_accounts c WHERE c.fund_id = investors.fund_id AND c.investor_id = investors.investor_id AND c.nav_date <= ${lit(slice.through)}::date)`,
        );
      if (table === 'expenses') {
        if (slice.through) where.push(`expense_date <= ${lit(slice.through)}::date`);
        if (slice.from) where.push(`(expense_date >= ${lit(slice.from)}::date OR paid_date >= ${lit(slice.from)}::date)`);
        if (slice.through) {
          const later = `paid_date > ${lit(slice.through)}::date`;
          columns = spec.columns.map((c) =>
            c.name === 'status'
              ? `CASE WHEN ${later} THEN 'accrued' ELSE status END`
              : c.name === 'paid_date'
                ? `CASE WHEN ${later} THEN NULL ELSE ${textOf(c.name, c.type)} END`
                : textOf(c.name, c.type),
          );
        }
      }
      const sql = `COPY (SELECT ${columns.join(', ')} FROM ${table} WHERE ${where.join(' AND ')} ORDER BY ${ORDER[table]}) TO STDOUT`;
      const out = new LineWriter(dir, spec, tally);
      await out.record(spec.columns.map((c) => c.name));
      const stream = client.query(copyTo(sql));
      let rest = '';
      stream.setEncoding('utf8');
      for await (const chunk of stream as AsyncIterable<string>) {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop()!;
        for (const line of lines) {
          await out.record(line.split('\t').map(copyField));
          out.rows++;
        }
      }
      written[spec.file] = out.rows;
      await out.close();
    }
  } finally {
    await client.query('ROLLBACK');
  }
  return { rows: written, formulas: tally.list() };
}
