/**
 * Deploying from zero (scripts/setup.ts, scripts/deploy.ts, scripts/deployment.ts), offline:
 * - `npm run deploy` refuses wrangler.toml as the repository ships it (placeholder KV ids, no PUBLIC_ORIGIN)
 *   with the command that fixes each, before wrangler runs at all;
 * - `npm run setup -- --remote`, against a recording stand-in for the wrangler CLI on a copy of wrangler.toml,
 *   creates the namespaces that are missing (reusing one the account already has), writes their ids and
 *   PUBLIC_ORIGIN without touching another line, and sets the secrets the Worker lacks, through stdin, never
 *   printing them; run again it changes nothing, and with DATABASE_URL it adds that and INVESTOR_REF_KEY;
 * - then `npm run deploy -- --dry-run` passes the check and `wrangler deploy --dry-run` bundles the Worker
 *   with the new ids and the atomic records' Durable Object (no account needed);
 * - the secret check names a missing CONSOLE_SESSION_SECRET, and INVESTOR_REF_KEY with DATABASE_URL;
 * - `npm run setup` without `--remote` writes .dev.vars for local development.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  KV_BINDINGS,
  configProblems,
  parseDevVars,
  readWranglerConfig,
  secretProblems,
  setupLocal,
  setupRemote,
  withKvNamespaceId,
  withVar,
} from '../scripts/deployment.ts';
import { wranglerAccount } from '../scripts/wrangler-account.ts';

const ROOT = join(import.meta.dirname, '..');
const ORIGIN = 'https://fund-edge.example.com';
const ENV = {
  ...process.env,
  WRANGLER_SEND_METRICS: 'false',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  WRANGLER_HIDE_BANNER: 'true',
  XDG_CONFIG_HOME: join(ROOT, '.config'),
};

let dir: string;
let config: string;
const original = readFileSync(join(ROOT, 'wrangler.toml'), 'utf8');

/** `npm run deploy -- <args>` (its check, then wrangler deploy) on the copy of wrangler.toml. */
function deploy(...args: string[]) {
  return spawnSync(
    process.execPath,
    ['--experimental-strip-types', '--disable-warning=ExperimentalWarning', join(ROOT, 'scripts/deploy.ts'), '--config', config, ...args],
    { cwd: ROOT, encoding: 'utf8', env: ENV, timeout: 120_000 },
  );
}

/**
 * A stand-in for the wrangler CLI with an account in a JSON file: `kv namespace list|create` and
 * `secret list|bulk` as wrangler 4 answers them (a Worker never deployed: `secret list` fails with
 * `Worker "<name>" not found.`). Every call is recorded with its arguments and stdin.
 */
function fakeWrangler(statePath: string, logPath: string): string {
  const file = join(dir, 'wrangler-fake.cjs');
  writeFileSync(
    file,
    `#!/usr/bin/env node
const fs = require('node:fs');
const statePath = ${JSON.stringify(statePath)};
const account = JSON.parse(fs.readFileSync(statePath, 'utf8'));
const args = process.argv.slice(2);
const stdin = fs.readFileSync(0, 'utf8');
fs.appendFileSync(${JSON.stringify(logPath)}, JSON.stringify({ args, stdin }) + '\\n');
const save = () => fs.writeFileSync(statePath, JSON.stringify(account));
const cmd = args.slice(0, 3).join(' ');
if (cmd.startsWith('kv namespace list')) {
  console.log(JSON.stringify(account.namespaces.map((n) => ({ ...n, supports_url_encoding: true })), null, '  '));
} else if (cmd.startsWith('kv namespace create')) {
  const title = args[3];
  if (account.namespaces.some((n) => n.title === title)) { console.error('A KV namespace with the title "' + title + '" already exists.'); process.exit(1); }
  const id = require('node:crypto').createHash('md5').update(title).digest('hex');
  account.namespaces.push({ id, title });
  save();
  console.log('Creating namespace with title "' + title + '"\\n✨ Success!\\n[[kv_namespaces]]\\nbinding = "X"\\nid = "' + id + '"');
} else if (cmd.startsWith('secret list ')) {
  if (!account.worker) { console.error('✘ [ERROR] Worker "fund-edge" not found.\\n\\nIf this is a new Worker, run \\'wrangler deploy\\' first to create it.'); process.exit(1); }
  console.log(JSON.stringify(Object.keys(account.secrets).map((name) => ({ name, type: 'secret_text' }))));
} else if (cmd.startsWith('secret bulk ')) {
  account.worker = true;
  Object.assign(account.secrets, JSON.parse(stdin));
  save();
  console.log('✨ ' + Object.keys(JSON.parse(stdin)).length + ' secrets successfully uploaded');
} else {
  console.error('unexpected: ' + args.join(' '));
  process.exit(2);
}
`,
  );
  chmodSync(file, 0o755);
  return file;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fund-edge-deploy-'));
  config = join(dir, 'wrangler.toml');
  writeFileSync(config, original);
  // wrangler resolves `main`, `[assets]` and the aliases from the configuration's directory.
  for (const entry of ['lib', 'functions', 'public', 'node_modules', 'package.json', 'tsconfig.json'])
    symlinkSync(join(ROOT, entry), join(dir, entry));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run deploy on wrangler.toml as the repository ships it', () => {
  it('refuses, naming each placeholder KV id and the missing PUBLIC_ORIGIN with its fix, before wrangler runs', () => {
    const out = join(dir, 'out-refused');
    const res = deploy('--dry-run', '--outdir', out);
    expect(res.status).toBe(1);
    for (const [i, binding] of KV_BINDINGS.entries()) {
      expect(res.stderr).toContain(
        `The KV namespace ${binding} still has the placeholder id ${'0'.repeat(31)}${i + 1} in wrangler.toml. Fix: npm run setup -- --remote`,
      );
    }
    expect(res.stderr).toContain('PUBLIC_ORIGIN is empty in wrangler.toml [vars]');
    expect(res.stderr).toContain('Fix: npm run setup -- --remote --origin https://<your host>');
    // wrangler never ran: nothing was bundled, nothing uploaded.
    expect(existsSync(out)).toBe(false);
    expect(res.stdout).not.toContain('Total Upload');
  });
});

describe('npm run setup -- --remote, then npm run deploy', () => {
  let statePath: string;
  let logPath: string;
  let bin: string;
  const calls = () =>
    readFileSync(logPath, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { args: string[]; stdin: string });
  const account = () =>
    JSON.parse(readFileSync(statePath, 'utf8')) as { namespaces: { id: string; title: string }[]; secrets: Record<string, string> };

  beforeAll(() => {
    statePath = join(dir, 'account.json');
    logPath = join(dir, 'wrangler-calls.log');
    writeFileSync(logPath, '');
    // An account that already has one of the namespaces (an earlier run stopped half way) and no Worker yet.
    writeFileSync(
      statePath,
      JSON.stringify({ namespaces: [{ id: 'c0ffee'.padEnd(32, '0'), title: 'fund-edge-CONSOLE' }], secrets: {}, worker: false }),
    );
    bin = fakeWrangler(statePath, logPath);
  });

  it('creates the missing namespaces, reuses the existing one, writes the ids and PUBLIC_ORIGIN, and sets the session secret', async () => {
    const log: string[] = [];
    const problems = await setupRemote({
      configPath: config,
      account: wranglerAccount(config, bin),
      origin: ORIGIN,
      env: {},
      log: (l) => log.push(l),
    });
    expect(problems).toEqual([]);

    const { namespaces, secrets } = account();
    expect(namespaces.map((n) => n.title).sort()).toEqual(KV_BINDINGS.map((b) => `fund-edge-${b}`).sort());
    const ids = Object.fromEntries(readWranglerConfig(config).kvNamespaces.map((k) => [k.binding, k.id]));
    for (const binding of KV_BINDINGS) expect(ids[binding]).toBe(namespaces.find((n) => n.title === `fund-edge-${binding}`)!.id);
    expect(ids.CONSOLE).toBe('c0ffee'.padEnd(32, '0'));
    expect(calls().filter((c) => c.args[1] === 'namespace' && c.args[2] === 'create')).toHaveLength(3);

    // Only the four id lines and PUBLIC_ORIGIN changed; every comment is where it was.
    const before = original.split('\n');
    const after = readFileSync(config, 'utf8').split('\n');
    expect(after).toHaveLength(before.length);
    const changed = after.flatMap((line, i) => (line === before[i] ? [] : [line]));
    expect(changed).toEqual([...KV_BINDINGS.map((b) => `id = "${ids[b]}"`), `PUBLIC_ORIGIN = "${ORIGIN}"`]);

    expect(Object.keys(secrets)).toEqual(['CONSOLE_SESSION_SECRET']);
    expect(secrets.CONSOLE_SESSION_SECRET).toMatch(/^[0-9a-f]{64}$/);
    // The value went to wrangler on stdin, never on a command line, and was never printed.
    expect(calls().some((c) => c.args.some((a) => a.includes(secrets.CONSOLE_SESSION_SECRET!)))).toBe(false);
    expect(log.join('\n')).not.toContain(secrets.CONSOLE_SESSION_SECRET);
    expect(log).toContain('CONSOLE_SESSION_SECRET: generated and set');
  });

  it('run again with DATABASE_URL: keeps what is set, adds DATABASE_URL and a generated INVESTOR_REF_KEY', async () => {
    const session = account().secrets.CONSOLE_SESSION_SECRET;
    const url = 'postgres://fund:pw@ep-quiet-sea.eu-central-1.aws.neon.tech/neondb?sslmode=require';
    const log: string[] = [];
    const problems = await setupRemote({
      configPath: config,
      account: wranglerAccount(config, bin),
      env: { DATABASE_URL: url },
      log: (l) => log.push(l),
    });
    expect(problems).toEqual([]);
    const { secrets, namespaces } = account();
    expect(namespaces).toHaveLength(4);
    expect(secrets.CONSOLE_SESSION_SECRET).toBe(session);
    expect(secrets.DATABASE_URL).toBe(url);
    expect(secrets.INVESTOR_REF_KEY!.length).toBeGreaterThanOrEqual(16);
    expect(log.join('\n')).not.toMatch(/pw@|neon\.tech/);
    expect(log).toContain('CONSOLE_SESSION_SECRET: already set (kept)');

    const calls0 = calls().length;
    const again = await setupRemote({ configPath: config, account: wranglerAccount(config, bin), env: {}, log: () => {} });
    expect(again).toEqual([]);
    expect(
      calls()
        .slice(calls0)
        .map((c) => c.args.slice(0, 2).join(' ')),
    ).toEqual(['secret list']);
  });

  it('then npm run deploy -- --dry-run checks wrangler.toml and bundles the Worker with the new ids and the Durable Object', () => {
    const out = join(dir, 'out');
    const res = deploy('--dry-run', '--outdir', out);
    expect(res.stderr).not.toContain('not deploying');
    expect(res.status).toBe(0);
    expect(res.stdout).toContain('wrangler.toml is ready');
    expect(res.stdout).toMatch(/env\.ATOMIC \(AtomicRecord\)\s+Durable Object/);
    for (const k of readWranglerConfig(config).kvNamespaces) expect(res.stdout).toContain(`env.${k.binding} (${k.id})`);
    expect(res.stdout).toContain(`env.PUBLIC_ORIGIN ("${ORIGIN}")`);
    expect(res.stdout).toContain('--dry-run: exiting now.');
    expect(statSync(join(out, 'worker.js')).size).toBeGreaterThan(100_000);
  }, 120_000);
});

describe('the deploy check', () => {
  it('names a missing CONSOLE_SESSION_SECRET, and INVESTOR_REF_KEY once DATABASE_URL is set, with the fix', () => {
    expect(secretProblems([])).toEqual([
      'The Worker has no secret CONSOLE_SESSION_SECRET: its developer console would answer 503. Fix: npm run setup -- --remote (it generates one), or `openssl rand -hex 32 | npx wrangler secret put CONSOLE_SESSION_SECRET`.',
    ]);
    expect(secretProblems(['CONSOLE_SESSION_SECRET', 'DATABASE_URL'])).toEqual([
      'The Worker has DATABASE_URL but no secret INVESTOR_REF_KEY: it would refuse every fund-data request from the database. Fix: npm run setup -- --remote (it generates one), or `openssl rand -base64 24 | npx wrangler secret put INVESTOR_REF_KEY`.',
    ]);
    expect(secretProblems(['CONSOLE_SESSION_SECRET', 'DATABASE_URL', 'INVESTOR_REF_KEY'])).toEqual([]);
    expect(secretProblems(['CONSOLE_SESSION_SECRET'])).toEqual([]);
  });

  it('refuses a loopback or malformed PUBLIC_ORIGIN and a wrangler.toml without the atomic records', () => {
    const ready = readWranglerConfig(config);
    expect(configProblems(ready)).toEqual([]);
    expect(configProblems({ ...ready, vars: { ...ready.vars, PUBLIC_ORIGIN: 'http://localhost:8787' } })[0]).toMatch(
      /^PUBLIC_ORIGIN is a loopback origin/,
    );
    expect(configProblems({ ...ready, vars: { ...ready.vars, PUBLIC_ORIGIN: 'https://fund-edge.example.com/api' } })[0]).toMatch(
      /^PUBLIC_ORIGIN must be an origin/,
    );
    expect(configProblems({ ...ready, vars: { ...ready.vars, CORS_ORIGINS: 'app.example' } })).toEqual([
      'CORS_ORIGINS must be "*" or comma-separated origins such as https://app.example (scheme, host and port only) in wrangler.toml [vars]: the Worker would answer every request with 500 (config_invalid). Fix it there (docs/configuration.md#variables-and-secrets).',
    ]);
    expect(configProblems({ ...ready, vars: { ...ready.vars, DATABASE_WS_PROXY: '127.0.0.1:5488/v1' } })[0]).toMatch(
      /^DATABASE_WS_PROXY is set/,
    );
    expect(configProblems({ ...ready, durableObjects: [] })[0]).toMatch(/must bind the Durable Object ATOMIC to the class AtomicRecord/);
    expect(configProblems({ ...ready, migratedClasses: [] })[0]).toMatch(/create it in a migration/);
    expect(configProblems({ ...ready, kvNamespaces: ready.kvNamespaces.filter((k) => k.binding !== 'OAUTH_KV') })).toEqual([
      'The KV namespace OAUTH_KV is not bound in wrangler.toml. Fix: npm run setup -- --remote, or `npx wrangler kv namespace create fund-edge-OAUTH_KV` and put the id it prints into wrangler.toml.',
    ]);
  });
});

describe('wrangler.toml edits', () => {
  it('rewrite one value and keep every other line, or add what is missing', () => {
    const toml = [
      '# top',
      '[[kv_namespaces]]',
      'binding = "A"',
      'id = "1" # note',
      '',
      '[vars]',
      '# X = "commented"',
      'Y = "y"',
      '',
      '# next',
      '[[migrations]]',
      'tag = "v1"',
    ].join('\n');
    expect(withKvNamespaceId(toml, 'A', 'ab')).toBe(toml.replace('id = "1" # note', 'id = "ab" # note'));
    expect(withKvNamespaceId(toml, 'B', 'cd')).toBe(`${toml}\n\n[[kv_namespaces]]\nbinding = "B"\nid = "cd"\n`);
    expect(withVar(toml, 'Y', 'z')).toBe(toml.replace('Y = "y"', 'Y = "z"'));
    // Not the commented-out line: a new one after the table's last key, before the next table's comments.
    expect(withVar(toml, 'X', 'x')).toBe(toml.replace('Y = "y"', 'Y = "y"\nX = "x"'));
    expect(withVar('name = "w"\n', 'X', 'x')).toBe('name = "w"\n\n[vars]\nX = "x"\n');
  });
});

describe('npm run setup (local development)', () => {
  it('writes .dev.vars: a session secret, and with DATABASE_URL that URL and an INVESTOR_REF_KEY; run again it keeps them', async () => {
    const root = mkdtempSync(join(tmpdir(), 'fund-edge-local-'));
    try {
      writeFileSync(join(root, '.dev.vars'), 'DOCS_URL=https://docs.example\n');
      const url = 'postgres://postgres@127.0.0.1:5432/fund_edge';
      const added = await setupLocal({ root, env: { DATABASE_URL: url }, log: () => {} });
      expect(added.sort()).toEqual(['CONSOLE_SESSION_SECRET', 'DATABASE_URL', 'INVESTOR_REF_KEY']);
      const vars = parseDevVars(readFileSync(join(root, '.dev.vars'), 'utf8'));
      expect(vars.get('DOCS_URL')).toBe('https://docs.example');
      expect(vars.get('DATABASE_URL')).toBe(url);
      expect(vars.get('INVESTOR_REF_KEY')!.length).toBeGreaterThanOrEqual(16);
      expect(vars.get('CONSOLE_SESSION_SECRET')).toMatch(/^[0-9a-f]{64}$/);
      expect(statSync(join(root, '.dev.vars')).mode & 0o077).toBe(0);
      expect(await setupLocal({ root, env: {}, log: () => {} })).toEqual([]);
      expect(parseDevVars(readFileSync(join(root, '.dev.vars'), 'utf8'))).toEqual(vars);
      await expect(setupLocal({ root, env: { DATABASE_URL: 'mysql://x' }, log: () => {} })).rejects.toThrow(
        'DATABASE_URL must be a postgres:// or postgresql:// URL with a host.',
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('refuses a DATABASE_URL with a line break in it rather than writing a line of its own', async () => {
    const root = mkdtempSync(join(tmpdir(), 'fund-edge-local-'));
    try {
      writeFileSync(join(root, '.dev.vars'), 'DOCS_URL=https://docs.example\n');
      for (const url of ['postgres://postgres@127.0.0.1:5432/db\nINVESTOR_REF_KEY=chosen-by-the-url-0123', 'postgres://u@h/db\r\nX=1'])
        await expect(setupLocal({ root, env: { DATABASE_URL: url }, log: () => {} })).rejects.toThrow(
          /^DATABASE_URL contains a line break or another control character/,
        );
      expect(readFileSync(join(root, '.dev.vars'), 'utf8')).toBe('DOCS_URL=https://docs.example\n');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('without a database writes only the session secret', async () => {
    const root = mkdtempSync(join(tmpdir(), 'fund-edge-local-'));
    try {
      expect(await setupLocal({ root, env: {}, log: () => {} })).toEqual(['CONSOLE_SESSION_SECRET']);
      expect([...parseDevVars(readFileSync(join(root, '.dev.vars'), 'utf8')).keys()]).toEqual(['CONSOLE_SESSION_SECRET']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
