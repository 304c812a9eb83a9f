/**
 * The Cloudflare account as `npm run setup -- --remote` and `npm run deploy` reach it: the wrangler CLI
 * (`kv namespace list|create`, `secret list|bulk`), run with a configuration file and read as JSON where
 * wrangler prints JSON. Secrets go to wrangler on stdin, never on its command line, and are never printed.
 * wrangler must be logged in (`npx wrangler login`, or `CLOUDFLARE_API_TOKEN`); without it every call
 * fails with a message that says so.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { WranglerAccount } from './deployment.ts';

/** The project's directory. */
const ROOT = join(import.meta.dirname, '..');

/** The wrangler the project pins. */
export const WRANGLER_BIN = join(ROOT, 'node_modules', '.bin', 'wrangler');

/** wrangler's environment here: no metrics, no banner, its state under the project (docs/configuration.md). */
export function wranglerEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER_HIDE_BANNER: 'true',
    XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME ?? join(ROOT, '.config'),
  };
}

/** wrangler's words for "not logged in" (no stored login, or no `CLOUDFLARE_API_TOKEN` where it cannot ask). */
const NOT_LOGGED_IN = /not authenticated|non-interactive environment|wrangler login|CLOUDFLARE_API_TOKEN|authentication error/i;
/** Lines of wrangler's that say what failed. */
const SAYS_WHAT_FAILED = /^\s*(?:✘|▲|X)?\s*\[(?:ERROR|WARNING)\]|unable to|failed|not found|error:/i;
/** Lines of wrangler's that say nothing about the failure, or repeat what it was handed (a KV value). */
const NOISE =
  /Logs were written|report this error|open an issue|fallback value in non-interactive|^\s*Writing the value|^\s*Resource location|^\s*$/i;

/**
 * What wrangler said about its failure, in the order it said it: its `[ERROR]` and `[WARNING]` lines and
 * the lines that say what failed ("Unable to resolve Cloudflare's API hostname" may come first and the
 * error last), without colours, its log file's path or a KV value it echoed; with no such line, its last 6
 * lines less those. Linear in the output's length.
 */
export function wranglerFailure(output: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: wrangler's colour codes start with ESC
  const lines = output.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
  const said = lines.filter((l) => SAYS_WHAT_FAILED.test(l) && !NOISE.test(l));
  return (said.length ? said : lines.filter((l) => !NOISE.test(l)).slice(-6)).map((l) => l.trim()).join('\n');
}

/**
 * A failed wrangler call: "Log in first" when wrangler is not logged in (and nothing of wrangler's text),
 * else what wrangler said failed ({@link wranglerFailure}). Never the command line, which can hold a KV
 * value.
 */
export class WranglerError extends Error {
  /** True when wrangler failed for want of a login. */
  readonly notLoggedIn: boolean;
  constructor(command: string, output: string) {
    const notLoggedIn = NOT_LOGGED_IN.test(output);
    super(
      notLoggedIn
        ? `wrangler ${command}: not logged in to Cloudflare.\nLog in first: npx wrangler login (or set CLOUDFLARE_API_TOKEN).`
        : `wrangler ${command} failed:\n${wranglerFailure(output)}`,
    );
    this.name = 'WranglerError';
    this.notLoggedIn = notLoggedIn;
  }
}

/** The first JSON array in wrangler's output (warnings may precede it). */
function jsonArray<T>(output: string, command: string): T[] {
  const start = output.indexOf('[');
  try {
    if (start < 0) throw new Error('no JSON');
    return JSON.parse(output.slice(start)) as T[];
  } catch {
    throw new WranglerError(command, output);
  }
}

/**
 * The account through the wrangler CLI.
 * @param configPath the wrangler configuration (names the Worker whose secrets are read and set)
 * @param bin the wrangler executable (default: the project's)
 */
export function wranglerAccount(configPath: string, bin = WRANGLER_BIN): WranglerAccount {
  const run = (args: string[], input?: string): string => {
    try {
      return execFileSync(bin, [...args, '--config', configPath], {
        cwd: ROOT,
        encoding: 'utf8',
        input: input ?? '',
        stdio: ['pipe', 'pipe', 'pipe'],
        env: wranglerEnv(),
      });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      const firstFlag = args.findIndex((a) => a.startsWith('-'));
      const command = (firstFlag < 0 ? args : args.slice(0, firstFlag)).join(' ');
      throw new WranglerError(command, `${e.stdout ?? ''}\n${e.stderr ?? String(err)}`);
    }
  };
  const listKvNamespaces = async () =>
    jsonArray<{ id: string; title: string }>(run(['kv', 'namespace', 'list']), 'kv namespace list').map(({ id, title }) => ({ id, title }));
  return {
    listKvNamespaces,
    async createKvNamespace(title) {
      run(['kv', 'namespace', 'create', title]);
      // Read the id back from the account rather than from wrangler's human-readable output.
      const created = (await listKvNamespaces()).find((n) => n.title === title);
      if (!created) throw new WranglerError('kv namespace create', `the namespace "${title}" was not listed after it was created`);
      return created.id;
    },
    async listSecrets() {
      try {
        return jsonArray<{ name: string }>(run(['secret', 'list', '--format', 'json']), 'secret list').map((s) => s.name);
      } catch (err) {
        // A Worker that was never deployed has no secrets yet (wrangler: `Worker "<name>" not found.`).
        if (err instanceof WranglerError && /Worker "[^"\n]*"[^\n]* not found/.test(err.message)) return [];
        throw err;
      }
    },
    async putSecrets(secrets) {
      // JSON on stdin: the values never appear on a command line. A Worker that does not exist yet is
      // created, empty, with them; `npm run deploy` uploads its code.
      run(['secret', 'bulk'], JSON.stringify(secrets));
    },
  };
}
