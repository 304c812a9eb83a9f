/**
 * The README's endpoint tables are generated from the declarations (scripts/readme-tables.ts, written by
 * `npm run build`): this fails when the committed README is not what the declarations give, and checks the
 * generator against the declarations themselves, so a table cannot silently drop an endpoint or a parameter.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CALCULATORS, FUND_TOOLS } from '../lib/registry.ts';
import { toolName } from '../lib/calculators/definition.ts';
import { fundParametersTable, mcpServersTable, withTables } from '../scripts/readme-tables.ts';

const README = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
const codeSpans = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

describe('README', () => {
  it('holds the current generated tables (run npm run build after changing a declaration)', () => {
    expect(withTables(README)).toBe(README);
  });

  it('lists every calculator tool and every fund tool on their MCP server rows', () => {
    const [, , publicRow, fundRow] = mcpServersTable().split('\n');
    expect(codeSpans(publicRow!).filter((s) => s.startsWith('calc_'))).toEqual(CALCULATORS.map(toolName));
    expect(codeSpans(fundRow!).filter((s) => s.startsWith('get_'))).toEqual(FUND_TOOLS.map((t) => t.tool));
  });

  it('gives every fund path a row naming each of its parameters, with the bounds of the schema', () => {
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

  it('refuses a README without the markers of a generated section', () => {
    expect(() => withTables('# no tables here')).toThrow(/generated section/);
  });
});
