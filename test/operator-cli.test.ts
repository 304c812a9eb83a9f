/**
 * What the operator's CLIs say when something is in the way: `npm run keys` lists keys under a header
 * line; `--remote` with wrangler.toml's placeholder KV id is refused before wrangler runs, naming the fix;
 * wrangler not logged in is "Log in first: npx wrangler login", with nothing of wrangler's command line (the
 * key's hash and record) or its text; and a wrangler failure keeps the line that says what failed, wherever
 * wrangler printed it (scripts/wrangler-account.ts, scripts/wrangler-kv.ts).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WranglerError } from '../scripts/wrangler-account.ts';
import { wranglerKv } from '../scripts/wrangler-kv.ts';

const dir = mkdtempSync(join(tmpdir(), 'fund-edge-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `npm run keys -- <args>` as the script runs it (Node with type stripping). */
function keys(args: string[]) {
  return spawnSync(process.execPath, ['--experimental-strip-types', '--disable-warning=ExperimentalWarning', 'scripts/keys.ts', ...args], {
    encoding: 'utf8',
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_HIDE_BANNER: 'true' },
  });
}

/** What wrangler 4 prints for `kv key put --remote` with no login and no terminal (colours as it sends them). */
const NOT_LOGGED_IN_OUTPUT = [
  'Resource location: remote ',
  'Writing the value "{\\"keyId\\":\\"key_secretRecord\\"}" to key "ab12hash" on namespace binding: "API_KEYS".',
  "\u001b[31m✘ \u001b[41;31m[\u001b[41;97mERROR\u001b[41;31m]\u001b[0m \u001b[1mIn a non-interactive environment, it's necessary to set a CLOUDFLARE_API_TOKEN environment variable for wrangler to work.\u001b[0m",
  '🪵  Logs were written to "/root/.config/.wrangler/logs/wrangler.log"',
].join('\n');

describe('npm run keys', () => {
  it('lists keys under a header line that names the columns', () => {
    const persist = join(dir, 'kv');
    const created = keys(['create', '--fund', 'sample-fund', '--label', 'desk', '--persist-to', persist]);
    expect(created.status, created.stderr).toBe(0);
    const listed = keys(['list', '--persist-to', persist]);
    expect(listed.status, listed.stderr).toBe(0);
    const [header, row, ...rest] = listed.stdout.trimEnd().split('\n');
    expect(header).toBe(['prefix', 'keyId', 'scope', 'fund', 'account', 'calc calls/day', 'state', 'label'].join('\t'));
    expect(row!.split('\t')).toEqual([
      created.stdout.trim().slice(0, 12),
      expect.stringMatching(/^key_/),
      'fund',
      'sample-fund',
      '-',
      '10000',
      'active',
      'desk',
    ]);
    expect(rest).toEqual([]);
  });

  it('--remote with the placeholder KV id of wrangler.toml: refused before wrangler runs, with the fix', () => {
    const res = keys(['create', '--fund', 'sample-fund', '--remote']);
    expect(res.status).toBe(1);
    expect(res.stderr.trim()).toBe(
      'keys: The KV namespace API_KEYS still has the placeholder id 00000000000000000000000000000001 in wrangler.toml. Fix: npm run setup -- --remote (it creates the namespace and writes its id), or `npx wrangler kv namespace create fund-edge-API_KEYS` and put the id it prints into wrangler.toml.',
    );
    expect(res.stdout).toBe('');
  });
});

describe('a failed wrangler call', () => {
  it('not logged in: "Log in first", and nothing of the command line or of what wrangler echoed', async () => {
    const fake = join(dir, 'wrangler-not-logged-in.sh');
    writeFileSync(join(dir, 'out.txt'), NOT_LOGGED_IN_OUTPUT);
    writeFileSync(fake, `#!/bin/sh\ncat "${join(dir, 'out.txt')}" >&2\nexit 1\n`);
    chmodSync(fake, 0o755);
    const kv = wranglerKv('API_KEYS', { remote: false, bin: fake });
    const err = await kv.put('ab12hash', '{"keyId":"key_secretRecord"}').then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toBe(
      'wrangler kv key put: not logged in to Cloudflare.\nLog in first: npx wrangler login (or set CLOUDFLARE_API_TOKEN).',
    );
  });

  it('keeps the line that says what failed, even when more than six lines follow it', () => {
    const output = [
      "▲ [WARNING] Unable to resolve Cloudflare's API hostname (api.cloudflare.com or api.cloudflare.com).",
      '',
      '✘ [ERROR] A request to the Cloudflare API (/accounts/0123/storage/kv/namespaces) failed.',
      '',
      '  fetch failed [code: 0]',
      '  ',
      '  If you think this is a bug, please open an issue at: https://github.com/cloudflare/workers-sdk/issues/new/choose',
      '',
      '? Would you like to report this error to Cloudflare?',
      '🤖 Using fallback value in non-interactive context: no',
      '🪵  Logs were written to "/root/.config/.wrangler/logs/wrangler.log"',
    ].join('\n');
    expect(new WranglerError('kv namespace list', output).message).toBe(
      [
        'wrangler kv namespace list failed:',
        "▲ [WARNING] Unable to resolve Cloudflare's API hostname (api.cloudflare.com or api.cloudflare.com).",
        '✘ [ERROR] A request to the Cloudflare API (/accounts/0123/storage/kv/namespaces) failed.',
        'fetch failed [code: 0]',
      ].join('\n'),
    );
  });

  it('with no line that says what failed, gives its last lines', () => {
    expect(new WranglerError('secret list', 'one\ntwo\nthree').message).toBe('wrangler secret list failed:\none\ntwo\nthree');
  });
});
