/**
 * The import section (`npm run bench -- --only import`): `npm run fund -- import` at the scale of a large
 * fund, against raw COPY of the same rows, on the local PostgreSQL (test/support/database.ts makes two
 * throwaway databases; with no PostgreSQL answering on 127.0.0.1:5432 the section reports that it cannot run).
 *
 * 1. Generate the bundle (bench/import-fund.ts): 5 years of daily runs, 500 live positions, 500 investors.
 * 2. Dry run: the CLI as an operator runs it (a child process, no database): validation and the
 *    reconciliation report. Budget ≤ 60 s.
 * 3. Import into an empty migrated database: the CLI again, validation then COPY in one transaction.
 *    Budgets ≤ 120 s and peak memory (the child's maximum resident set) ≤ 300 MiB.
 * 4. Raw COPY of the same files into another empty migrated database (`COPY ... FROM STDIN (FORMAT csv,
 *    HEADER)`, node-postgres + pg-copy-streams, `fund_id` from a column default): what the server does with
 *    no validation and no conversion. The import's rows/s ÷ raw COPY's: goal ≥ 0.5×.
 */
import { spawn } from 'node:child_process';
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { migrate } from '../operator/db/migrate.ts';
import { BUNDLE_FILES } from '../operator/bundle/format.ts';
import { connectPg } from '../operator/bundle/load.ts';
import { loadMigrations } from '../scripts/db.ts';
import { createTestDatabase, type TestDatabase } from '../test/support/database.ts';
import { LARGE_FUND, writeLargeFund } from './import-fund.ts';
import { Cleanup, ROOT, atMost, figure, progress, ratioAtLeast, type Figure } from './report.ts';

interface CliRun {
  seconds: number;
  peakRssMiB: number;
  rows: number;
  outcome: string;
  tail: string;
}

/**
 * Runs `npm run fund -- import` exactly as an operator does (so with the script's Node flags, such as its heap
 * limit), in its own process, whose peak memory its JSON report gives.
 */
async function cliImport(dir: string, report: string, url: string | null, extra: string[]): Promise<CliRun> {
  const started = performance.now();
  const child = spawn('npm', ['run', '-s', 'fund', '--', 'import', dir, '--fund', LARGE_FUND.fundId, '--report', report, ...extra], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => {
    out += d;
    const line = String(d).trim().split('\n').pop();
    if (line) progress(`import: ${line}`);
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`npm run fund -- import exited ${code}: ${out.slice(-2000)}`);
  const json = JSON.parse(readFileSync(report, 'utf8')) as { outcome: string; stats: { peakRssMiB: number; rows: number } };
  return {
    seconds,
    peakRssMiB: json.stats.peakRssMiB,
    rows: json.stats.rows,
    outcome: json.outcome,
    tail: out.trim().split('\n').pop() ?? '',
  };
}

async function migrated(cleanup: Cleanup): Promise<TestDatabase> {
  const database = await createTestDatabase();
  cleanup.add('drop a database and stop its proxy', () => database.dispose());
  if (database.kind !== 'postgres') throw new Error('the import section needs the PostgreSQL on 127.0.0.1:5432 (found none)');
  const db = database.open(120_000);
  try {
    await migrate(db, loadMigrations());
  } finally {
    await db.release();
  }
  return database;
}

/** COPY of every file as it is, in table order; returns seconds. */
async function rawCopy(url: string, dir: string): Promise<number> {
  const client = await connectPg(url);
  try {
    for (const f of BUNDLE_FILES)
      if (f.table && f.table.table !== 'funds')
        await client.query(`ALTER TABLE ${f.table.table} ALTER COLUMN fund_id SET DEFAULT '${LARGE_FUND.fundId}'`);
    const started = performance.now();
    await client.query('BEGIN');
    for (const f of BUNDLE_FILES) {
      if (!f.table) continue;
      const header = readFileSync(join(dir, f.file), 'utf8').slice(0, 4096).split('\r\n')[0]!;
      progress(`import: raw COPY ${f.file}`);
      await pipeline(
        createReadStream(join(dir, f.file)),
        client.query(copyFrom(`COPY ${f.table.table} (${header}) FROM STDIN (FORMAT csv, HEADER true)`)),
      );
    }
    await client.query('COMMIT');
    return (performance.now() - started) / 1000;
  } finally {
    await client.end();
  }
}

/** The import section. */
export async function runImport(): Promise<{ figures: Figure[]; diagnostics: string[] }> {
  const cleanup = new Cleanup();
  const figures: Figure[] = [];
  const diagnostics: string[] = [];
  try {
    const dir = cleanup.tempDir('fund-edge-bench-import-');
    const bundle = join(dir, 'bundle');
    progress(
      `import: generating a ${LARGE_FUND.years}-year fund, ${LARGE_FUND.positions} live positions, ${LARGE_FUND.investors} investors`,
    );
    const t = performance.now();
    const rows = await writeLargeFund(bundle, LARGE_FUND);
    const total = Object.values(rows).reduce((s, n) => s + n, 0);
    const bytes = BUNDLE_FILES.filter((f) => f.table).reduce((s, f) => s + statSync(join(bundle, f.file)).size, 0);
    figures.push(
      figure('import', {
        name: 'bundle generated (information)',
        value: total,
        unit: 'count',
        note: `rows: ${rows.nav_runs} runs, ${rows.positions} positions, ${rows.prices} prices, ${rows.ledger_lines} journal lines, ${rows.capital_accounts} capital accounts, ${rows.investors} investors; ${(bytes / 2 ** 20).toFixed(0)} MiB; ${((performance.now() - t) / 1000).toFixed(1)} s`,
        extra: { rows, bytes },
      }),
    );

    progress('import: dry run (validation and the reconciliation, no database)');
    const dry = await cliImport(bundle, join(dir, 'dry.json'), null, ['--dry-run']);
    figures.push(
      figure('import', {
        name: 'dry run: validation of the whole bundle',
        value: dry.seconds,
        unit: 's',
        budget: atMost(60, '≤ 60 s'),
        note: `${Math.round(total / dry.seconds).toLocaleString('en-US')} rows/s`,
      }),
      figure('import', { name: 'dry run: peak memory', value: dry.peakRssMiB, unit: 'MiB', budget: atMost(300, '≤ 300 MiB') }),
    );

    const target = await migrated(cleanup);
    progress('import: import into an empty migrated database');
    const imported = await cliImport(bundle, join(dir, 'import.json'), target.url, []);
    if (imported.outcome !== 'imported') throw new Error(`the import ended ${imported.outcome}`);
    const importRate = total / imported.seconds;
    figures.push(
      figure('import', {
        name: 'import: validate + COPY in one transaction',
        value: imported.seconds,
        unit: 's',
        budget: atMost(120, '≤ 120 s'),
        note: imported.tail.replace(/^Imported [^:]*: /, ''),
      }),
      figure('import', { name: 'import: peak memory', value: imported.peakRssMiB, unit: 'MiB', budget: atMost(300, '≤ 300 MiB') }),
    );

    const raw = await migrated(cleanup);
    progress('import: raw COPY of the same files');
    const rawSeconds = await rawCopy(raw.url, bundle);
    const rawRate = total / rawSeconds;
    figures.push(
      figure('import', {
        name: 'raw COPY of the same rows (reference)',
        value: rawRate,
        unit: 'rows/s',
        note: `${rawSeconds.toFixed(1)} s`,
      }),
      figure('import', {
        name: 'import rows/s vs raw COPY',
        value: importRate,
        unit: 'rows/s',
        budget: ratioAtLeast(0.5, '≥ 0.50× raw COPY'),
        ratio: importRate / rawRate,
        note: `validation ${dry.seconds.toFixed(1)} s of the import's ${imported.seconds.toFixed(1)} s (dry run alone)`,
      }),
    );
    diagnostics.push(
      `Import: node-postgres + pg-copy-streams (COPY FROM STDIN, text format) over TCP to PostgreSQL on 127.0.0.1:5432; the bundle is read once (csv-parse's stream API), the validated rows spooled as COPY text and streamed into COPY once the whole bundle is valid.`,
    );
    for (const f of figures)
      if (f.pass === false) diagnostics.push(`${f.name}: missed (${f.value?.toFixed(1)} ${f.unit}; ${f.budget?.text}).`);
    return { figures, diagnostics };
  } finally {
    await cleanup.run();
  }
}
