/** `npm run dev`'s command line (docs/configuration.md#variables-and-secrets) and its INVESTOR_REF_KEY check. */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devVar, investorRefKeyProblem, wranglerDevArgs } from '../scripts/dev-args.ts';

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
