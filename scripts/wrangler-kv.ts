/**
 * A KV namespace of the Worker driven through `wrangler kv key` (get, put, list, delete), for the operator
 * CLIs (`npm run keys`, `npm run console`). Local by default (the `.wrangler/state` that `npm run dev` reads,
 * or `--persist-to DIR`); `remote` uses the deployed namespace (wrangler must be logged in). Values are
 * passed to wrangler as arguments and never printed.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Where the namespace lives. */
export interface KvTarget {
  remote: boolean;
  persistTo?: string;
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
  const location = target.remote ? ['--remote'] : ['--local', ...(target.persistTo ? ['--persist-to', target.persistTo] : [])];
  const run = (args: string[]) =>
    execFileSync(join(root, 'node_modules', '.bin', 'wrangler'), ['kv', 'key', ...args, '--binding', binding, ...location], {
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
    });
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
