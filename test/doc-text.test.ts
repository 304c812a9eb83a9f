/**
 * The Markdown the service publishes (scripts/doc-text.ts): pages put under a heading of `/llms-full.txt`
 * move their headings down but not the lines of their code blocks (a shell comment is not a heading), and
 * links to the design notes point at where the service publishes them, leaving no empty `[]` or `([])`.
 */
import { describe, expect, it } from 'vitest';
import { demoteHeadings, eachLine, published } from '../scripts/doc-text.ts';

const PAGES = new Set(['api.md', 'import.md', 'README.md']);

describe('demoteHeadings', () => {
  it('moves headings down and leaves the lines of fenced code blocks as they are', () => {
    const page = [
      '# Deploy',
      '',
      '```sh',
      '# create the namespaces and write their ids',
      'npm run setup -- --remote',
      '## not a heading either',
      '```',
      '',
      '## Then',
      '~~~',
      '# inside a tilde fence',
      '```',
      '# still inside: a backtick line does not close a tilde fence',
      '~~~',
      '### After',
    ].join('\n');
    expect(demoteHeadings(page, 2).split('\n')).toEqual([
      '### Deploy',
      '',
      '```sh',
      '# create the namespaces and write their ids',
      'npm run setup -- --remote',
      '## not a heading either',
      '```',
      '',
      '#### Then',
      '~~~',
      '# inside a tilde fence',
      '```',
      '# still inside: a backtick line does not close a tilde fence',
      '~~~',
      '##### After',
    ]);
  });

  it('closes a fence only with one at least as long, and leaves level-5 and -6 headings past 6 alone', () => {
    const page = ['````', '```', '# in', '````', '# out', '##### five'].join('\n');
    expect(demoteHeadings(page, 2).split('\n')).toEqual(['````', '```', '# in', '````', '### out', '##### five']);
  });

  it('reports each line once with whether it is inside a fence', () => {
    const seen: [string, boolean][] = [];
    eachLine('a\n```\nb\n```\nc', (line, inFence) => {
      seen.push([line, inFence]);
      return line;
    });
    expect(seen).toEqual([
      ['a', false],
      ['```', true],
      ['b', true],
      ['```', true],
      ['c', false],
    ]);
  });
});

describe('published', () => {
  it('points a link to a design note at the page the service publishes, from the README and from docs/', () => {
    expect(published('Errors ([docs/api.md](docs/api.md#errors)).', '{{origin}}/docs/design/', PAGES)).toBe(
      'Errors ([docs/api.md]({{origin}}/docs/design/api.md#errors)).',
    );
    expect(published('See [import.md](import.md) and [api.md](./api.md).', '{{origin}}/docs/design/', PAGES)).toBe(
      'See [import.md]({{origin}}/docs/design/import.md) and [api.md]({{origin}}/docs/design/api.md).',
    );
    // The pages under /docs/design/ sit side by side: relative links.
    expect(published('| [docs/import.md](docs/import.md) |', '', PAGES)).toBe('| [docs/import.md](import.md) |');
  });

  it('drops a bare reference to a repository file with its parentheses, and keeps other links', () => {
    expect(published('Formulas (docs/calculators.md).', '/', PAGES)).toBe('Formulas.');
    expect(published('the rules of docs/api.md#limits apply', '/', PAGES)).toBe('the rules apply');
    const kept = '[mcp-remote](https://www.npmjs.com/package/mcp-remote), [below](#keys), [a](other.md)';
    expect(published(kept, '/', PAGES)).toBe(kept);
  });

  it('never leaves an empty label or `([])`', () => {
    const text = 'Batches: ([docs/mcp.md](docs/mcp.md)); keys: [docs/api.md](docs/api.md#keys-and-scopes).';
    const out = published(text, 'https://x/docs/design/', new Set(['mcp.md', 'api.md']));
    expect(out).not.toMatch(/\[\]|\(\[\]\)/);
    expect(out).toBe(
      'Batches: ([docs/mcp.md](https://x/docs/design/mcp.md)); keys: [docs/api.md](https://x/docs/design/api.md#keys-and-scopes).',
    );
  });
});
