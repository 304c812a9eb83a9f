/**
 * A KV namespace of the Worker driven through `wrangler kv key` (get, put, list, delete), for the operator
 * CLIs (`npm run keys`, `npm run console`). Local by default (the `.wrangler/state` that `npm run dev` reads,
 * or `--persist-to DIR`); `remote` uses the deployed namespace (wrangler must be logged in; a placeholder id
 * in wrangler.toml is refused first, with its fix). Values are passed to wrangler as arguments and never
 * printed: a failed call says what wrangler said failed, or "Log in first", never its command line.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configProblems, readWranglerConfig } from './deployment.ts';
import { WranglerError } from './wrangler-account.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Where the namespace lives. */
export interface KvTarget {
  remote: boolean;
  persistTo?: string;
  /** The wrangler configuration (default: the project's wrangler.toml). */
  config?: string;
  /** The wrangler executable (default: the project's; tests hand in a stand-in). */
  bin?: string;
}

/**
 * Why the deployed namespace bound as `binding` cannot be reached from `config`: its id is missing or still
 * wrangler.toml's placeholder (the message says the fix, as `npm run deploy` does); none when it can.
 */
export function remoteKvProblem(binding: string, config: string): string | undefined {
  const problems = configProblems(readWranglerConfig(config), config === join(root, 'wrangler.toml') ? 'wrangler.toml' : config);
  return problems.find((p) => p.startsWith(`The KV namespace ${binding} `));
}

/** The KV operations the CLIs use. */
export interface WranglerKv {
  get(name: string): Promise<string | null>;
  put(name: string, value: string, options?: { metadata?: unknown; expirationTtl?: number }): Promise<void>;
  delete(name: string): Promise<void>;
  list(options?: {
    prefix?: string;
    cursor?: string;
  }): Promise<{ keys: { name: string; metadata?: unknown }[]; list_complete: boolean; cursor?: string }>;
}

/** The namespace bound as `binding` in wrangler.toml, through `wrangler kv key`. */
export function wranglerKv(binding: string, target: KvTarget): WranglerKv {
  const config = target.config ?? join(root, 'wrangler.toml');
  if (target.remote) {
    // As `npm run deploy` does: a placeholder id is said offline, before wrangler is asked anything.
    const problem = remoteKvProblem(binding, config);
    if (problem) throw new Error(problem);
  }
  const location = target.remote ? ['--remote'] : ['--local', ...(target.persistTo ? ['--persist-to', target.persistTo] : [])];
  const run = (args: string[]) => {
    try {
      return execFileSync(
        target.bin ?? join(root, 'node_modules', '.bin', 'wrangler'),
        ['kv', 'key', ...args, '--binding', binding, ...location, '--config', config],
        {
          cwd: root,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
          env: {
            ...process.env,
            WRANGLER_SEND_METRICS: 'false',
            WRANGLER_HIDE_BANNER: 'true',
            ...(target.remote ? {} : { CLOUDFLARE_CF_FETCH_ENABLED: 'false' }),
            XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME ?? join(root, '.config'),
          },
        },
      );
    } catch (err) {
      // Not execFileSync's message: it repeats the command line, which holds the key's hash and record.
      const e = err as { stdout?: string; stderr?: string };
      throw new WranglerError(`kv key ${args[0]}`, `${e.stdout ?? ''}\n${e.stderr ?? ''}`);
    }
  };
  return {
    async get(name) {
      const out = run(['get', name, '--text']);
      // wrangler prints this (exit code 0) for a missing key; every stored value here is JSON or a timestamp.
      return out.trim() === 'Value not found' ? null : out.replace(/\n$/, '');
    },
    async put(name, value, options) {
      run([
        'put',
        name,
        value,
        ...(options?.metadata ? ['--metadata', JSON.stringify(options.metadata)] : []),
        ...(options?.expirationTtl ? ['--ttl', String(options.expirationTtl)] : []),
      ]);
    },
    async delete(name) {
      run(['delete', name]);
    },
    async list(options) {
      const out = run(['list', ...(options?.prefix ? ['--prefix', options.prefix] : [])]);
      const start = out.indexOf('[');
      const keys = start < 0 ? [] : (JSON.parse(out.slice(start)) as { name: string; metadata?: unknown }[]);
      return { keys, list_complete: true };
    },
  };
}
