/**
 * `npm run deploy` (after `npm run build`, its `predeploy`): checks that the deployed Worker would work, then
 * runs `wrangler deploy` with the arguments given (`npm run deploy -- --dry-run --outdir dist`). Refuses,
 * before wrangler uploads anything, a wrangler.toml with a placeholder KV namespace id, no atomic records'
 * Durable Object or no usable `PUBLIC_ORIGIN`, and a Worker without `CONSOLE_SESSION_SECRET` (or with
 * `DATABASE_URL` but no `INVESTOR_REF_KEY`), each with the command that fixes it (scripts/deployment.ts).
 * A dry run checks wrangler.toml only: it needs no account, so the Worker's secrets are not read.
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { configPathOf, configProblems, readWranglerConfig, secretProblems } from './deployment.ts';
import { WRANGLER_BIN, wranglerAccount, wranglerEnv } from './wrangler-account.ts';

const root = join(import.meta.dirname, '..');
const args = process.argv.slice(2);
const configPath = resolve(configPathOf(args, join(root, 'wrangler.toml')));
const dryRun = args.includes('--dry-run');

try {
  const config = readWranglerConfig(configPath);
  let problems = configProblems(config);
  // The account is asked only once wrangler.toml is ready (a placeholder says enough, offline).
  if (!problems.length && !dryRun) problems = secretProblems(await wranglerAccount(configPath).listSecrets(), config.vars);
  if (problems.length) {
    console.error(`npm run deploy: not deploying; the Worker would not work:\n${problems.map((p) => `- ${p}`).join('\n')}`);
    process.exit(1);
  }
  if (dryRun) console.log("npm run deploy: wrangler.toml is ready (a dry run does not read the Worker's secrets).");
} catch (err) {
  console.error(`npm run deploy: ${(err as Error).message}`);
  process.exit(1);
}
const deploy = spawnSync(WRANGLER_BIN, ['deploy', ...args], { cwd: root, stdio: 'inherit', env: wranglerEnv() });
process.exit(deploy.status ?? 1);
