/**
 * The `@peculiar/x509` stand-in of the Worker bundle (lib/console/x509-unused.ts) must export every name the
 * installed `@simplewebauthn/server` imports from it, or the Worker would not build; and each must refuse
 * to be used.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as stub from '../../lib/console/x509-unused.ts';

/** Every name imported from `@peculiar/x509` by the library's ESM build. */
function importedNames(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.js')) {
        for (const m of readFileSync(path, 'utf8').matchAll(/import\s*\{([^}]*)\}\s*from\s*['"]@peculiar\/x509['"]/g)) {
          for (const name of m[1]!.split(',')) if (name.trim()) names.add(name.trim().split(/\s+as\s+/)[0]!);
        }
      }
    }
  };
  walk(join('node_modules', '@simplewebauthn', 'server', 'esm'));
  return names;
}

describe('@peculiar/x509 stand-in', () => {
  it('exports every name @simplewebauthn/server imports from @peculiar/x509', () => {
    const names = importedNames();
    expect(names.size).toBeGreaterThan(0);
    expect([...names].filter((n) => !(n in stub))).toEqual([]);
  });

  it('throws when anything is constructed', () => {
    for (const Class of Object.values(stub)) expect(() => new (Class as new () => unknown)()).toThrow('X.509 attestation is not supported');
  });
});
