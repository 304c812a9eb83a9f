/**
 * `npm run fund` against a real server (test/support/database.ts): the bundle's keys against the migrated
 * schema; the round trip (embedded sample-fund → export → import --replace → export gives the same bytes;
 * the endpoint parity through files is in test/db/postgres-store.test.ts); append (the last 30 runs onto
 * the first 390 equal the whole; the same bundle twice is a no-op; a settlement is not a restatement); a
 * restatement refused, then accepted, listed and round-tripped (export → import --replace → export); every
 * validation rule on a broken bundle, asserting file, line, column and rule and that nothing was written; personal values never in an error; `--map`; the
 * administrator's position breaks; the CLI's dry run and JSON report; and one transaction per import:
 * SIGINT, a dropped connection and a constraint the validation does not know, each midway through a real
 * import (held at its last table by a lock), leave the database exactly as it was.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { migrate } from '../../operator/db/migrate.ts';
import { callFundTool } from '../../lib/fund/definition.ts';
import { csvLine } from '../../operator/bundle/csv.ts';
import { exportDatabase, exportEmbedded } from '../../operator/bundle/export.ts';
import { BUNDLE_FILES, KEYS, personalColumns } from '../../operator/bundle/format.ts';
import { connectPg, importBundle, type ImportOptions } from '../../operator/bundle/load.ts';
import { positionBreaks } from '../../operator/bundle/report.ts';
import { embeddedStore } from '../../lib/fund/embedded-store.ts';
import { postgresStore } from '../../lib/fund/postgres-store.ts';
import { guardedStore } from '../../lib/fund/store.ts';
import { SAMPLE_FUND } from '../../lib/fund/synthetic.ts';
import { DERIVED_TABLES } from '../../lib/fund/tables.ts';
import { loadMigrations } from '../../scripts/db.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { FUND_TOOLS } from '../../lib/registry.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const FUND = SAMPLE_FUND.fundId;
const work = mkdtempSync(join(tmpdir(), 'fund-edge-import-'));
const WHOLE = join(work, 'whole');
let database: TestDatabase;
let client: pg.Client;
/** Run dates of the sample fund, oldest first. */
let dates: string[];

beforeAll(async () => {
  database = await createTestDatabase();
  const db = database.open();
  try {
    await migrate(db, loadMigrations());
  } finally {
    await db.release();
  }
  if (database.kind !== 'postgres') return; // see the beforeEach below
  client = await connectPg(database.url);
  await exportEmbedded(FUND, WHOLE);
  dates = rowsOf(WHOLE, 'nav_runs.csv').map((r) => r[0]!);
}, 120_000);

// The import streams with COPY FROM STDIN and these tests hold several sessions at once: both need
// PostgreSQL itself (the embedded fallback's socket server supports neither).
beforeEach((ctx) => {
  if (database.kind !== 'postgres') ctx.skip();
});

afterAll(async () => {
  await client?.end();
  await database?.dispose();
  rmSync(work, { recursive: true, force: true });
});

/** A file's data rows (header dropped). */
function rowsOf(dir: string, file: string): string[][] {
  return (parse(readFileSync(join(dir, file)), { bom: true }) as string[][]).slice(1);
}

/** Rewrites a file through a function of its records (header included). */
function edit(dir: string, file: string, change: (records: string[][]) => void): void {
  const records = parse(readFileSync(join(dir, file)), { bom: true, relax_column_count: true }) as string[][];
  change(records);
  writeFileSync(join(dir, file), records.map((r) => csvLine(r)).join(''));
}

/** Every file of two bundles, byte for byte. */
function sameFiles(a: string, b: string): void {
  expect(readdirSync(b).sort()).toEqual(readdirSync(a).sort());
  for (const f of readdirSync(a)) expect(readFileSync(join(b, f)).equals(readFileSync(join(a, f))), f).toBe(true);
}

/** Every row of every fund table, as text: equal before and after means nothing was written. */
async function fingerprint(): Promise<string> {
  const parts: string[] = [];
  for (const f of BUNDLE_FILES) {
    if (!f.table) continue;
    const t = f.table.table;
    const res = await client.query(
      `SELECT count(*)::int AS n, md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS h FROM ${t} x`,
    );
    parts.push(`${t}:${res.rows[0].n}:${res.rows[0].h}`);
  }
  return parts.join(' ');
}

/**
 * The derived sums (db/migrations/0002_derived_data.sql) as stored, against the same sums made from scratch
 * from the fund's rows: the rows (as text, scale included) that one side has and the other lacks.
 */
async function derivedMismatches(): Promise<{ ledger: number; positions: number; closes: number }> {
  const res = await client.query(
    `WITH lb AS (SELECT account_code, entry_date, debit::text, credit::text FROM ledger_balances WHERE fund_id = $1),
     lf AS (SELECT account_code, entry_date, (SUM(SUM(debit)) OVER w)::text, (SUM(SUM(credit)) OVER w)::text FROM ledger_lines
            WHERE fund_id = $1 GROUP BY account_code, entry_date WINDOW w AS (PARTITION BY account_code ORDER BY entry_date)),
     pb AS (SELECT nav_date, asset_class, negative, market_value::text FROM position_sums WHERE fund_id = $1),
     pf AS (SELECT nav_date, asset_class, market_value < 0, SUM(market_value)::text FROM positions
            WHERE fund_id = $1 AND book = 'live' GROUP BY 1, 2, 3),
     ab AS (SELECT asset, dates, closes FROM asset_closes WHERE fund_id = $1),
     af AS (SELECT asset, array_agg(price_date ORDER BY price_date), array_agg(price::float8 ORDER BY price_date) FROM prices
            WHERE fund_id = $1 GROUP BY asset)
     SELECT (SELECT count(*)::int FROM ((TABLE lb EXCEPT TABLE lf) UNION ALL (TABLE lf EXCEPT TABLE lb)) x) AS ledger,
            (SELECT count(*)::int FROM ((TABLE pb EXCEPT TABLE pf) UNION ALL (TABLE pf EXCEPT TABLE pb)) x) AS positions,
            (SELECT count(*)::int FROM ((TABLE ab EXCEPT TABLE af) UNION ALL (TABLE af EXCEPT TABLE ab)) x) AS closes`,
    [FUND],
  );
  return res.rows[0];
}

const run = (dir: string, options: Partial<ImportOptions> = {}) =>
  importBundle({ dir, fundId: FUND, mode: 'append', allowRestatement: false, dryRun: false, url: database.url, ...options });

const bundle = (name: string, slice: { from?: string; through?: string } = {}) => {
  const dir = join(work, name);
  return exportEmbedded(FUND, dir, slice).then(() => dir);
};

/** Tool answers for the sample fund from a store (the parity test's default arguments). */
async function answers(store: ReturnType<typeof guardedStore>): Promise<string[]> {
  const out: string[] = [];
  for (const def of FUND_TOOLS)
    out.push(await callFundTool(def, { store, fundId: FUND }, {}, def.tool === 'get_pnl_attribution' ? { date: '2026-10-20' } : {}));
  return out;
}
async function databaseAnswers(): Promise<string[]> {
  const db = database.open();
  try {
    return await answers(guardedStore(postgresStore(db)));
  } finally {
    await db.release();
  }
}

describe('the bundle format', () => {
  // The derived tables (written by fund_derive(), never from a file) have no file.
  it('keys each file by its table primary key', async () => {
    const res = await client.query(
      `
      SELECT c.relname AS t, array_agg(a.attname::text ORDER BY array_position(i.indkey::int2[], a.attnum)) AS cols
      FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY(i.indkey)
      WHERE i.indisprimary AND c.relnamespace = 'public'::regnamespace AND c.relname <> 'schema_migrations'
        AND c.relname <> ALL($1::text[]) GROUP BY 1`,
      [[...DERIVED_TABLES.map((t) => t.table), 'asset_closes', 'identity_sets', 'var_moments']],
    );
    const primary = Object.fromEntries(
      res.rows.map((r: { t: string; cols: string[] }) => [r.t, r.cols.filter((c) => c !== 'fund_id' || r.t === 'funds')]),
    );
    expect(primary).toEqual(KEYS);
  });

  it('marks the investors identity, ledger memos and expense descriptions as personal', () => {
    expect(personalColumns().sort()).toEqual(
      [
        'capital_accounts.investor_id',
        'expenses.description',
        'investors.bank_account',
        'investors.email',
        'investors.investor_id',
        'investors.legal_name',
        'investors.tax_id',
        'ledger_lines.memo',
      ].sort(),
    );
  });
});

describe('round trip and append', () => {
  it('export → import --replace → export gives the same files, and re-importing is a no-op', async () => {
    const result = await run(WHOLE, { mode: 'replace' });
    expect(result.outcome).toBe('imported');
    expect(result.newRuns).toHaveLength(dates.length);
    expect(await derivedMismatches()).toEqual({ ledger: 0, positions: 0, closes: 0 });
    const again = join(work, 'again');
    await exportDatabase(client, FUND, again);
    sameFiles(WHOLE, again);
    expect((await run(WHOLE)).outcome).toBe('no-op');
  });

  it('the last 30 runs appended onto the first 390 give the answers of the whole, and the same bundle twice is a no-op', async () => {
    const cut = dates[dates.length - 31]!;
    const first = await bundle('first', { through: cut });
    const last = await bundle('last', { from: dates[dates.length - 30]! });
    expect(rowsOf(last, 'nav_runs.csv')).toHaveLength(30);
    await client.query('DELETE FROM funds');
    expect((await run(first)).outcome).toBe('imported');
    // The first bundle shows expenses paid later as accrued; the second settles them (not a restatement).
    const appended = await run(last);
    expect(appended.outcome).toBe('imported');
    expect(appended.newRuns).toHaveLength(30);
    expect(appended.restatements).toEqual([]);
    expect(appended.settledExpenses).toBeGreaterThan(0);
    // The derived sums of the appended dates continue the stored ones exactly.
    expect(await derivedMismatches()).toEqual({ ledger: 0, positions: 0, closes: 0 });
    expect(await databaseAnswers()).toEqual(await answers(guardedStore(embeddedStore([SAMPLE_FUND]))));
    const before = await fingerprint();
    const twice = await run(last);
    expect(twice.outcome).toBe('no-op');
    expect(await fingerprint()).toBe(before);
    const exported = join(work, 'appended');
    await exportDatabase(client, FUND, exported);
    sameFiles(WHOLE, exported);
  });

  it('refuses a restated run, then with --allow-restatement lists it with old and new figures and stores it', async () => {
    const restated = join(work, 'restated');
    cpSync(join(work, 'last'), restated, { recursive: true });
    const date = dates[dates.length - 5]!;
    let oldAdmin = '';
    edit(restated, 'nav_runs.csv', (records) => {
      const r = records.find((x) => x[0] === date)!;
      oldAdmin = r[3]!;
      r[3] = (Number(r[3]) + 100_000).toFixed(2);
      r[4] = ''; // recomputed: now a break
    });
    edit(restated, 'positions.csv', (records) => {
      const r = records.find((x) => x[0] === date && x[1] === 'USD')!;
      r[6] = (Number(r[6]) + 1).toFixed(2);
      r[8] = (Number(r[8]) + 1).toFixed(2);
    });
    const before = await fingerprint();
    const refused = await run(restated);
    expect(refused.outcome).toBe('refused');
    expect(await fingerprint()).toBe(before);
    expect(refused.restatements.map((r) => [r.navDate, r.tables.sort()])).toEqual([[date, ['nav_runs', 'positions']]]);
    const cashSum = async () =>
      (
        await client.query(
          `SELECT market_value::text AS v FROM position_sums WHERE fund_id = $1 AND nav_date = $2 AND asset_class = 'fiat' AND NOT negative`,
          [FUND, date],
        )
      ).rows[0]?.v as string;
    const cashBefore = await cashSum();
    const accepted = await run(restated, { allowRestatement: true });
    expect(accepted.outcome).toBe('imported');
    const [r] = accepted.restatements;
    expect(r!.old!.adminNav).toBe(oldAdmin);
    expect(r!.new!.adminNav).toBe((Number(oldAdmin) + 100_000).toFixed(2));
    expect([r!.old!.reconStatus, r!.new!.reconStatus]).toEqual(['matched', 'break']);
    const stored = await client.query(`SELECT admin_nav::text, recon_status FROM nav_runs WHERE nav_date = $1`, [date]);
    expect(stored.rows[0]).toEqual({ admin_nav: r!.new!.adminNav, recon_status: 'break' });
    // The restated date's position sums were made again (its USD cash is 1.00 more), and nothing else moved.
    expect(await derivedMismatches()).toEqual({ ledger: 0, positions: 0, closes: 0 });
    expect(Number(await cashSum()) - Number(cashBefore)).toBeCloseTo(1, 6);
    // Only that date's positions were replaced: the rest stayed, and the restated bundle is now a no-op.
    expect((await run(restated)).outcome).toBe('no-op');
    // The restated fund round-trips: export → import --replace → export gives the same bytes, the derived
    // sums made from scratch equal the ones the restatement patched, and every answer is the same.
    const answersBefore = await databaseAnswers();
    const exported = join(work, 'restated-export');
    await exportDatabase(client, FUND, exported);
    expect(rowsOf(exported, 'nav_runs.csv').find((x) => x[0] === date)?.[3]).toBe(r!.new!.adminNav);
    expect((await run(exported, { mode: 'replace' })).outcome).toBe('imported');
    expect(await derivedMismatches()).toEqual({ ledger: 0, positions: 0, closes: 0 });
    expect(await databaseAnswers()).toEqual(answersBefore);
    const again = join(work, 'restated-again');
    await exportDatabase(client, FUND, again);
    sameFiles(exported, again);
    await client.query('DELETE FROM funds');
    expect((await run(WHOLE, { mode: 'replace' })).outcome).toBe('imported');
  });
});

/** The fund's stored versions (db/migrations/0003_fund_versions.sql). */
async function versions(): Promise<{ index: string; identity: string }> {
  const res = await client.query(`SELECT index_version AS index, identity_version AS identity FROM fund_versions WHERE fund_id = $1`, [
    FUND,
  ]);
  return res.rows[0];
}

describe('the versions written with the import', () => {
  it('change with the runs or the investors an import writes, and stay when it writes the same rows again', async () => {
    await client.query('DELETE FROM funds');
    expect((await run(WHOLE, { mode: 'replace' })).outcome).toBe('imported');
    const whole = await versions();
    expect(whole.index).toMatch(/^md5:[0-9a-f]{32}$/);
    expect(whole.identity).toMatch(/^md5:[0-9a-f]{32}$/);
    // Every row deleted and written again, the same: the same versions.
    expect((await run(WHOLE, { mode: 'replace' })).outcome).toBe('imported');
    expect(await versions()).toEqual(whole);

    // An investor renamed: a new identity version, the same index.
    const renamed = join(work, 'renamed');
    cpSync(WHOLE, renamed, { recursive: true });
    edit(renamed, 'investors.csv', (records) => {
      const name = records[0]!.indexOf('legal_name');
      records[3]![name] = 'Petronella Quackenbush-Vanterpool';
    });
    expect((await run(renamed, { mode: 'replace' })).outcome).toBe('imported');
    const afterRename = await versions();
    expect(afterRename.index).toBe(whole.index);
    expect(afterRename.identity).not.toBe(whole.identity);

    // Runs appended: a new index version per import; the same rows give the same versions however they came.
    await client.query('DELETE FROM funds');
    expect((await run(join(work, 'first'))).outcome).toBe('imported');
    const firstPart = await versions();
    expect(firstPart.index).not.toBe(whole.index);
    expect((await run(join(work, 'last'))).outcome).toBe('imported');
    expect(await versions()).toEqual(whole);
    // A no-op import writes nothing and keeps them.
    expect((await run(join(work, 'last'))).outcome).toBe('no-op');
    expect(await versions()).toEqual(whole);
  });
});

/** A small valid bundle: the last 8 runs, self-contained. */
let base: string;
let caseNo = 0;
const broken = (change: (dir: string) => void): string => {
  const dir = join(work, `broken-${++caseNo}`);
  cpSync(base, dir, { recursive: true });
  change(dir);
  return dir;
};

describe('validation before any write', () => {
  beforeAll(async () => {
    if (database.kind !== 'postgres') return;
    base = await bundle('base', { from: dates[dates.length - 8]! });
    // The database holds the base bundle; each broken one is imported with --replace over it.
    await client.query('DELETE FROM funds');
    expect((await run(base, { mode: 'replace' })).validation.errors).toEqual([]);
  });

  type Case = [string, (dir: string) => void, { file: string; line: number; column: string; rule: string }];
  const row = (file: string, index: number, change: (r: string[]) => void) => (dir: string) =>
    edit(dir, file, (records) => change(records[index + 1]!));
  const cases: Case[] = [
    ['a missing file', (d) => unlinkSync(join(d, 'prices.csv')), { file: 'prices.csv', line: 0, column: '-', rule: 'missing_file' }],
    [
      'an empty file',
      (d) => writeFileSync(join(d, 'accounts.csv'), ''),
      { file: 'accounts.csv', line: 1, column: '-', rule: 'missing_header' },
    ],
    [
      'an unknown column',
      (d) => edit(d, 'accounts.csv', (rs) => rs.forEach((r, i) => void r.push(i ? 'x' : 'Extra'))),
      { file: 'accounts.csv', line: 1, column: 'Extra', rule: 'unknown_column' },
    ],
    [
      'a missing column',
      (d) => edit(d, 'prices.csv', (rs) => rs.forEach((r) => void r.pop())),
      { file: 'prices.csv', line: 1, column: 'price', rule: 'missing_column' },
    ],
    [
      'a column twice',
      (d) => edit(d, 'share_classes.csv', (rs) => rs.forEach((r) => void r.push(r[1]!))),
      { file: 'share_classes.csv', line: 1, column: 'name', rule: 'duplicate_column' },
    ],
    [
      'a record with a field too many',
      row('accounts.csv', 2, (r) => r.push('x')),
      { file: 'accounts.csv', line: 4, column: '-', rule: 'field_count' },
    ],
    [
      'an unterminated quote',
      (d) => writeFileSync(join(d, 'share_classes.csv'), 'share_class_id,name\r\nA,Class A\r\nB,"Class B\r\nI,Class I\r\n'),
      { file: 'share_classes.csv', line: 3, column: '-', rule: 'csv_syntax' },
    ],
    [
      'invalid UTF-8',
      (d) =>
        writeFileSync(
          join(d, 'share_classes.csv'),
          Buffer.concat([Buffer.from('share_class_id,name\r\nA,Class A\r\nB,Class '), Buffer.from([0xc3, 0x28]), Buffer.from('\r\n')]),
        ),
      { file: 'share_classes.csv', line: 3, column: 'name', rule: 'encoding' },
    ],
    [
      'an empty required cell',
      row('share_classes.csv', 1, (r) => (r[1] = '')),
      { file: 'share_classes.csv', line: 3, column: 'name', rule: 'required' },
    ],
    [
      'an impossible date',
      row('nav_runs.csv', 0, (r) => (r[0] = '2026-02-30')),
      { file: 'nav_runs.csv', line: 2, column: 'nav_date', rule: 'date' },
    ],
    [
      'a number with an exponent',
      row('prices.csv', 3, (r) => (r[2] = '1e5')),
      { file: 'prices.csv', line: 5, column: 'price', rule: 'decimal' },
    ],
    [
      'a number with a thousands separator',
      row('nav_runs.csv', 1, (r) => (r[5] = '1,000.00')),
      { file: 'nav_runs.csv', line: 3, column: 'net_flows', rule: 'decimal' },
    ],
    [
      'a boolean that is not true or false',
      row('fee_terms.csv', 0, (r) => (r[5] = 'yes')),
      { file: 'fee_terms.csv', line: 2, column: 'has_hwm', rule: 'boolean' },
    ],
    [
      'a line number that is not a positive integer',
      row('ledger_lines.csv', 0, (r) => (r[1] = '0')),
      { file: 'ledger_lines.csv', line: 2, column: 'line_no', rule: 'integer' },
    ],
    [
      'a status outside its enum',
      row('nav_runs.csv', 2, (r) => (r[1] = 'done')),
      { file: 'nav_runs.csv', line: 4, column: 'status', rule: 'enum' },
    ],
    [
      'an asset class outside its enum',
      row('positions.csv', 0, (r) => (r[2] = 'equity')),
      { file: 'positions.csv', line: 2, column: 'asset_class', rule: 'enum' },
    ],
    [
      'a duplicate key',
      (d) => edit(d, 'accounts.csv', (rs) => rs.splice(3, 0, rs[2]!.slice())),
      { file: 'accounts.csv', line: 4, column: 'code', rule: 'duplicate_key' },
    ],
    [
      'a duplicate position',
      (d) => edit(d, 'positions.csv', (rs) => rs.splice(3, 0, rs[2]!.slice())),
      { file: 'positions.csv', line: 4, column: 'book', rule: 'duplicate_key' },
    ],
    [
      'a bulk file out of date order',
      (d) => edit(d, 'prices.csv', (rs) => rs.push(rs[1]!.slice())),
      { file: 'prices.csv', line: -1, column: 'price_date', rule: 'order' },
    ],
    [
      'an unknown account',
      row('ledger_lines.csv', 1, (r) => (r[3] = '9999')),
      { file: 'ledger_lines.csv', line: 3, column: 'account_code', rule: 'reference' },
    ],
    [
      'an unknown share class',
      row('investors.csv', 0, (r) => (r[1] = 'Z')),
      { file: 'investors.csv', line: 2, column: 'share_class_id', rule: 'reference' },
    ],
    [
      'a share class without fee terms',
      (d) => edit(d, 'fee_terms.csv', (rs) => rs.splice(2, 1)),
      { file: 'share_classes.csv', line: 3, column: 'share_class_id', rule: 'reference' },
    ],
    [
      'a position of no run',
      row('positions.csv', 0, (r) => (r[0] = '2020-01-01')),
      { file: 'positions.csv', line: 2, column: 'nav_date', rule: 'reference' },
    ],
    ['another fund', row('funds.csv', 0, (r) => (r[0] = 'other-fund')), { file: 'funds.csv', line: 2, column: 'fund_id', rule: 'fund_id' }],
    [
      'two fund rows',
      (d) => edit(d, 'funds.csv', (rs) => rs.push(rs[1]!.slice())),
      { file: 'funds.csv', line: 3, column: 'fund_id', rule: 'duplicate_key' },
    ],
    [
      'a currency that is not ISO 4217',
      row('funds.csv', 0, (r) => (r[2] = 'usd')),
      { file: 'funds.csv', line: 2, column: 'base_currency', rule: 'currency' },
    ],
    [
      'a negative tolerance',
      row('funds.csv', 0, (r) => (r[5] = '-1.00')),
      { file: 'funds.csv', line: 2, column: 'recon_tolerance_bps', rule: 'negative' },
    ],
    [
      'a hurdle rate without a type',
      row('fee_terms.csv', 0, (r) => (r[3] = '4.0000')),
      { file: 'fee_terms.csv', line: 2, column: 'hurdle_type', rule: 'hurdle_pair' },
    ],
    [
      'a complete run without a shadow NAV',
      row('nav_runs.csv', 0, (r) => r.splice(2, 3, '', r[3]!, '')),
      { file: 'nav_runs.csv', line: 2, column: 'shadow_nav', rule: 'shadow_nav' },
    ],
    [
      'a paid expense without its payment date',
      (d) => edit(d, 'expenses.csv', (rs) => (rs.find((x) => x[5] === 'accrued')![5] = 'paid')),
      { file: 'expenses.csv', line: -2, column: 'paid_date', rule: 'paid_date' },
    ],
    [
      'a journal entry with lines on two dates',
      (d) => edit(d, 'ledger_lines.csv', (rs) => rs[rs.length - 1]!.splice(0, 1, rs[1]![0]!)),
      { file: 'ledger_lines.csv', line: -1, column: 'entry_date', rule: 'entry_date' },
    ],
    // The accounting invariants.
    [
      'a market value that is not quantity × price to the cent',
      row('positions.csv', 4, (r) => (r[8] = (Number(r[8]) + 0.01).toFixed(2))),
      { file: 'positions.csv', line: 6, column: 'market_value', rule: 'market_value' },
    ],
    [
      'an unbalanced journal entry',
      row('ledger_lines.csv', 0, (r) => (r[6] = (Number(r[6]) + 0.01).toFixed(2))),
      { file: 'ledger_lines.csv', line: 2, column: 'debit', rule: 'unbalanced' },
    ],
    [
      'a capital account that does not add up',
      row('capital_accounts.csv', 0, (r) => (r[7] = (Number(r[7]) + 1).toFixed(2))),
      { file: 'capital_accounts.csv', line: 2, column: 'capital', rule: 'capital_identity' },
    ],
    [
      'capital accounts that do not sum to the shadow NAV',
      row('capital_accounts.csv', 0, (r) => r.splice(2, 2, (Number(r[2]) + 1).toFixed(2), (Number(r[3]) + 1).toFixed(2))),
      { file: 'capital_accounts.csv', line: -3, column: 'capital', rule: 'capital_sum' },
    ],
    [
      'a matched status beyond tolerance',
      row('nav_runs.csv', 1, (r) => (r[3] = (Number(r[3]) * 1.01).toFixed(2))),
      { file: 'nav_runs.csv', line: 3, column: 'recon_status', rule: 'recon_status' },
    ],
  ];

  it.each(cases)('%s: the error names file, line, column and rule, and nothing is written', async (_name, change, expected) => {
    const dir = broken(change);
    const before = await fingerprint();
    const result = await run(dir, { mode: 'replace' });
    expect(result.outcome).toBe('invalid');
    expect(await fingerprint()).toBe(before);
    const lines = (file: string) => readFileSync(join(dir, file), 'utf8').split('\r\n').length - 1;
    // Negative lines count from the end (the last data line is −1), for cases whose row is found by content.
    const line =
      expected.line >= 0
        ? expected.line
        : expected.rule === 'capital_sum'
          ? rowsOf(dir, 'capital_accounts.csv').filter((r) => r[0] === rowsOf(dir, 'capital_accounts.csv')[0]![0]).length + 1
          : expected.rule === 'paid_date'
            ? rowsOf(dir, 'expenses.csv').findIndex((r) => r[5] === 'paid' && r[6] === '') + 2
            : lines(expected.file);
    expect(result.validation.errors).toContainEqual(expect.objectContaining({ ...expected, line }));
  });

  it('a contradicting status is an error; an empty one is computed from the tolerance', async () => {
    const dir = broken(row('nav_runs.csv', 0, (r) => (r[4] = '')));
    const result = await run(dir, { dryRun: true, url: undefined });
    expect(result.validation.errors).toEqual([]);
    expect(result.validation.runs[0]!.reconStatus).toBe('matched');
  });

  it('never quotes a personal value: a duplicate or unknown investor is named by line only', async () => {
    const investors = rowsOf(base, 'investors.csv');
    const dir = broken((d) => {
      edit(d, 'investors.csv', (rs) => rs.push(rs[1]!.slice()));
      edit(d, 'capital_accounts.csv', (rs) => (rs[1]![1] = 'INV-9999'));
      edit(d, 'investors.csv', (rs) => (rs[2]![2] = ''));
    });
    const result = await run(dir, { dryRun: true, url: undefined });
    expect(result.validation.errors.map((e) => e.rule)).toEqual(expect.arrayContaining(['duplicate_key', 'reference', 'required']));
    const text = JSON.stringify(result.validation.errors);
    const personal = [0, 2, 3, 4, 5].map((i) => investors[0]![i]!);
    for (const value of [...personal, 'INV-9999']) expect(text).not.toContain(value);
  });

  it('reports every error up to the cap, and counts the rest', async () => {
    const dir = broken((d) => edit(d, 'prices.csv', (rs) => rs.slice(1).forEach((r) => void r.splice(2, 1, 'x'))));
    const result = await run(dir, { dryRun: true, url: undefined, maxErrors: 5 });
    expect(result.validation.errors).toHaveLength(5);
    expect(result.validation.errorCount).toBe(rowsOf(base, 'prices.csv').length);
  });

  it('accepts a UTF-8 BOM and LF line ends', async () => {
    const dir = broken((d) => {
      writeFileSync(join(d, 'funds.csv'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(join(d, 'funds.csv'))]));
      writeFileSync(join(d, 'accounts.csv'), readFileSync(join(d, 'accounts.csv'), 'utf8').replaceAll('\r\n', '\n'));
    });
    expect((await run(dir, { dryRun: true, url: undefined })).validation.errors).toEqual([]);
  });

  it('--map renames an administrator export’s columns, per file', async () => {
    const dir = broken((d) =>
      edit(d, 'positions.csv', (rs) => {
        rs[0] = rs[0]!.map((c) => ({ quantity: 'Qty', market_value: 'Market Value (USD)', nav_date: 'As Of' })[c] ?? c);
      }),
    );
    const unmapped = await run(dir, { dryRun: true, url: undefined });
    expect(unmapped.validation.errors.map((e) => [e.column, e.rule])).toContainEqual(['Qty', 'unknown_column']);
    const map = { 'positions.csv': { Qty: 'quantity', 'Market Value (USD)': 'market_value', 'As Of': 'nav_date' } };
    expect((await run(dir, { dryRun: true, url: undefined, map })).validation.errors).toEqual([]);
  });
});

describe('position breaks against the administrator', () => {
  it('lists positions whose quantity or value differ, or that one side lacks', async () => {
    const dir = broken((d) => {
      const last = dates[dates.length - 1]!;
      const live = rowsOf(d, 'positions.csv').filter((r) => r[0] === last && r[5] === 'live');
      const admin = live.map((r) => [r[0]!, r[1]!, r[4]!, r[6]!, r[8]!]);
      admin[0]![3] = (Number(admin[0]![3]) + 1).toString();
      admin.splice(1, 1);
      writeFileSync(
        join(d, 'admin_positions.csv'),
        [['nav_date', 'asset', 'venue', 'quantity', 'market_value'], ...admin].map((r) => csvLine(r)).join(''),
      );
    });
    expect((await run(dir, { dryRun: true, url: undefined })).validation.errors).toEqual([]);
    const breaks = await positionBreaks(dir);
    expect(breaks).toHaveLength(2);
    expect(breaks.find((b) => b.adminQuantity === null)?.quantityDifference).toBeNull();
    expect(Number(breaks.find((b) => b.adminQuantity !== null)?.quantityDifference)).toBe(-1);
  });
});

// ------------------------------------------------------------------------------------------------ CLI
const CLI = [process.execPath, '--experimental-strip-types', '--disable-warning=ExperimentalWarning', join(ROOT, 'scripts', 'fund.ts')];

describe('npm run fund', () => {
  it('a dry run prints the reconciliation and writes the JSON report; exit 0; an invalid bundle exits 1', async () => {
    const report = join(work, 'report.json');
    const ok = spawnSync(CLI[0]!, [...CLI.slice(1), 'import', base, '--fund', FUND, '--dry-run', '--report', report], {
      env: { ...process.env, DATABASE_URL: database.url },
      encoding: 'utf8',
    });
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/Reconciliation \(tolerance 5\.00 bps\): 8 runs/);
    expect(ok.stdout).toMatch(/Dry run: the bundle is valid/);
    const json = JSON.parse(readFileSync(report, 'utf8'));
    expect(json.reconciliation.runs).toHaveLength(8);
    expect(json.reconciliation.runs[7]).toMatchObject({ reconStatus: 'break' });
    const bad = broken(row0('nav_runs.csv', (r) => (r[1] = 'done')));
    const failed = spawnSync(CLI[0]!, [...CLI.slice(1), 'import', bad, '--fund', FUND, '--dry-run'], {
      env: { ...process.env, DATABASE_URL: '' },
      encoding: 'utf8',
    });
    expect(failed.status).toBe(1);
    expect(failed.stdout).toContain('nav_runs.csv:2 status [enum]');
    expect(failed.stdout).toContain('Nothing was written');
  });
});

function row0(file: string, change: (r: string[]) => void) {
  return (dir: string) => edit(dir, file, (records) => change(records[1]!));
}

describe('one transaction per import', () => {
  /** Starts an append of the last 30 runs, held by a lock at its last table; resolves with the child and its backend pid. */
  async function heldImport(): Promise<{
    child: ReturnType<typeof spawn>;
    pid: number;
    exit: Promise<number | null>;
    output: () => string;
    release: () => Promise<void>;
  }> {
    await client.query('DELETE FROM funds');
    expect((await run(join(work, 'first'))).outcome).toBe('imported');
    const holder = await connectPg(database.url);
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE expenses IN SHARE MODE'); // reads pass, writes wait
    const child = spawn(CLI[0]!, [...CLI.slice(1), 'import', join(work, 'last'), '--fund', FUND], {
      env: { ...process.env, DATABASE_URL: database.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let pid = 0;
    for (let i = 0; i < 300 && !pid; i++) {
      const res = await client.query(
        `SELECT pid FROM pg_stat_activity WHERE application_name = 'fund-edge import' AND wait_event_type = 'Lock' AND datname = current_database()`,
      );
      pid = res.rows[0]?.pid ?? 0;
      if (!pid) await new Promise((r) => setTimeout(r, 100));
    }
    expect(pid, out).toBeGreaterThan(0);
    // Midway: the import holds row locks on the tables it has already written in its transaction.
    const locks = await client.query(
      `SELECT c.relname FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE l.pid = $1 AND l.mode = 'RowExclusiveLock'`,
      [pid],
    );
    expect(locks.rows.map((r: { relname: string }) => r.relname)).toEqual(
      expect.arrayContaining(['positions', 'ledger_lines', 'capital_accounts']),
    );
    return {
      child,
      pid,
      exit,
      output: () => out,
      release: async () => {
        await holder.query('ROLLBACK');
        await holder.end();
      },
    };
  }

  it('SIGINT midway: exit 130, the database as it was', async (ctx) => {
    if (database.kind === 'pglite') ctx.skip();
    const held = await heldImport();
    const before = await fingerprint();
    held.child.kill('SIGINT');
    expect(await held.exit).toBe(130);
    await held.release();
    expect(held.output()).toContain('nothing is written');
    expect(await fingerprint()).toBe(before);
  }, 60_000);

  it('a dropped connection midway: exit 1, the database as it was', async (ctx) => {
    if (database.kind === 'pglite') ctx.skip();
    const held = await heldImport();
    const before = await fingerprint();
    await client.query('SELECT pg_terminate_backend($1)', [held.pid]);
    expect(await held.exit).toBe(1);
    await held.release();
    expect(held.output()).toContain('Import failed, nothing was written');
    expect(await fingerprint()).toBe(before);
  }, 60_000);

  it('a constraint the validation does not know, at the last table: exit 1, the database as it was', async (ctx) => {
    if (database.kind === 'pglite') ctx.skip();
    await client.query('DELETE FROM funds');
    expect((await run(join(work, 'first'))).outcome).toBe('imported');
    // Stored rows break it too, so it is added NOT VALID: only rows written from now on are checked.
    await client.query(`ALTER TABLE expenses ADD CONSTRAINT test_small_expenses CHECK (amount < 10) NOT VALID`);
    try {
      const before = await fingerprint();
      const child = spawnSync(CLI[0]!, [...CLI.slice(1), 'import', join(work, 'last'), '--fund', FUND], {
        env: { ...process.env, DATABASE_URL: database.url },
        encoding: 'utf8',
      });
      expect(child.status).toBe(1);
      expect(child.stderr).toContain('test_small_expenses');
      expect(await fingerprint()).toBe(before);
    } finally {
      await client.query('ALTER TABLE expenses DROP CONSTRAINT IF EXISTS test_small_expenses');
    }
  }, 60_000);
});
