/**
 * `npm run dev`'s command line (docs/configuration.md#variables-and-secrets), its INVESTOR_REF_KEY check, the
 * port its console link names, and the note of that port `npm run console -- invite` links to.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseDevVars } from '../scripts/deployment.ts';
import {
  devConsoleUrl,
  devPort,
  devVar,
  envFileArgs,
  envFileLine,
  forgetDevServer,
  inviteBase,
  investorRefKeyProblem,
  localStateDir,
  noteDevServer,
  runningDevServer,
  wranglerDevArgs,
  writeDevEnvFile,
} from '../scripts/dev-args.ts';

/**
 * How wrangler (dotenv 16 and dotenv-expand 12, which wrangler bundles) reads a `.dev.vars` / `--env-file`
 * file: dotenv's line pattern and unquoting, then dotenv-expand's substitution of `$NAME` and `${NAME}` not
 * preceded by a backslash (here by nothing: no such variable is set) and its `\$` read as `$`, in quoted
 * values too; copied so the test reads the file as wrangler does.
 */
function dotenvParse(text: string): Record<string, string> {
  const LINE =
    /(?:^|^)\s*(?:export\s+)?([\w.-]+)(?:\s*=\s*?|:\s+?)(\s*'(?:\\'|[^'])*'|\s*"(?:\\"|[^"])*"|\s*`(?:\\`|[^`])*`|[^#\r\n]+)?\s*(?:#.*)?(?:$|$)/gm;
  const out: Record<string, string> = {};
  for (const m of text.replace(/\r\n?/g, '\n').matchAll(LINE)) {
    const value = (m[2] ?? '').trim();
    out[m[1]!] = value
      .replace(/^(['"`])([\s\S]*)\1$/gm, '$2')
      .replace(/(?<!\\)\$\{[^{}]+\}|(?<!\\)\$[A-Za-z_][A-Za-z0-9_]*/g, '')
      .replace(/\\\$/g, '$');
  }
  return out;
}

describe('the variables npm run dev adds reach wrangler through a private file, not its command line', () => {
  const secrets = new Map([
    ['INVESTOR_REF_KEY', 'ref-key-0123456789abcdef'],
    ['DATABASE_URL', 'postgres://app:pa ss#word@127.0.0.1:5432/fund_edge'],
    ['DATABASE_WS_PROXY', '127.0.0.1:40001/v2'],
  ]);

  it('writes them to a 0600 file in a 0700 folder, read back exactly, and the arguments name only the file', () => {
    const root = mkdtempSync(join(tmpdir(), 'dev-root-'));
    const env = writeDevEnvFile(secrets);
    try {
      expect(statSync(env.file).mode & 0o777).toBe(0o600);
      expect(statSync(dirname(env.file)).mode & 0o777).toBe(0o700);
      expect(dotenvParse(readFileSync(env.file, 'utf8'))).toEqual(Object.fromEntries(secrets));
      const args = wranglerDevArgs([], envFileArgs(root, env.file, []));
      expect(args).toEqual(['dev', '--ip', '127.0.0.1', '--port', '8787', '--env-file', env.file]);
      for (const value of secrets.values()) expect(args.join(' ')).not.toContain(value);
      expect(args.join(' ')).not.toContain('--var');
      // wrangler stops reading .dev.vars once given an --env-file: it comes first, the script's file wins.
      writeFileSync(join(root, '.dev.vars'), 'CONSOLE_SESSION_SECRET=s\n');
      expect(envFileArgs(root, env.file, [])).toEqual(['--env-file', join(root, '.dev.vars'), '--env-file', env.file]);
      expect(envFileArgs(root, env.file, ['--env-file', 'mine.env'])).toEqual(['--env-file', env.file]);
    } finally {
      env.remove();
      rmSync(root, { recursive: true, force: true });
    }
    expect(existsSync(dirname(env.file))).toBe(false);
  });

  it('refuses a value with a line break (or another control character) instead of writing a line of its own', () => {
    for (const bad of ['postgres://u@h/db\nINVESTOR_REF_KEY=x', 'postgres://u@h/db\rX=1', 'a\u0000b', 'tab\there'])
      expect(() => envFileLine('DATABASE_URL', bad)).toThrow(/^DATABASE_URL contains a line break or another control character/);
    expect(() => writeDevEnvFile(new Map([['DATABASE_URL', 'postgres://u@h/db\nX=1']]))).toThrow(/line break/);
    expect(() => envFileLine('DATABASE_URL', "it's # here")).toThrow(/quote/);
    expect(() => envFileLine('A=B', 'x')).toThrow(/not a variable name/);
    // Whatever is accepted reads back exactly, in wrangler's reader and in the project's own.
    for (const value of [
      'postgres://u@h/db',
      ' lead',
      'trail ',
      'a#b',
      '"q"',
      "x'y",
      '`b`',
      'p w',
      '\\n',
      'postgres://u:pa$word@h/db',
      '$HOME $\u{7B}A} $',
      'a\\$b',
    ])
      expect([dotenvParse(envFileLine('V', value)).V, parseDevVars(envFileLine('V', value)).get('V')]).toEqual([value, value]);
  });
});

describe('wranglerDevArgs', () => {
  it('uses loopback and 8787 by default, the script vars after them', () => {
    expect(wranglerDevArgs([], ['--var', 'A:b'])).toEqual(['dev', '--ip', '127.0.0.1', '--port', '8787', '--var', 'A:b']);
  });

  it.each([
    [
      ['--port', '8788'],
      ['dev', '--ip', '127.0.0.1', '--port', '8788'],
    ],
    [['--port=8788'], ['dev', '--ip', '127.0.0.1', '--port=8788']],
    [
      ['--ip', '0.0.0.0'],
      ['dev', '--port', '8787', '--ip', '0.0.0.0'],
    ],
    [
      ['--ip', '::1', '--port', '9000', '--log-level', 'warn'],
      ['dev', '--ip', '::1', '--port', '9000', '--log-level', 'warn'],
    ],
    [
      ['--local-protocol', 'https'],
      ['dev', '--ip', '127.0.0.1', '--port', '8787', '--local-protocol', 'https'],
    ],
  ])('%j overrides only the flags it gives, each flag once', (extra, expected) => {
    const args = wranglerDevArgs(extra);
    expect(args).toEqual(expected);
    for (const flag of ['--port', '--ip']) expect(args.filter((a) => a.split('=')[0] === flag).length).toBeLessThanOrEqual(1);
  });
});

describe('INVESTOR_REF_KEY at dev time', () => {
  it('stops with a message when DATABASE_URL is set without it, and only then', () => {
    expect(investorRefKeyProblem('postgres://u@127.0.0.1:5432/db', undefined)).toMatch(/^DATABASE_URL is set but INVESTOR_REF_KEY is not/);
    expect(investorRefKeyProblem('postgres://u@127.0.0.1:5432/db', 'a-secret-of-sixteen+')).toBeUndefined();
    expect(investorRefKeyProblem(undefined, undefined)).toBeUndefined();
  });

  it('reads .dev.vars (quoted or not) when the environment has no value', () => {
    const root = mkdtempSync(join(tmpdir(), 'dev-vars-'));
    writeFileSync(join(root, '.dev.vars'), 'DATABASE_URL="postgres://u@127.0.0.1/db"\nINVESTOR_REF_KEY = abc def\nEMPTY=\n');
    expect(devVar(root, 'DATABASE_URL_NOT_SET_HERE')).toBeUndefined();
    expect(devVar(root, 'INVESTOR_REF_KEY')).toBe(process.env.INVESTOR_REF_KEY || 'abc def');
    expect(devVar(root, 'EMPTY')).toBeUndefined();
  });
});

describe('the port npm run dev serves on', () => {
  it.each([
    [[], 8787],
    [['--port', '8788'], 8788],
    [['--port=9000'], 9000],
    [['--ip', '0.0.0.0', '--port', '8790', '--log-level', 'warn'], 8790],
    [['--port', 'nope'], 8787],
  ] as const)('%j: %i, in the console link', (extra, port) => {
    expect(devPort(extra)).toBe(port);
    expect(devConsoleUrl(devPort(extra))).toBe(`http://localhost:${port}/developers/console`);
  });

  it('is noted in the local state folder while the server runs, and forgotten after', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dev-note-'));
    expect(runningDevServer(dir)).toBeUndefined();
    noteDevServer(dir, 8788);
    expect(runningDevServer(dir)).toEqual({ origin: 'http://localhost:8788', pid: process.pid });
    expect(runningDevServer(dir, () => false)).toBeUndefined();
    forgetDevServer(dir, process.pid + 1); // not its own note: kept
    expect(runningDevServer(dir)).toBeDefined();
    forgetDevServer(dir);
    expect(runningDevServer(dir)).toBeUndefined();
    expect(localStateDir('/p', undefined)).toBe('/p/.wrangler/state');
    expect(localStateDir('/p', 'tmp/state')).toBe('/p/tmp/state');
    expect(localStateDir('/p', '/abs')).toBe('/abs');
  });
});

describe("an invitation link's base", () => {
  const running = mkdtempSync(join(tmpdir(), 'dev-note-'));
  noteDevServer(running, 8790);
  const none = mkdtempSync(join(tmpdir(), 'dev-note-'));

  it('is --base, else PUBLIC_ORIGIN, else the running dev server, else 8787, and says which', () => {
    expect(inviteBase({ base: 'https://x.example/', remote: false, stateDir: running })).toEqual({
      base: 'https://x.example',
      how: 'from --base',
    });
    expect(inviteBase({ publicOrigin: 'https://y.example', remote: false, stateDir: running })).toEqual({
      base: 'https://y.example',
      how: 'from PUBLIC_ORIGIN',
    });
    expect(inviteBase({ remote: false, stateDir: running })).toEqual({
      base: 'http://localhost:8790',
      how: `the running npm run dev's port (process ${process.pid}); --base sets another`,
    });
    const fallback = inviteBase({ remote: false, stateDir: none });
    expect(fallback.base).toBe('http://localhost:8787');
    expect(fallback.how).toMatch(/default port: no running npm run dev noted its port here; --base sets another/);
    // The deployed namespaces have nothing to do with a local server.
    expect(inviteBase({ remote: true, stateDir: running }).base).toBe('http://localhost:8787');
  });
});
