/** The route table maps every file under functions/ to the path it mirrors, and holds nothing else. */
import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../lib/routes.ts';
import { CALCULATORS } from '../lib/calculators/index.ts';

const functionsDir = join(import.meta.dirname, '..', 'functions');

function endpointFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? endpointFiles(full) : [full];
  });
}

const files = endpointFiles(functionsDir);
const pathOf = (file: string) => `/${relative(functionsDir, file).split(sep).join('/').replace(/\.ts$/, '')}`;

describe('route table', () => {
  it('holds only TypeScript endpoint files under functions/', () => {
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(f).toMatch(/\.ts$/);
  });

  it('routes every endpoint file at the path it mirrors, and nothing else', () => {
    expect(ROUTES.map((r) => r.path).sort()).toEqual(files.map(pathOf).sort());
    expect(new Set(ROUTES.map((r) => r.path)).size).toBe(ROUTES.length);
  });

  it.each(files.map((f) => [pathOf(f), f]))('%s serves the default export of its file', async (path, file) => {
    const mod = (await import(file)) as { default: unknown };
    expect(ROUTES.find((r) => r.path === path)?.endpoint).toBe(mod.default);
  });

  it('gives each calculator its endpoint under /api/v1/calc/', () => {
    const calcPaths = ROUTES.filter((r) => r.path.startsWith('/api/v1/calc/')).map((r) => r.path).sort();
    expect(calcPaths).toEqual(CALCULATORS.map((c) => `/api/v1/calc/${c.slug}`).sort());
  });
});
