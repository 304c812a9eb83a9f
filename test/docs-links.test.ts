/**
 * The repository explains itself: every `docs/<page>.md#<section>` a comment points at exists (page and
 * heading), and no comment points at a document the repository does not hold ("contract §N", "spec §N").
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const SOURCE_DIRS = ['lib', 'functions', 'test', 'bench', 'scripts'];

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'generated' || name === 'node_modules') return [];
    if (statSync(join(ROOT, path)).isDirectory()) return sources(path);
    return /\.(ts|tsx)$/.test(name) ? [path] : [];
  });
}

/** GitHub's heading anchor: lower case, spaces to dashes, punctuation dropped. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\s-]/g, '')
    .replace(/\s/g, '-');

function anchorsOf(page: string): Set<string> {
  const text = readFileSync(join(ROOT, 'docs', page), 'utf8');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
}

const files = SOURCE_DIRS.flatMap(sources).filter((f) => f !== join('test', 'docs-links.test.ts'));

describe('references in code comments', () => {
  it('name no outside planning document', () => {
    const stale = files.filter((f) => /(?:contract|spec) §\d|API-CONTRACT/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(stale).toEqual([]);
  });

  it('point at docs/ pages and sections that exist', () => {
    const pages = new Set(readdirSync(join(ROOT, 'docs')));
    const broken: string[] = [];
    let seen = 0;
    for (const f of files) {
      for (const m of readFileSync(join(ROOT, f), 'utf8').matchAll(/docs\/([\w-]+\.md)(?:#([\w-]+))?/g)) {
        seen++;
        if (!pages.has(m[1]!)) broken.push(`${f}: ${m[0]}`);
        else if (m[2] && !anchorsOf(m[1]!).has(m[2])) broken.push(`${f}: ${m[0]}`);
      }
    }
    expect(seen).toBeGreaterThan(30);
    expect(broken).toEqual([]);
  });
});
