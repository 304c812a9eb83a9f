/**
 * An A/B of first requests in workerd: the first request of fresh isolates for chosen cases, on one or more
 * builds of the Worker, their runs interleaved (bundle after bundle, case after case, round after round) so
 * that a slow minute of the shared machine spreads over all of them. What `npm run bench`'s `workerd`
 * section measures (bench/workerd.ts `measureOnce`: the main thread's CPU per first request), for a change
 * whose effect is smaller than the spread between two runs of the whole section.
 *
 * Usage: node --experimental-strip-types --disable-warning=ExperimentalWarning bench/first-workerd.ts
 *          [--bundle dir]... [--runs n] case-id...
 * (case ids as in bench/first-requests.ts: `fund-overview`, `calc-fee-calculator`, `get-openapi.json`, …;
 * a bundle is what `wrangler deploy --dry-run --outdir <dir>` writes; without `--bundle`, this tree's).
 * Prints each case × bundle's median and its runs, sorted; exits 1 if an answer fails its check.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { firstRequests } from './first-requests.ts';
import { Cleanup, printMedians, useWranglerEnv } from './report.ts';
import { deployedWorker, figuresOf, interleavedRuns, measureOnce, service } from './workerd.ts';

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { bundle: { type: 'string', multiple: true }, runs: { type: 'string', default: '9' } },
  });
  if (positionals.length === 0) throw new Error('name at least one case id (e.g. fund-overview, get-openapi.json)');
  const cases = positionals.map((id) => {
    const c = firstRequests().find((x) => x.id === id);
    if (!c) throw new Error(`unknown case "${id}" (see bench/first-requests.ts)`);
    return c;
  });
  const cleanup = new Cleanup();
  try {
    useWranglerEnv();
    const bundles = values.bundle?.length ? values.bundle : [await deployedWorker(cleanup)];
    const { runs, failed } = await interleavedRuns(
      Number(values.runs),
      bundles,
      cases.map((c) => ({ label: c.id, measure: (bundle) => measureOnce(service(resolve(bundle)), c.path, c.init, c.check) })),
    );
    printMedians(
      `workerd main-thread CPU of the first request of a fresh isolate, ms (median of ${values.runs}; the runs sorted)`,
      figuresOf(runs, (r) => [r.mainMs]),
    );
    return failed ? 1 : 0;
  } finally {
    await cleanup.run();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  Cleanup.installSignalHandlers();
  process.exitCode = await main();
}
