/**
 * The pure parts of `npm run dev` (scripts/dev.ts), kept apart so tests can import them without starting
 * anything: the wrangler command line, and reading a variable from the environment or `.dev.vars`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** wrangler dev's defaults here: loopback, port 8787. */
export const DEV_DEFAULTS: readonly (readonly [flag: string, value: string])[] = [
  ['--ip', '127.0.0.1'],
  ['--port', '8787'],
];

/**
 * wrangler's arguments: `dev`, each default unless the extra arguments give the same flag (as `--port 8788`
 * or `--port=8788`), then the extra arguments as given. wrangler refuses a repeated `--port` ("expects a
 * single value"), so a default must be dropped, not followed by the override.
 * @param extra what followed `npm run dev --`
 * @param vars `--var NAME:value` pairs the script adds (repeatable, so never dropped)
 */
export function wranglerDevArgs(extra: readonly string[], vars: readonly string[] = [], defaults = DEV_DEFAULTS): string[] {
  const given = new Set(extra.filter((a) => a.startsWith('--')).map((a) => a.split('=')[0]));
  const kept = defaults.filter(([flag]) => !given.has(flag)).flat();
  return ['dev', ...kept, ...vars, ...extra];
}

/**
 * A variable as `npm run dev` hands it to the Worker: from the environment, else from `.dev.vars` (wrangler's
 * local secrets file, `NAME=value` lines, optionally quoted).
 * @returns the value, or undefined when unset or empty in both
 */
export function devVar(root: string, name: string): string | undefined {
  if (process.env[name]) return process.env[name];
  const file = join(root, '.dev.vars');
  if (!existsSync(file)) return undefined;
  for (const line of readFileSync(file, 'utf8').split(/\r?\n/)) {
    const eq = line.indexOf('=');
    if (eq < 0 || line.slice(0, eq).trim() !== name) continue;
    const value = line
      .slice(eq + 1)
      .trim()
      .replace(/^(['"])(.*)\1$/, '$2');
    return value === '' ? undefined : value;
  }
  return undefined;
}

/**
 * The message `npm run dev` stops with when the Worker would refuse real fund data: `DATABASE_URL` set
 * without `INVESTOR_REF_KEY` (see `fundSource` in lib/fund/source.ts); undefined when the setup is fine.
 */
export function investorRefKeyProblem(databaseUrl: string | undefined, investorRefKey: string | undefined): string | undefined {
  if (!databaseUrl || investorRefKey) return undefined;
  return [
    'DATABASE_URL is set but INVESTOR_REF_KEY is not: the Worker would refuse to serve fund data from the database',
    '(investor pseudonyms must be keyed by a secret of this deployment). Add a random secret of 16+ characters, e.g.',
    `  echo "INVESTOR_REF_KEY=$(node -e "console.log(crypto.randomBytes(24).toString('base64url'))")" >> .dev.vars`,
    'and in production: npx wrangler secret put INVESTOR_REF_KEY',
  ].join('\n');
}
