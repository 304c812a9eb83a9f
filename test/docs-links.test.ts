/**
 * The repository explains itself: every `docs/<page>.md#<section>` a comment points at exists (page and
 * heading), and no comment points at a section of a document the repository does not hold. Code, tests,
 * configuration and docs describe what is: none cites the tracker or a stage of past work (the history is
 * CHANGELOG.md's); {@link HISTORY_CITATION} says which forms are refused.
 * `docs/README.md` is the one index of the pages and the README links it; every link between the README and
 * the `docs/` pages, and every `docs/…` they name, leads to a page and a heading that exist.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
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

/** The anchors of a Markdown file's headings (outside code blocks). */
function headingAnchors(path: string): Set<string> {
  const text = readFileSync(join(ROOT, path), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
}

const anchorsOf = (page: string) => headingAnchors(join('docs', page));

const files = SOURCE_DIRS.flatMap(sources).filter((f) => f !== join('test', 'docs-links.test.ts'));

/**
 * A citation of the project's history rather than a description of what is: a tracker's number, with or
 * without `#`; a stage of past work named by its number or its ordinal; a section sign (`§`) pointing into
 * a planning document the repository does not hold. The pattern below is the rule; the test cases show the
 * forms it refuses.
 */
const HISTORY_CITATION =
  /\b(?:issues?|rounds?) #?\d+\b|\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|this|last|previous|next) rounds?\b|\b(?:contract|spec) §\s?\d|API-CONTRACT/i;

describe('references in code comments', () => {
  it('name no outside planning document', () => {
    const stale = files.filter((f) => /(?:contract|spec) §\d|API-CONTRACT/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(stale).toEqual([]);
  });

  it('cite no issue, round or contract section: code, tests, configuration and docs say what is', () => {
    const described = [
      ...files,
      ...(existsSync(join(ROOT, 'operator')) ? sources('operator') : []),
      'wrangler.toml',
      'package.json',
      'README.md',
      ...readdirSync(join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => join('docs', f)),
    ];
    const cited = described.flatMap((f) =>
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .flatMap((line, i) => (HISTORY_CITATION.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(cited).toEqual([]);
  });

  it('would catch a citation of history', () => {
    // Each example is joined from its words here, so that no line of the repository itself reads as one.
    for (const words of [
      ['(issue', '22 item 2)'],
      ['see issue', '#14'],
      ['the seventh', 'round'],
      ['fourth and seventh', 'rounds'],
      ['round', '3'],
      ['contract', '§2'],
      ['Contract', '§1/§6'],
    ])
      expect(words.join(' ')).toMatch(HISTORY_CITATION);
    for (const line of ['one round trip', 'rounds half-up to cents', 'the tour has been round once', 'RFC 9110 §10.2.1', 'the issues list'])
      expect(line).not.toMatch(HISTORY_CITATION);
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

describe('links in the README and docs/', () => {
  const pages = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const text = (page: string) => readFileSync(join(ROOT, page), 'utf8');

  it('lead to files and headings that exist', () => {
    const broken: string[] = [];
    let seen = 0;
    for (const page of pages) {
      for (const m of text(page).matchAll(/\]\((?!https?:|mailto:)([^)\s#]*)(?:#([\w-]+))?\)/g)) {
        seen++;
        const target = m[1] ? join(dirname(page), m[1]) : page;
        if (!existsSync(join(ROOT, target))) broken.push(`${page}: ${m[0]}`);
        else if (m[2] && target.endsWith('.md') && !headingAnchors(target).has(m[2])) broken.push(`${page}: ${m[0]}`);
      }
      for (const m of text(page).matchAll(/(?<![\w/])docs\/([\w-]+\.md)(?:#([\w-]+))?/g)) {
        seen++;
        if (!existsSync(join(ROOT, 'docs', m[1]!))) broken.push(`${page}: ${m[0]}`);
        else if (m[2] && !anchorsOf(m[1]!).has(m[2])) broken.push(`${page}: ${m[0]}`);
      }
    }
    expect(seen).toBeGreaterThan(40);
    expect(broken).toEqual([]);
  });

  it('include one index of docs/: docs/README.md links every page, and the README links it', () => {
    const index = text('docs/README.md');
    const unlinked = pages.filter(
      (p) => p.startsWith('docs/') && p !== 'docs/README.md' && !index.includes(`](${p.slice('docs/'.length)})`),
    );
    expect(unlinked).toEqual([]);
    expect(text('README.md')).toContain('](docs/README.md)');
  });

  it('keep that index in one place: the README repeats no table of the pages', () => {
    const rows = text('README.md').match(/^\| \[docs\/[\w-]+\.md\]/gm) ?? [];
    expect(rows).toEqual([]);
  });

  it('keep the README a front page: at most 300 lines, its first screen the two commands', () => {
    const lines = text('README.md').split('\n');
    expect(lines.length).toBeLessThanOrEqual(300);
    const firstScreen = lines.slice(0, 30).join('\n');
    expect(firstScreen).toContain('npm install && npm run dev');
    expect(firstScreen).toContain('npm test');
  });
});
