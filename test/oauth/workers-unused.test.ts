/**
 * The `cloudflare:workers` stand-in (lib/oauth/workers-unused.ts) against the installed OAuth library: it
 * exports exactly the names the library imports from the built-in, the library is pinned to an exact version
 * (an upgrade must re-check this), and the alias is in wrangler.toml.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as standIn from '../../lib/oauth/workers-unused.ts';
import { wranglerAliases } from '../../bench/size.ts';

const LIBRARY = 'node_modules/@cloudflare/workers-oauth-provider/dist/oauth-provider.js';

describe('the cloudflare:workers stand-in', () => {
  it('exports the names the installed library imports from cloudflare:workers', () => {
    const source = readFileSync(LIBRARY, 'utf8');
    const imports = [...source.matchAll(/import\s*\{([^}]*)\}\s*from\s*["']cloudflare:workers["']/g)].flatMap((m) =>
      m[1]!
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean),
    );
    expect(imports).toEqual(['WorkerEntrypoint']);
    expect(source).not.toMatch(/import\s*\*\s*as\s*\w+\s*from\s*["']cloudflare:workers["']|import\(["']cloudflare:workers["']\)/);
    expect(Object.keys(standIn).sort()).toEqual(imports.sort());
  });

  it('refuses to be constructed (the library was handed a handler class after all)', () => {
    expect(() => new standIn.WorkerEntrypoint()).toThrow(/not available/);
  });

  it('is the alias of wrangler.toml, and the library is pinned exactly', () => {
    expect(wranglerAliases()['cloudflare:workers']).toBe('./lib/oauth/workers-unused.ts');
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies['@cloudflare/workers-oauth-provider']).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
