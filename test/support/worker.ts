/**
 * The Worker in workerd for end-to-end tests: wrangler's `unstable_startWorker` on 127.0.0.1, port 0,
 * offline and quiet, with KV persisted to a folder of the test's own (so a restart keeps the counters and
 * keys minted by the real `npm run keys` CLI into the same folder are seen).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { unstable_startWorker } from 'wrangler';

process.env.WRANGLER_SEND_METRICS = 'false';
process.env.CLOUDFLARE_CF_FETCH_ENABLED = 'false';
process.env.WRANGLER_HIDE_BANNER = 'true';
process.env.XDG_CONFIG_HOME ??= join(process.cwd(), '.config');

/** A running Worker and its base URL (no trailing slash). */
export interface TestWorker {
  base: string;
  dispose(): Promise<void>;
}

/**
 * Starts the Worker of `wrangler.toml`.
 * @param persistDir the folder local KV lives in
 * @param bindings bindings that replace wrangler.toml's (e.g. a raised burst limit)
 * @param logLevel `error` shows the Worker's `console.error` lines (lib/log.ts) on this process's stderr
 */
export async function startWorker(
  persistDir: string,
  bindings: Record<string, unknown> = {},
  logLevel: 'none' | 'error' = 'none',
): Promise<TestWorker> {
  const worker = await unstable_startWorker({
    config: join(process.cwd(), 'wrangler.toml'),
    bindings,
    dev: {
      server: { hostname: '127.0.0.1', port: 0 },
      inspector: false,
      persist: persistDir,
      watch: false,
      logLevel,
    },
  } as Parameters<typeof unstable_startWorker>[0]);
  await worker.ready;
  const base = (await worker.url).toString().replace(/\/$/, '');
  return { base, dispose: () => worker.dispose() };
}

/**
 * Mints a key through the real `npm run keys` CLI into the local KV under `persistDir` (the tests and
 * `npm run bench` use it).
 * @param args the CLI's `create` options (`--fund`, `--label`, `--daily-calc-limit`, ...)
 * @returns the key (`svc_dk_` and 32 letters or digits)
 * @throws {Error} when the CLI fails or prints no key
 */
export function mintKey(persistDir: string, args: readonly string[]): string {
  const key = execFileSync(
    process.execPath,
    [
      '--experimental-strip-types',
      '--disable-warning=ExperimentalWarning',
      'scripts/keys.ts',
      'create',
      ...args,
      '--persist-to',
      persistDir,
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 },
  )
    .trim()
    .split('\n')
    .pop();
  if (!key || !/^svc_dk_[0-9A-Za-z]{32}$/.test(key)) throw new Error('the keys CLI printed no key');
  return key;
}
