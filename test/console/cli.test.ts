/**
 * The operator CLI `npm run console` (scripts/console.ts) over local KV in a folder of its own, through the
 * same `wrangler kv key` path the real command uses: invite, list, plan, revoke, and bad arguments; and an
 * invitation's link on the port of the `npm run dev` (the real script) running on the same local state.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAccount, mintAccountKey, readAccount } from '../../lib/console/accounts.ts';
import { usableInvitation } from '../../lib/console/invitations.ts';
import { hashKey } from '../../lib/keys.ts';
import { parseDuration } from '../../scripts/console.ts';
import { wranglerKv } from '../../scripts/wrangler-kv.ts';
import { FakeAtomicNamespace } from '../support/fakes.ts';
import { freePort } from '../support/clients.ts';

const persistDir = mkdtempSync(join(tmpdir(), 'fund-edge-console-cli-'));
afterAll(() => rmSync(persistDir, { recursive: true, force: true }));

/** Runs the CLI; returns stdout, stderr and the exit code. */
function cli(args: string[]): { stdout: string; stderr: string; status: number } {
  try {
    const stdout = execFileSync(
      process.execPath,
      ['--experimental-strip-types', '--disable-warning=ExperimentalWarning', 'scripts/console.ts', ...args, '--persist-to', persistDir],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    return { stdout, stderr: '', status: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; status: number };
    return { stdout: e.stdout, stderr: e.stderr, status: e.status };
  }
}

describe('npm run console', () => {
  it('parses --expires durations and refuses others', () => {
    expect(parseDuration('7d')).toBe(604_800);
    expect(parseDuration('12h')).toBe(43_200);
    expect(parseDuration('30m')).toBe(1_800);
    for (const bad of ['0m', '91d', '7', '7w', '1.5h', '-1d', '']) expect(() => parseDuration(bad)).toThrow('--expires');
  });

  it('invites (a one-time link whose token only the CLI printed), lists, changes a plan and revokes an account with its keys', async () => {
    const kv = wranglerKv('CONSOLE', { remote: false, persistTo: persistDir });
    const apiKeys = wranglerKv('API_KEYS', { remote: false, persistTo: persistDir });

    const invited = cli([
      'invite',
      '--fund',
      'sample-fund',
      '--plan',
      'paid',
      '--expires',
      '2d',
      '--base',
      'https://fund-edge.example.com/',
    ]);
    expect(invited.status).toBe(0);
    const link = invited.stdout.trim();
    expect(link).toMatch(/^https:\/\/fund-edge\.example\.com\/developers\/console\/invite#[0-9A-Za-z]{32}$/);
    const invitation = await usableInvitation(kv, link.split('#').pop()!);
    expect(invitation).toMatchObject({ fundId: 'sample-fund', plan: 'paid', usedAt: null });
    expect(Date.parse(invitation.expiresAt) - Date.parse(invitation.createdAt)).toBe(2 * 86_400_000);

    const account = await createAccount(kv, 'handle');
    const { key } = await mintAccountKey(kv, apiKeys, new FakeAtomicNamespace(), account, { scope: 'calc', label: 'ci' });

    expect(cli(['list']).stdout).toMatch(new RegExp(`^${account.accountId}\\tfree\\t-\\tactive\\t1 active keys\\t`, 'm'));
    expect(cli(['plan', account.accountId, 'paid']).stdout).toContain('is now on the paid plan');

    const revoked = cli(['revoke', account.accountId]);
    expect(revoked.stdout).toContain('and 1 of its keys');
    expect(await readAccount(kv, account.accountId)).toMatchObject({ plan: 'paid', revokedAt: expect.any(String) });
    expect(JSON.parse((await apiKeys.get(await hashKey(key)))!).revokedAt).not.toBeNull();
    // Every step starts wrangler (a few seconds each): about 50 s on a loaded 2-core machine, so a hang guard
    // wider than the suite's 60 s.
  }, 180_000);

  it('links an invitation to the port `npm run dev -- --port N` runs on, and says so', async () => {
    const port = await freePort();
    const stateDir = mkdtempSync(join(tmpdir(), 'fund-edge-dev-'));
    // The real script, with its own state folder; the test needs its first lines only, then ends it and wrangler.
    const dev = spawn(
      process.execPath,
      [
        '--experimental-strip-types',
        '--disable-warning=ExperimentalWarning',
        'scripts/dev.ts',
        '--port',
        String(port),
        '--persist-to',
        stateDir,
      ],
      { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DATABASE_URL: '', WRANGLER_SEND_METRICS: 'false' } },
    );
    let out = '';
    dev.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await expect.poll(() => out, { timeout: 30_000 }).toContain(`developer console: http://localhost:${port}/developers/console`);
      const invited = spawnSync(
        process.execPath,
        [
          '--experimental-strip-types',
          '--disable-warning=ExperimentalWarning',
          'scripts/console.ts',
          'invite',
          '--fund',
          'sample-fund',
          '--persist-to',
          stateDir,
        ],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PUBLIC_ORIGIN: '' }, timeout: 60_000 },
      );
      expect(invited.stdout.trim()).toMatch(new RegExp(`^http://localhost:${port}/developers/console/invite#[0-9A-Za-z]{32}$`));
      expect(invited.stderr).toContain(`The link is for http://localhost:${port} (the running npm run dev's port (process ${dev.pid});`);
    } finally {
      try {
        process.kill(-dev.pid!, 'SIGKILL');
      } catch {
        // already ended
      }
      rmSync(stateDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('refuses bad arguments with a message and exit code 1', () => {
    expect(cli(['plan', 'acct_nobody', 'gold'])).toMatchObject({ status: 1, stderr: expect.stringContaining('free or paid') });
    expect(cli(['revoke', 'acct_nobody'])).toMatchObject({ status: 1, stderr: expect.stringContaining('No account acct_nobody') });
    expect(cli(['invite', '--fund', '../x'])).toMatchObject({ status: 1, stderr: expect.stringContaining('--fund') });
    expect(cli(['frobnicate']).status).toBe(2);
  });
});
