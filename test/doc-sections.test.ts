/**
 * The generated sections of the README and `docs/` (scripts/doc-sections.ts, written by `npm run build`):
 * this fails when a committed page is not what the declarations give, and checks the generator against the
 * declarations themselves, so a section cannot silently drop an endpoint, a tool or a parameter.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CALCULATORS, FUND_TOOLS } from '../lib/registry.ts';
import { docSections, fundExamples, fundParametersTable, mcpServersTable, quickstart, withSections } from '../scripts/doc-sections.ts';
import { calcPath, fundPath } from './support/declared.ts';

const ROOT = join(import.meta.dirname, '..');
const codeSpans = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

describe('generated sections', () => {
  it.each(Object.keys(docSections()))('of %s are current (run npm run build after changing a declaration)', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8');
    expect(withSections(page, text)).toBe(text);
  });

  it('name every fund tool on the fund MCP server row, and no calculator by name (adding one changes no page)', () => {
    const [, , publicRow, fundRow] = mcpServersTable().split('\n');
    expect(codeSpans(fundRow!).filter((s) => s.startsWith('get_'))).toEqual(FUND_TOOLS.map((t) => t.tool));
    expect(fundRow).toContain(`${FUND_TOOLS.length} read-only tools`);
    for (const c of CALCULATORS) expect(publicRow).not.toContain(c.slug.replace(/-/g, '_'));
  });

  it('give every fund path a row naming each of its parameters, with the bounds of the schema', () => {
    const table = fundParametersTable();
    for (const tool of FUND_TOOLS) {
      const line = table.split('\n').find((l) => codeSpans(l.split(' | ')[0]!).includes(tool.path));
      expect(line, tool.path).toBeDefined();
      for (const name of Object.keys(tool.query.shape)) expect(codeSpans(line!), `${tool.path} ${name}`).toContain(name);
    }
    expect(table).toContain('`days` (30; 1..366)');
    expect(table).toContain('`date` (required, `YYYY-MM-DD`)');
    expect(table).toContain('`method` (`ewma`; `sample` or `ewma`)');
  });

  it('call every fund path, and each surface, at the URLs the declarations give', () => {
    const examples = fundExamples();
    for (const tool of FUND_TOOLS) expect(examples).toContain(`"$BASE/${fundPath(tool).slice('/api/v1/fund/'.length)}`);
    const start = quickstart();
    expect(start).toContain(`$BASE${fundPath('get_fund_overview')}"`);
    expect(start).toContain(`$BASE${calcPath('fee-calculator')}"`);
    expect(start).toContain('"name":"calc_fee_calculator"');
  });

  it('refuse a page without the markers of a generated section', () => {
    expect(() => withSections('README.md', '# no sections here')).toThrow(/README.md lacks the markers of the generated section/);
  });
});
