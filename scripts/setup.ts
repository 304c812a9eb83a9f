/**
 * `npm run setup`: gets the project ready to run (docs/configuration.md#deploy).
 *
 *   npm run setup                                      local development: writes .dev.vars
 *   npm run setup -- --remote [--origin URL] [--fund ID]   a Cloudflare account, for npm run deploy
 *
 * Without `--remote` it writes `.dev.vars` (a console session secret; with `DATABASE_URL` in the environment,
 * or given when asked, that URL and an `INVESTOR_REF_KEY`). With `--remote` (wrangler logged in) it creates
 * the KV namespaces wrangler.toml still has placeholder ids for and writes their ids into it, writes
 * `PUBLIC_ORIGIN` (`--origin`, or asked for) and `FUND_ID` (`--fund`), and sets the Worker's secrets it
 * lacks: `DATABASE_URL` from the environment (or asked for, optional), `INVESTOR_REF_KEY` with a database
 * and `CONSOLE_SESSION_SECRET`, each from the environment or generated. It asks only on a terminal; it
 * never prints a secret; run again, it keeps what is set. `--config PATH` names another wrangler.toml.
 * Exits 0 when `npm run deploy` would go ahead, 1 with what still stands in the way.
 */
import { createInterface } from 'node:readline/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setupLocal, setupRemote, type Ask } from './deployment.ts';
import { wranglerAccount } from './wrangler-account.ts';

const root = join(import.meta.dirname, '..');

/** A question on the terminal; a hidden answer is not echoed (a connection string holds a password). */
const ask: Ask = async (question, options) => {
  if (!options?.hidden) {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    try {
      return await rl.question(question);
    } finally {
      rl.close();
    }
  }
  process.stdout.write(question);
  const stdin = process.stdin;
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let answer = '';
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stdout.write('\n');
      if (error) reject(error);
      else resolve(answer);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return finish();
        if (ch === '\u0003') return finish(new Error('Interrupted.'));
        answer = ch === '\u007f' || ch === '\b' ? answer.slice(0, -1) : answer + ch;
      }
    };
    stdin.on('data', onData);
  });
};

const { values } = parseArgs({
  options: {
    remote: { type: 'boolean', default: false },
    origin: { type: 'string' },
    fund: { type: 'string' },
    config: { type: 'string', short: 'c' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log('Usage: npm run setup [-- --remote [--origin https://<host>] [--fund <fundId>] [--config wrangler.toml]]');
  process.exit(0);
}
const interactive = process.stdin.isTTY === true ? ask : undefined;
const log = (line: string) => console.log(line);
try {
  if (values.remote) {
    const configPath = values.config ?? join(root, 'wrangler.toml');
    const problems = await setupRemote({
      configPath,
      account: wranglerAccount(configPath),
      ...(values.origin !== undefined ? { origin: values.origin } : {}),
      ...(values.fund !== undefined ? { fundId: values.fund } : {}),
      env: process.env,
      ...(interactive ? { ask: interactive } : {}),
      log,
    });
    if (problems.length) {
      console.error(`\nNot ready to deploy yet:\n${problems.map((p) => `- ${p}`).join('\n')}`);
      process.exit(1);
    }
    console.log('\nReady: npm run deploy');
  } else {
    await setupLocal({ root, env: process.env, ...(interactive ? { ask: interactive } : {}), log });
    console.log('\nReady: npm run dev');
  }
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
