/**
 * An A/B of first requests in workerd against PostgreSQL: the first request of fresh isolates for chosen fund
 * endpoints on the scale bench's large fund (bench/scale.ts, database `fund_edge_scale`, which must have been
 * imported by `npm run bench -- --only scale` first), on one or more builds of the Worker, interleaved (bundle
 * after bundle, case after case, round after round) as bench/first-workerd.ts does for the embedded fund.
 * The database is reached as the bench's: through the project's proxy (scripts/pg-ws-proxy.ts).
 *
 * Usage: node --experimental-strip-types --disable-warning=ExperimentalWarning bench/first-db-workerd.ts
 *          [--bundle dir]... [--runs n] [--warm n] [--prime case]... [--fund bench-fund] path...
 * (paths under /api/v1/fund/, e.g. `overview`, `trial-balance`, `capital-accounts`, or `mcp:<tool>` for a
 * `tools/call` of that fund MCP tool, e.g. `mcp:get_fund_overview`, `mcp:get_nav_history?days=3660`). Prints each case ×
 * bundle's median main-thread CPU and its runs, sorted, and with `--warm n` the median of the n requests that
 * follow each first one on the same isolate; exits 1 if an answer is not 200.
 *
 * `--prime case` (repeatable, in order) sends that request to each fresh isolate first, unmeasured and of
 * any status: a case as above (`nav-history?days=0`, refused with 400 after the credential and the steps),
 * or `demo:<path>` with the demo key (`demo:fee-terms` reads the embedded demo fund; bench/first-requests.ts).
 * The measured request is then the first of its kind, not of the isolate: what it pays beyond a warm request
 * is what the primes did not share with it (docs/performance.md, "What still misses, and why").
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startPgWsProxy } from '../scripts/pg-ws-proxy.ts';
import { Cleanup, printMedians, useWranglerEnv } from './report.ts';
import { databaseService } from './scale.ts';
import { databaseCase } from './first-requests.ts';
import { deployedWorker, figuresOf, interleavedRuns, measureOnce, type Prime } from './workerd.ts';

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      bundle: { type: 'string', multiple: true },
      runs: { type: 'string', default: '7' },
      warm: { type: 'string', default: '0' },
      fund: { type: 'string', default: 'bench-fund' },
      prime: { type: 'string', multiple: true, default: [] },
    },
  });
  if (positionals.length === 0) throw new Error('name at least one fund path (e.g. overview, trial-balance, mcp:get_fund_overview)');
  const cleanup = new Cleanup();
  try {
    useWranglerEnv();
    const proxy = await startPgWsProxy({ target: { host: '127.0.0.1', port: 5432 } });
    cleanup.add('stop the proxy', () => proxy.close());
    const bundles = values.bundle?.length ? values.bundle : [await deployedWorker(cleanup)];
    const fundId = values.fund;
    const subjectOf = (bundle: string) => databaseService(resolve(bundle), fundId, proxy.wsProxy);
    const primes: Prime[] = values.prime.map(databaseCase);
    const { runs, failed } = await interleavedRuns(
      Number(values.runs),
      bundles,
      positionals.map((spec) => {
        const { path, init, check } = databaseCase(spec);
        return { label: spec, measure: (bundle: string) => measureOnce(subjectOf(bundle), path, init, check, Number(values.warm), primes) };
      }),
    );
    const warmFigures = figuresOf(runs, (r) => r.warmMs ?? []);
    const after = primes.length ? ` after ${values.prime.join(', ')}` : '';
    printMedians(
      `workerd main-thread CPU of the first database request of a fresh isolate${after}, ms (median of ${values.runs}; the runs sorted)`,
      figuresOf(runs, (r) => [r.mainMs]),
    );
    if (warmFigures.size > 0)
      printMedians(`the same isolates' next ${values.warm} requests each, ms (median of all of them; the runs sorted)`, warmFigures);
    return failed ? 1 : 0;
  } finally {
    await cleanup.run();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  Cleanup.installSignalHandlers();
  process.exitCode = await main();
}
