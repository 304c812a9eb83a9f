/**
 * `npm run fuzz`: generated requests, valid and hostile, against the Worker in workerd, over every REST route
 * and every tool of both MCP servers; every answer judged by the oracle, and the Worker's log read for
 * uncaught exceptions and requests cancelled as hung (docs/fuzzing.md). Prints the seed, then every failure
 * class with the smallest request that showed it and how to replay it. Exit code 1 when anything failed.
 *
 * Before the first case it checks that the service is healthy (every fund route answers 200) and stops
 * otherwise; every 5xx during the run is a failure.
 *
 * Usage: npm run fuzz [-- --seed N] [--runs N] [--only I] [--timeout MS] [--concurrency N] [--store S]
 *   --seed, FUZZ_SEED        the seed (default: a random one, printed)
 *   --runs, FUZZ_RUNS        how many requests (default 10,000)
 *   --only, FUZZ_ONLY        replay only request number I of the seed
 *   --timeout, FUZZ_TIMEOUT_MS  the hang detector's cap per request (default 5,000 ms)
 *   --concurrency, FUZZ_CONCURRENCY  requests in flight at once (default 4)
 *   --store, FUZZ_STORE      where fund data comes from: embedded (default) or postgres (a throwaway database
 *                            the run seeds with the sample fund: the local PostgreSQL, else an embedded one)
 */
import { parseArgs } from 'node:util';
import { type FuzzStore, formatReport, runFuzz, startFuzzTarget } from '../test/fuzz/harness.ts';

function integer(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined || text === '') return fallback;
  if (!/^-?\d+$/.test(text)) throw new Error(`${name} must be an integer`);
  return Number(text);
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string' },
      runs: { type: 'string' },
      only: { type: 'string' },
      timeout: { type: 'string' },
      concurrency: { type: 'string' },
      store: { type: 'string' },
    },
  });
  const store = (values.store ?? process.env.FUZZ_STORE ?? 'embedded') as FuzzStore;
  if (store !== 'embedded' && store !== 'postgres') throw new Error('--store is embedded or postgres');
  const seed = integer('--seed', values.seed ?? process.env.FUZZ_SEED, Math.floor(Math.random() * 2 ** 31));
  const runs = integer('--runs', values.runs ?? process.env.FUZZ_RUNS, 10_000);
  const onlyText = values.only ?? process.env.FUZZ_ONLY;
  const only = onlyText === undefined || onlyText === '' ? undefined : integer('--only', onlyText, 0);
  const timeoutMs = integer('--timeout', values.timeout ?? process.env.FUZZ_TIMEOUT_MS, 5_000);
  const concurrency = integer('--concurrency', values.concurrency ?? process.env.FUZZ_CONCURRENCY, 4);

  console.log(
    `fuzz: seed ${seed}${only !== undefined ? `, request ${only} only` : `, ${runs} requests`}, ${timeoutMs} ms cap per request, ${concurrency} in flight, fund data from ${store === 'embedded' ? 'the embedded store' : 'a seeded throwaway PostgreSQL database'}`,
  );
  const target = await startFuzzTarget({ store });
  console.log('fuzz: the service is healthy (every fund route answered 200)');
  const stop = () => void target.dispose().finally(() => process.exit(130));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const started = performance.now();
    const report = await runFuzz(target, {
      seed,
      runs,
      timeoutMs,
      concurrency,
      ...(only !== undefined ? { only } : {}),
      log: (l) => console.log(l),
    });
    console.log(formatReport(report, target.keys));
    console.log(`fuzz: ${((performance.now() - started) / 1000).toFixed(0)} s; seed ${seed}`);
    return report.classes.length ? 1 : 0;
  } finally {
    await target.dispose();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exit(1);
  },
);
