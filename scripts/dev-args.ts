/**
 * The pure parts of `npm run dev` (scripts/dev.ts), kept apart so tests can import them without starting
 * anything: the wrangler command line, the private file its variables reach wrangler through, reading a
 * variable from the environment or `.dev.vars`, the port the server runs on, and the note of it that
 * `npm run console -- invite` reads for its link.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';

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
 * @param vars the arguments the script adds (the `--env-file`s of {@link envFileArgs}; repeatable, so never
 *   dropped). Never a secret's value: a command line is readable by every local user (`ps`).
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
    const value = readEnvFileValue(line.slice(eq + 1));
    return value === '' ? undefined : value;
  }
  return undefined;
}

/**
 * One `NAME=value` line of a `.dev.vars` or `.env` file as wrangler reads it (dotenv, then dotenv-expand):
 * every `$` written `\$`, since wrangler substitutes `$NAME` and `${NAME}` in every value, quoted or not, and
 * reads `\$` as `$` (a password `pa$word` would otherwise arrive as `pa`); the value as is when nothing in it
 * needs quoting, else in single quotes (which dotenv takes literally). {@link readEnvFileValue} reads it back.
 * @throws {Error} naming the variable, never its value, when the value holds a line break or another control
 *   character (it would end the line and start another variable), or needs quoting and holds a `'`
 */
export function envFileLine(name: string, value: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`${JSON.stringify(name)} is not a variable name.`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
  if (/[\u0000-\u001f\u007f]/.test(value))
    throw new Error(`${name} contains a line break or another control character: refused (it would write a line of its own).`);
  const written = value.replaceAll('$', '\\$');
  if (/^[^\s'"`#]([^#]*[^\s#])?$/.test(written)) return `${name}=${written}`;
  if (value.includes("'")) throw new Error(`${name} contains a quote (') and a space or #: percent-encode them in the URL.`);
  return `${name}='${written}'`;
}

/**
 * A value of a `.dev.vars` line (what follows `=`) as {@link envFileLine} wrote it: trimmed, out of its
 * quotes, and `\$` read as `$`, as wrangler reads it (without substituting variables).
 */
export function readEnvFileValue(raw: string): string {
  return raw
    .trim()
    .replace(/^(['"])(.*)\1$/, '$2')
    .replaceAll('\\$', '$');
}

/** A private file of variables for wrangler: where it is, and how to delete it. */
export interface DevEnvFile {
  file: string;
  /** Deletes the file and its folder (idempotent). */
  remove(): void;
}

/**
 * Writes the variables `npm run dev` adds (a `DATABASE_URL` from the environment, `INVESTOR_REF_KEY`, the
 * proxy's address) to a file of mode 0600 in a fresh folder of mode 0700, so that they reach wrangler through
 * `--env-file` and never through its command line.
 * @param parent where the folder is made (default: the system's temporary folder)
 * @throws {Error} as {@link envFileLine} does, before anything is written
 */
export function writeDevEnvFile(vars: ReadonlyMap<string, string>, parent = tmpdir()): DevEnvFile {
  const text = `${[...vars].map(([name, value]) => envFileLine(name, value)).join('\n')}\n`;
  const dir = mkdtempSync(join(parent, 'fund-edge-dev-')); // mkdtemp makes it 0700
  const file = join(dir, 'dev.env');
  writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The `--env-file` arguments that hand wrangler the script's file. Given any `--env-file`, wrangler stops
 * reading `.dev.vars` on its own, so `.dev.vars` (when there is one and the extra arguments name no env file
 * of their own) comes first and the script's file after it, whose values win.
 */
export function envFileArgs(root: string, file: string, extra: readonly string[]): string[] {
  const own = extra.some((a) => a === '--env-file' || a.startsWith('--env-file='));
  const devVars = join(root, '.dev.vars');
  return [...(!own && existsSync(devVars) ? ['--env-file', devVars] : []), '--env-file', file];
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

/** The value of `--flag value` or `--flag=value` in wrangler's extra arguments (the last one given). */
export function flagValue(extra: readonly string[], flag: string): string | undefined {
  let value: string | undefined;
  extra.forEach((arg, i) => {
    if (arg === flag) value = extra[i + 1];
    else if (arg.startsWith(`${flag}=`)) value = arg.slice(flag.length + 1);
  });
  return value;
}

/** The port `npm run dev` serves on: the `--port` it was given, else wrangler's default here (8787). */
export function devPort(extra: readonly string[]): number {
  const given = Number(flagValue(extra, '--port'));
  return Number.isInteger(given) && given > 0 && given < 65_536 ? given : Number(DEV_DEFAULTS.find(([flag]) => flag === '--port')![1]);
}

/** The developer console's URL on a local port (`localhost`: passkeys refuse an IP address). */
export function devConsoleUrl(port: number): string {
  return `http://localhost:${port}/developers/console`;
}

/** The folder of the local KV state: `--persist-to` (relative to `root`), else wrangler's `.wrangler/state`. */
export function localStateDir(root: string, persistTo: string | undefined): string {
  if (!persistTo) return join(root, '.wrangler', 'state');
  return isAbsolute(persistTo) ? persistTo : join(root, persistTo);
}

/** What `npm run dev` notes in its local state folder while it runs: where it serves, and its process. */
interface DevServerNote {
  origin: string;
  pid: number;
}

const NOTE = 'dev-server.json';

/** Notes the running dev server's console origin in the state folder (removed by {@link forgetDevServer}). */
export function noteDevServer(stateDir: string, port: number, pid = process.pid): void {
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(join(stateDir, NOTE), JSON.stringify({ origin: `http://localhost:${port}`, pid } satisfies DevServerNote));
}

/** Removes the note of the dev server `pid`, if it is still its own. */
export function forgetDevServer(stateDir: string, pid = process.pid): void {
  if (runningDevServer(stateDir, () => true)?.pid === pid) rmSync(join(stateDir, NOTE), { force: true });
}

/** Whether a process runs (signal 0 tests without sending anything). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}

/**
 * The dev server that uses this state folder, as it noted itself, or undefined when none is noted or its
 * process has ended.
 */
export function runningDevServer(stateDir: string, isAlive: (pid: number) => boolean = alive): DevServerNote | undefined {
  try {
    const note = JSON.parse(readFileSync(join(stateDir, NOTE), 'utf8')) as Partial<DevServerNote>;
    if (typeof note.origin !== 'string' || !/^http:\/\/localhost:\d+$/.test(note.origin) || typeof note.pid !== 'number') return undefined;
    return isAlive(note.pid) ? { origin: note.origin, pid: note.pid } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The base of an invitation link, and how it was chosen (the CLI prints that): `--base`; else
 * `PUBLIC_ORIGIN`; else, for the local state, the running `npm run dev`'s origin; else `http://localhost:8787`.
 */
export function inviteBase(options: { base?: string | undefined; publicOrigin?: string | undefined; remote: boolean; stateDir: string }): {
  base: string;
  how: string;
} {
  const trim = (url: string) => url.replace(/\/+$/, '');
  if (options.base) return { base: trim(options.base), how: 'from --base' };
  if (options.publicOrigin) return { base: trim(options.publicOrigin), how: 'from PUBLIC_ORIGIN' };
  const running = options.remote ? undefined : runningDevServer(options.stateDir);
  if (running) return { base: running.origin, how: `the running npm run dev's port (process ${running.pid}); --base sets another` };
  const origin = new URL(devConsoleUrl(devPort([]))).origin;
  return { base: origin, how: `npm run dev's default port: no running npm run dev noted its port here; --base sets another` };
}
