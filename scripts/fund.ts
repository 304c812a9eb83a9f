/**
 * `npm run fund`: the fund operator's pipeline (docs/import.md).
 *
 *   export --fund <id> --out <dir> [--source embedded|database] [--from <date>] [--through <date>]
 *   import <dir> --fund <id> [--dry-run] [--replace] [--allow-restatement] [--map <file.json>]
 *                [--report <file.json>] [--max-errors <n>]
 *
 * The database is `DATABASE_URL` (environment, else `.dev.vars`), reached over TCP with node-postgres (the
 * local PostgreSQL, or Neon's connection string with `sslmode=require`). `export` reads the embedded store
 * unless a database is configured (`--source` decides when both are possible). A dry run without a
 * database validates the bundle and prints the reconciliation; with one it also says what would be written.
 *
 * Exit codes: 0 imported, nothing to do, or a clean dry run; 1 an invalid bundle, a refused restatement or a
 * database failure (nothing written in each case); 2 a usage error; 130 interrupted (nothing written).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { checkColumnMap, type ColumnMap } from '../operator/bundle/csv.ts';
import { formulaWarning } from '../operator/bundle/formulas.ts';
import { type ExportReport, exportDatabase, exportEmbedded, type Slice, workTreeProblem } from '../operator/bundle/export.ts';
import { BUNDLE_FILES } from '../operator/bundle/format.ts';
import { connectPg, importBundle, type Progress } from '../operator/bundle/load.ts';
import { count, positionBreaks, reportJson, reportText } from '../operator/bundle/report.ts';
import { isDate } from '../operator/bundle/validate.ts';
import { localDatabaseUrl } from './pg-ws-proxy.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const usage = `Usage:
  npm run fund -- export --fund <id> --out <dir> [--source embedded|database] [--from YYYY-MM-DD] [--through YYYY-MM-DD]
  npm run fund -- import <dir> --fund <id> [--dry-run] [--replace] [--allow-restatement]
                 [--map <file.json>] [--report <file.json>] [--max-errors <n>]
See docs/import.md. DATABASE_URL comes from the environment or .dev.vars.`;

class UsageError extends Error {}

/** Progress on stderr: a bar redrawn in place on a terminal, a plain line every few seconds otherwise. */
function progressPrinter(tty: boolean): { update(p: Progress): void; done(): void } {
  const started = performance.now();
  let phase = '';
  let phaseStart = started;
  let last = 0;
  return {
    update(p) {
      const now = performance.now();
      if (p.phase !== phase) {
        if (tty && phase) process.stderr.write('\n');
        phase = p.phase;
        phaseStart = now;
        last = 0;
        if (!tty) process.stderr.write(`${p.phase === 'validate' ? 'validating' : 'writing'}…\n`);
      }
      if (now - last < (tty ? 100 : 5000) && p.done < p.total) return;
      last = now;
      const seconds = (now - phaseStart) / 1000;
      const fraction = p.total > 0 ? Math.min(1, p.done / p.total) : 1;
      const eta = fraction > 0 ? (seconds / fraction - seconds).toFixed(0) : '?';
      const rows = `${p.rows.toLocaleString('en-US')} rows, ${Math.round(p.rows / Math.max(seconds, 0.001)).toLocaleString('en-US')} rows/s`;
      if (tty) {
        const width = 24;
        const bar = '#'.repeat(Math.round(fraction * width)).padEnd(width, '.');
        process.stderr.write(`\r${p.phase.padEnd(8)} [${bar}] ${(fraction * 100).toFixed(0).padStart(3)}%  ${rows}  ETA ${eta} s   `);
      } else process.stderr.write(`${p.phase} ${(fraction * 100).toFixed(0)}%: ${rows}, ETA ${eta} s\n`);
    },
    done() {
      if (tty && phase) process.stderr.write('\n');
    },
  };
}

function readMap(path: string | undefined): ColumnMap {
  if (!path) return {};
  let map: unknown;
  try {
    map = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new UsageError(`--map ${path}: not a readable JSON file`);
  }
  const problems = checkColumnMap(map, BUNDLE_FILES);
  if (problems.length) throw new UsageError(`--map ${path}:\n  ${problems.join('\n  ')}`);
  return map as ColumnMap;
}

async function runExport(values: Record<string, string | boolean | undefined>): Promise<number> {
  const fundId = values.fund as string | undefined;
  const out = values.out as string | undefined;
  if (!fundId || !out) throw new UsageError('export needs --fund and --out');
  const slice: Slice = {};
  for (const bound of ['from', 'through'] as const) {
    const d = values[bound] as string | undefined;
    if (d !== undefined && !isDate(d)) throw new UsageError(`--${bound} must be a date YYYY-MM-DD`);
    if (d) slice[bound] = d;
  }
  const url = localDatabaseUrl(root);
  const source = (values.source as string | undefined) ?? (url ? 'database' : 'embedded');
  if (source !== 'embedded' && source !== 'database') throw new UsageError('--source is embedded or database');
  const inRepo = workTreeProblem(out);
  if (inRepo) {
    console.error(inRepo);
    return 1;
  }
  let report: ExportReport | null;
  if (source === 'embedded') report = await exportEmbedded(fundId, out, slice);
  else {
    if (!url) throw new UsageError('DATABASE_URL is not set (or use --source embedded)');
    const client = await connectPg(url);
    try {
      report = await exportDatabase(client, fundId, out, slice);
    } finally {
      await client.end();
    }
    if (!report) {
      console.error(`The database holds no fund ${fundId}.`);
      return 1;
    }
  }
  console.log(
    `exported ${fundId} from the ${source === 'embedded' ? 'embedded store' : 'database'} to ${out} (files of mode 0600 in a folder of mode 0700: they hold personal data):`,
  );
  for (const [file, rows] of Object.entries(report.rows))
    console.log(`  ${file.padEnd(22)} ${rows.toLocaleString('en-US').padStart(10)} rows`);
  for (const f of report.formulas) console.error(formulaWarning(f));
  return 0;
}

async function runImport(dir: string | undefined, values: Record<string, string | boolean | undefined>): Promise<number> {
  const fundId = values.fund as string | undefined;
  if (!dir || !fundId) throw new UsageError('import needs the bundle folder and --fund');
  const maxErrors = values['max-errors'] === undefined ? 100 : Number(values['max-errors']);
  if (!Number.isInteger(maxErrors) || maxErrors < 1) throw new UsageError('--max-errors is a whole number ≥ 1');
  const map = readMap(values.map as string | undefined);
  const dryRun = values['dry-run'] === true;
  const url = localDatabaseUrl(root);
  if (!url && !dryRun) throw new UsageError('DATABASE_URL is not set (a --dry-run needs none)');
  const mode = values.replace === true ? 'replace' : 'append';
  const controller = new AbortController();
  let interrupted = false;
  const onSigint = () => {
    interrupted = true;
    process.stderr.write('\ninterrupted: the transaction is rolled back, nothing is written\n');
    // Dropping the connection is what rolls back (the server discards an uncommitted transaction); exit
    // at once rather than after the validation of a large bundle has run its course.
    controller.abort();
    process.exit(130);
  };
  process.on('SIGINT', onSigint);
  const started = performance.now();
  const progress = progressPrinter(process.stderr.isTTY === true);
  try {
    const result = await importBundle({
      dir,
      fundId,
      mode,
      allowRestatement: values['allow-restatement'] === true,
      dryRun,
      map,
      maxErrors,
      ...(url ? { url } : {}),
      signal: controller.signal,
      onProgress: (p) => progress.update(p),
    });
    progress.done();
    if (interrupted) return 130;
    const breaks = result.validation.errorCount === 0 ? await positionBreaks(dir, map) : [];
    for (const line of reportText(result, breaks)) console.log(line);
    const seconds = (performance.now() - started) / 1000;
    const peakRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
    if (values.report)
      writeFileSync(
        values.report as string,
        `${JSON.stringify(reportJson(result, { fundId, mode, dryRun, breaks, seconds, peakRssMiB }), null, 2)}\n`,
      );
    const rows = Object.values(result.written).reduce((s, n) => s + n, 0);
    switch (result.outcome) {
      case 'invalid':
        console.log('Nothing was written: fix the errors above and run again.');
        return 1;
      case 'refused':
        console.log(
          'Nothing was written: the bundle restates stored data (listed above). Run again with --allow-restatement to accept it.',
        );
        return 1;
      case 'dry-run':
        console.log(
          url
            ? `Dry run: the bundle is valid; an import would add ${count(result.newRuns.length, 'run')} and restate ${result.restatements.length}. Nothing was written.`
            : 'Dry run: the bundle is valid (no database configured, so nothing was compared). Nothing was written.',
        );
        return 0;
      case 'no-op':
        console.log(`Nothing to import: the database already holds this bundle (runs through ${result.storedThrough}).`);
        return 0;
      case 'imported':
        console.log(
          `Imported ${fundId} (${mode}): ${count(result.newRuns.length, 'new run')}, ${result.restatements.length} restated, ${rows.toLocaleString('en-US')} rows in ${seconds.toFixed(1)} s (${Math.round(rows / seconds).toLocaleString('en-US')} rows/s; peak memory ${peakRssMiB} MiB).`,
        );
        return 0;
    }
  } catch (err) {
    progress.done();
    if (interrupted) return 130;
    throw err;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      fund: { type: 'string' },
      out: { type: 'string' },
      source: { type: 'string' },
      from: { type: 'string' },
      through: { type: 'string' },
      'dry-run': { type: 'boolean' },
      replace: { type: 'boolean' },
      'allow-restatement': { type: 'boolean' },
      map: { type: 'string' },
      report: { type: 'string' },
      'max-errors': { type: 'string' },
    },
  });
  const [command, dir] = positionals;
  if (command === 'export') return runExport(values);
  if (command === 'import') return runImport(dir, values);
  throw new UsageError(`unknown command ${command ?? '(none)'}`);
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
        console.error(`${(err as Error).message}\n${usage}`);
        process.exit(2);
      }
      // A database error's message names the constraint or the connection problem; its detail, which can
      // quote a row's values, is not printed.
      const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
      const imported = process.argv.includes('import');
      console.error(
        `${imported ? 'Import failed, nothing was written' : 'Failed'}: ${err instanceof Error ? err.message : String(err)}${cause}`,
      );
      process.exit(1);
    },
  );
}
