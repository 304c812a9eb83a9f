/**
 * The README's endpoint tables are checked against the declarations, so that adding or renaming an
 * endpoint without updating them fails here: the MCP servers' tool lists and their counts, the count
 * words of the introduction, and the fund-data parameter table (every path, every parameter).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CALCULATORS } from '../lib/calculators/index.ts';
import { toolName } from '../lib/calculators/definition.ts';
import { FUND_TOOLS } from '../lib/fund/tools/index.ts';

const README = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
const WORDS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
];
/** `7` → `seven`, as the README writes counts. */
const word = (n: number) => WORDS[n] ?? String(n);

/** The README table row starting with `| <first cell> |`. */
function row(first: string): string {
  const line = README.split('\n').find((l) => l.startsWith(`| ${first} |`));
  expect(line, first).toBeDefined();
  return line!;
}

const codeSpans = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

describe('README', () => {
  it('introduces as many fund-data endpoints and calculators as are declared', () => {
    expect(README).toContain(`serves ${word(FUND_TOOLS.length)} read-only fund-data endpoints`);
    expect(README).toContain(`${word(CALCULATORS.length)} stateless calculators`);
  });

  it('lists every calculator tool on the public MCP server row, with their count', () => {
    const public_ = row('public');
    expect(public_).toContain(`the ${word(CALCULATORS.length)} calculators:`);
    expect(
      codeSpans(public_)
        .filter((s) => s.startsWith('calc_'))
        .sort(),
    ).toEqual(CALCULATORS.map(toolName).sort());
  });

  it('lists every fund tool on the fund MCP server row, with their count', () => {
    const fund = row('fund');
    expect(fund).toContain(`${word(FUND_TOOLS.length)} read-only tools:`);
    expect(
      codeSpans(fund)
        .filter((s) => s.startsWith('get_'))
        .sort(),
    ).toEqual(FUND_TOOLS.map((t) => t.tool).sort());
  });

  it('gives every fund path its row in the parameter table, naming each of its parameters', () => {
    const start = README.indexOf('| path | parameters (default; bounds) |');
    expect(start).toBeGreaterThan(0);
    const table = README.slice(start).split('\n\n')[0]!.split('\n').slice(2);
    const listed: string[] = [];
    for (const line of table) {
      const [paths, params] = line.split(' | ').map((cell) => cell.replace(/^\| |\s*\|$/g, ''));
      for (const path of codeSpans(paths!)) {
        listed.push(path);
        const def = FUND_TOOLS.find((t) => t.path === path);
        expect(def, path).toBeDefined();
        const names = Object.keys(def!.query.shape);
        if (names.length === 0) expect(params, path).toMatch(/^none/);
        for (const name of names) expect(codeSpans(params!), `${path} ${name}`).toContain(name);
      }
    }
    expect(listed.sort()).toEqual(FUND_TOOLS.map((t) => t.path).sort());
  });
});
