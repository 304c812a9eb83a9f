/**
 * The README and `docs/` state no fact the declarations contradict: a count of calculators, fund-data
 * endpoints, tools or routes ("seven calculators", "12 read-only tools"), an MCP tool name, an endpoint URL,
 * or a path in the repository that is not there; their prose writes out no endpoint's URL at all (a rename
 * of its file would leave it stale: prose names an endpoint by its tool, generated sections show URLs); and the Worker's code writes out no endpoint URL at all, nor do the tests (they take it from test/support/declared.ts). Generated sections are left to test/doc-sections.test.ts,
 * which rewrites them from the declarations; everything else is prose, and prose goes stale silently unless
 * a test reads it (docs/architecture.md#facts-in-the-documentation).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CALCULATORS, FUND_TOOLS, ROUTES } from '../lib/registry.ts';
import { CALC_TOOL_NAMES, FUND_TOOL_NAMES, PUBLIC_TOOL_NAMES, fundPath } from './support/declared.ts';

const ROOT = join(import.meta.dirname, '..');

const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
WORDS.push('thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty');
const NUMBER = `(\\d+|${WORDS.join('|')})`;
const countOf = (n: string) => (/^\d+$/.test(n) ? Number(n) : WORDS.indexOf(n.toLowerCase()));

/** What the declarations say, as the counts prose may state. */
interface Facts {
  calculators: number;
  fundTools: number;
  /** Tool counts a server has: the public server's, the fund server's. */
  serverTools: number[];
  routes: number;
  toolNames: ReadonlySet<string>;
  routePaths: ReadonlySet<string>;
}

const DECLARED: Facts = {
  calculators: CALCULATORS.length,
  fundTools: FUND_TOOLS.length,
  serverTools: [PUBLIC_TOOL_NAMES.length, FUND_TOOL_NAMES.length],
  routes: ROUTES.length,
  toolNames: new Set([...CALC_TOOL_NAMES, ...FUND_TOOL_NAMES, 'search_docs']),
  routePaths: new Set(ROUTES.map((r) => r.path)),
};

/** Counts a sentence may state, and what each must equal. */
const COUNTS: { pattern: RegExp; expected: (f: Facts) => number[]; what: string }[] = [
  {
    pattern: new RegExp(`\\b${NUMBER} (?:stateless )?calculators?\\b(?! calls| requests)`, 'gi'),
    expected: (f) => [f.calculators],
    what: 'calculators',
  },
  {
    pattern: new RegExp(`\\b${NUMBER} (?:read-only )?(?:fund[- ]data |fund )(?:endpoints|tools)\\b`, 'gi'),
    expected: (f) => [f.fundTools],
    what: 'fund-data endpoints',
  },
  { pattern: new RegExp(`\\b${NUMBER} read-only tools\\b`, 'gi'), expected: (f) => [f.fundTools], what: 'fund tools' },
  { pattern: new RegExp(`\\b${NUMBER} (?:MCP )?tools\\b`, 'gi'), expected: (f) => f.serverTools, what: 'tools of a server' },
  { pattern: new RegExp(`\\b${NUMBER} (?:routes|endpoints|operations)\\b`, 'gi'), expected: (f) => [f.routes], what: 'routes' },
];

/** The page without its generated sections (those are checked against the declarations elsewhere). */
function prose(text: string): string {
  return text.replace(/<!-- generated:([\w-]+) -->[\s\S]*?<!-- \/generated:\1 -->/g, '');
}

/** Whether a path is in the tree, or is one of the build's outputs git ignores (`bench/results.json`). */
function inTree(path: string): boolean {
  if (existsSync(join(ROOT, path))) return true;
  try {
    execFileSync('git', ['check-ignore', '-q', path], { cwd: ROOT });
    return true;
  } catch {
    return false;
  }
}

/**
 * Every fact in a page that the declarations or the tree contradict, as `page: what`.
 * @param exists whether a repository path exists (a file or directory)
 */
function contradictions(page: string, text: string, facts: Facts = DECLARED, exists = inTree): string[] {
  const body = prose(text);
  const out: string[] = [];
  for (const { pattern, expected, what } of COUNTS) {
    for (const m of body.matchAll(pattern)) {
      const stated = countOf(m[1]!);
      if (stated > 1 && !expected(facts).includes(stated))
        out.push(`${page}: "${m[0]}" (declared ${what}: ${expected(facts).join(' or ')})`);
    }
  }
  for (const m of body.matchAll(/`((?:calc|get)_[a-z0-9_]+)`|"name":\s*"((?:calc|get)_[a-z0-9_]+)"/g)) {
    const name = m[1] ?? m[2]!;
    if (!facts.toolNames.has(name)) out.push(`${page}: tool ${name} is not declared`);
  }
  for (const m of body.matchAll(/\/api\/v1\/(?:calc|fund)\/[a-z0-9][a-z0-9/-]*[a-z0-9]/g)) {
    if (!facts.routePaths.has(m[0])) out.push(`${page}: ${m[0]} is not a route`);
    // A route's URL in prose is right until its file is renamed: prose names an endpoint by its tool or title.
    else out.push(`${page}: ${m[0]} is written out (name the endpoint by its tool; a generated section may show its URL)`);
  }
  for (const m of body.matchAll(/`((?:lib|functions|scripts|test|bench|db|docs)\/[\w./-]+?)(?:#[\w-]+)?`/g)) {
    const path = m[1]!.replace(/\/$/, '');
    if (!/[<*{]/.test(path) && !exists(path)) out.push(`${page}: ${path} does not exist`);
  }
  return out;
}

const pages = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('the README and docs/', () => {
  it.each(pages)('%s states nothing the declarations or the tree contradict', (page) => {
    expect(contradictions(page, readFileSync(join(ROOT, page), 'utf8'))).toEqual([]);
  });
});

/** Every `.ts`/`.tsx` file under `dir` (not the build's outputs). */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/.test(f) && !f.startsWith('generated'))
    .map((f) => `${dir}/${f}`);
}

describe('the code', () => {
  it('writes out no endpoint URL: URLs come from the route table, so renaming a file leaves nothing stale', () => {
    const written = [...sources('lib'), ...sources('functions')].flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/\/api\/v1\/(?:calc|fund)\/[a-z]/g)].map(() => file),
    );
    expect(written).toEqual([]);
  });

  it('nor do the tests: they find an endpoint through its declaration (test/support/declared.ts calcPath, fundPath)', () => {
    const endpoints = new Set(ROUTES.map((r) => r.path).filter((p) => /^\/api\/v1\/(?:calc|fund)\//.test(p)));
    expect(endpoints.size).toBe(CALCULATORS.length + FUND_TOOLS.length);
    const tests = readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
      .map((f) => f.replaceAll('\\', '/'))
      .filter((f) => /\.tsx?$/.test(f) && f !== 'support/declared.ts' && !/(?:^|\/)generated\//.test(f));
    const written = tests.flatMap((file) =>
      [...readFileSync(join(ROOT, 'test', file), 'utf8').matchAll(/\/api\/v1\/(?:calc|fund)\/[\w./-]*/g)]
        .map((m) => m[0].replace(/[/.]+$/, ''))
        .filter((url) => endpoints.has(url))
        .map((url) => `test/${file}: ${url}`),
    );
    expect(written).toEqual([]);
  });

  it('writes out no MCP server URL where the pages and snippets are made: they take it from the route table', () => {
    const makers = [
      ...sources('lib/site'),
      ...sources('lib/console'),
      'lib/mcp/clients.ts',
      'lib/mcp/server-json.ts',
      'lib/mcp/refusals.ts',
    ];
    const made = [...makers, 'scripts/doc-sections.ts', 'scripts/server-json.ts'].filter((file) =>
      /\/api\/mcp\b/.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(made).toEqual([]);
  });
});

describe('the check', () => {
  const facts: Facts = { ...DECLARED, calculators: 7, fundTools: 12, serverTools: [8, 12], routes: 22 };
  const none = () => false;

  it('catches a stale count in words or digits, a tool or URL not declared, and a path not in the tree', () => {
    const text = [
      'Eight calculators answer, and the server lists 13 read-only tools; the fund server has twelve tools.',
      'Call `calc_fee_calculator_v2` or `get_no_such_tool`, or GET /api/v1/fund/no-such-endpoint?days=3.',
      'See `lib/routes.ts` and `lib/service.ts`.',
      `Or GET ${fundPath('get_positions')} by hand.`,
    ].join('\n');
    expect(contradictions('x.md', text, facts, (p) => p === 'lib/service.ts')).toEqual([
      'x.md: "Eight calculators" (declared calculators: 7)',
      'x.md: "13 read-only tools" (declared fund tools: 12)',
      'x.md: tool calc_fee_calculator_v2 is not declared',
      'x.md: tool get_no_such_tool is not declared',
      'x.md: /api/v1/fund/no-such-endpoint is not a route',
      `x.md: ${fundPath('get_positions')} is written out (name the endpoint by its tool; a generated section may show its URL)`,
      'x.md: lib/routes.ts does not exist',
    ]);
  });

  it('passes counts that agree, placeholders, and generated sections', () => {
    const text = [
      'Seven calculators, the 12 fund-data endpoints, 22 routes; one `calc_<slug>` per calculator, `get_*` tools,',
      '`/api/v1/fund/<path>`, `lib/calculators/<name>.ts`.',
      '<!-- generated:t -->\nNine calculators, `get_nothing`.\n<!-- /generated:t -->',
    ].join('\n');
    expect(contradictions('x.md', text, facts, none)).toEqual([]);
  });
});
