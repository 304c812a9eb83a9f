/**
 * The layout is part of the design (docs/architecture.md): the import graph of `lib/`, `functions/` and
 * `operator/`, computed from the sources (scripts/modules.ts: esbuild strips the types, keeping type-only
 * imports, and acorn parses), has no cycle, and no module imports from a layer above its own unless
 * {@link UPWARD} lists the import with its reason. What the Worker bundles (`lib/`, `functions/`) imports no
 * Node-only module (`node:*`, `pg`, `pg-copy-streams`) and nothing of the operator's Node code
 * (`operator/`). Build outputs (`lib/generated/`) enter `lib/` through the composition root only, and the
 * tracked files alone type-check, as a fresh clone does before its first build. No module in `lib/` or
 * `operator/` is over 400 lines, and no function over 100.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, nodesOf, parseModule, type ParsedModule } from '../scripts/modules.ts';

const ROOT = join(import.meta.dirname, '..');

/**
 * The layers, from the bottom up: a module may import from its own layer and the ones listed before it.
 * The first rule a path matches places it. docs/architecture.md draws them.
 */
const LAYERS: readonly { name: string; what: string; paths: RegExp }[] = [
  {
    name: 'core',
    what: 'errors, limits, configuration, logging, validation, request bodies, decimals, CSV, digests, assets, the atomic records, the origin rules, redaction (its allow-list writer), the database clients',
    paths:
      /^lib\/(errors|limits|digest|decimal|config|env|log|validation|body|csv|json-schema|assets|atomic|origin|redaction|allow-list|identity-(?:match|words|set|set-form|scan|reference))\.ts$|^lib\/db\/(?:client|http|sql)\.ts$|^lib\/[\w/]+-unused\.ts$/,
  },
  {
    name: 'access',
    what: "keys, the one authentication step, quotas (and their counters) and burst guards; the identity facts every surface shares (the console's path, the plans)",
    paths: /^lib\/(keys|auth|rate-limit|quota-counter|identity)\.ts$/,
  },
  {
    name: 'request',
    what: 'the request contract: what a file under functions/ exports and is handed (Endpoint, Operation, RequestContext, Catalog), the shared request steps',
    paths: /^lib\/endpoint\.ts$/,
  },
  {
    name: 'domain',
    what: 'the calculators and the fund data: declarations, analytics, stores, the synthetic funds; the docs index',
    paths: /^lib\/calculators\/(?!endpoint\.ts)|^lib\/fund\/(?!endpoint\.ts)|^lib\/docs\//,
  },
  {
    name: 'operator',
    what: "the operator's Node code, never bundled into the Worker: the bundle's importer and exporter, migrations, the seeder",
    paths: /^operator\//,
  },
  {
    name: 'endpoint',
    what: "the endpoint factory of each kind beside its declaration, and the catalog's declarations (lib/catalog.ts)",
    paths: /^lib\/(calculators|fund)\/endpoint\.ts$|^lib\/catalog\.ts$/,
  },
  { name: 'oauth', what: "OAuth 2.1: the authorization server's provider and routes, the resource server", paths: /^lib\/oauth\// },
  { name: 'mcp', what: "the MCP servers, their framing and refusals, the clients' setups", paths: /^lib\/mcp\// },
  { name: 'site', what: 'the home page, /docs, the llms files, the OpenAPI document', paths: /^lib\/site\/|^lib\/openapi(-json)?\.ts$/ },
  {
    name: 'console',
    what: 'the developer console: accounts, keys, invitations, passkeys, its pages and the OAuth consent pages',
    paths: /^lib\/console\//,
  },
  { name: 'routes', what: 'one file per endpoint, its path the URL', paths: /^functions\// },
  {
    name: 'root',
    what: "the composition root: the registry of build outputs, the service's HTTP application, the Worker",
    paths: /^lib\/(registry|service|worker)\.ts$|^lib\/generated\//,
  },
];

/**
 * Imports from a lower layer to a higher one that are allowed, each with its reason (`from -> to`). Lazy
 * imports (`import()`) count like any other.
 */
const UPWARD: Readonly<Record<string, string>> = {};

/**
 * Every module of `lib/`, `functions/` and `operator/` (not the console's browser script, which the browser
 * loads apart).
 */
function modules(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(ROOT, dir))) {
      const path = `${dir}/${name}`;
      if (statSync(join(ROOT, path)).isDirectory()) {
        if (path !== 'lib/console/client') walk(path);
      } else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
    }
  };
  walk('lib');
  walk('functions');
  walk('operator');
  return out.sort();
}

/** Whether the Worker bundles a module: everything in `lib/` and `functions/`; `operator/` runs in Node. */
const inWorker = (path: string) => path.startsWith('lib/') || path.startsWith('functions/');

/** Packages that only run in Node (the Worker has no `node:*` built-ins, no TCP client for `pg`). */
const NODE_ONLY = /^node:|^(pg|pg-copy-streams)(\/|$)/;

/**
 * The imports of a Worker module that break the boundary: a Node-only package ({@link NODE_ONLY}) or a module
 * of `operator/`. `imports` are a module's specifiers as written, with the repository path of relative ones.
 */
function boundaryBreaches(from: string, imports: { specifier: string; to?: string }[]): string[] {
  if (!inWorker(from)) return [];
  return imports
    .filter((i) => NODE_ONLY.test(i.specifier) || i.to?.startsWith('operator/'))
    .map((i) => `${from} -> ${i.to ?? i.specifier}`);
}

const parsed = new Map<string, ParsedModule>();
const parsedOf = (file: string) => {
  let m = parsed.get(file);
  if (!m) {
    m = parseModule(readFileSync(join(ROOT, file), 'utf8'), file);
    parsed.set(file, m);
  }
  return m;
};

/** The module a relative specifier names, as a repository path (`.d.ts` for a build output's shape). */
function target(from: string, specifier: string): string {
  const path = relative(ROOT, resolve(ROOT, dirname(from), specifier))
    .split(sep)
    .join('/');
  return existsSync(join(ROOT, path)) ? path : path.replace(/\.ts$/, '.d.ts');
}

/** The import graph: every relative import of every module. */
function importGraph(): { from: string; to: string; dynamic: boolean }[] {
  return modules().flatMap((from) =>
    importsOf(parsedOf(from).program)
      .filter((i) => i.specifier.startsWith('.'))
      .map((i) => ({ from, to: target(from, i.specifier), dynamic: i.dynamic })),
  );
}

function layerOf(path: string): number {
  const index = LAYERS.findIndex((l) => l.paths.test(path));
  if (index < 0) throw new Error(`${path} is in no layer: add it to LAYERS in test/architecture.test.ts and docs/architecture.md`);
  return index;
}

/** The cycles of a graph: its strongly connected components of more than one module (Tarjan). */
function cycles(edges: { from: string; to: string }[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe('the import graph of lib/, functions/ and operator/', () => {
  const graph = importGraph();

  it('is computed from every module', () => {
    expect(modules().length).toBeGreaterThan(100);
    expect(graph.length).toBeGreaterThan(300);
    expect(graph).toContainEqual({ from: 'lib/mcp/endpoint.ts', to: 'lib/mcp/modern.ts', dynamic: true });
  });

  it('places every module in a layer', () => {
    for (const file of modules()) expect(() => layerOf(file)).not.toThrow();
  });

  it('has no cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('imports from a higher layer only where UPWARD says why', () => {
    const upward = graph
      .filter((e) => layerOf(e.to) > layerOf(e.from))
      .map((e) => `${e.from} -> ${e.to} (${LAYERS[layerOf(e.from)]!.name} -> ${LAYERS[layerOf(e.to)]!.name})`);
    expect(upward.filter((e) => !(e.split(' (')[0]! in UPWARD))).toEqual([]);
    for (const listed of Object.keys(UPWARD)) expect(upward.map((e) => e.split(' (')[0])).toContain(listed);
  });

  it('lets build outputs into lib/ through the composition root only', () => {
    const readers = graph.filter((e) => e.to.startsWith('lib/generated/') && !e.from.startsWith('lib/generated/')).map((e) => e.from);
    expect([...new Set(readers)]).toEqual(['lib/registry.ts']);
  });

  it('keeps Node out of the Worker: lib/ and functions/ import no node:*, pg, pg-copy-streams or operator/', () => {
    const breaches = modules().flatMap((from) =>
      boundaryBreaches(
        from,
        importsOf(parsedOf(from).program).map((i) => ({
          specifier: i.specifier,
          ...(i.specifier.startsWith('.') ? { to: target(from, i.specifier) } : {}),
        })),
      ),
    );
    expect(breaches).toEqual([]);
    // The operator's code is what imports them.
    expect(graph.some((e) => e.from.startsWith('operator/') && e.to.startsWith('lib/'))).toBe(true);
  });

  it('catches an import across the Worker boundary when there is one', () => {
    const bad = [
      { specifier: 'node:fs' },
      { specifier: 'pg' },
      { specifier: 'pg-copy-streams' },
      { specifier: '../../operator/bundle/csv.ts', to: 'operator/bundle/csv.ts' },
    ];
    expect(boundaryBreaches('lib/fund/store.ts', bad)).toHaveLength(4);
    expect(boundaryBreaches('functions/api/v1/fund/positions.ts', [{ specifier: 'node:crypto' }])).toHaveLength(1);
    expect(boundaryBreaches('operator/bundle/load.ts', bad)).toEqual([]);
    expect(boundaryBreaches('lib/fund/store.ts', [{ specifier: 'pglite' }, { specifier: 'decimal.js' }])).toEqual([]);
    // The Worker's modules may not import the operator's, and the operator sits above the domain it reads.
    expect(layerOf('operator/db/seed.ts')).toBeGreaterThan(layerOf('lib/fund/tables.ts'));
    expect(layerOf('operator/db/seed.ts')).toBeLessThan(layerOf('lib/fund/endpoint.ts'));
  });

  it('catches a cycle and an upward import when there is one', () => {
    expect(cycles([...graph, { from: 'lib/errors.ts', to: 'lib/log.ts' }])).toContainEqual(['lib/errors.ts', 'lib/log.ts']);
    expect(layerOf('lib/keys.ts')).toBeLessThan(layerOf('lib/console/standing.ts'));
    // Imports that once ran upward, each now a violation: OAuth into the console, MCP into the console, the
    // request contract into the declarations above it.
    const upward = (from: string, to: string) => layerOf(to) > layerOf(from);
    expect(upward('lib/oauth/routes.ts', 'lib/console/pages.tsx')).toBe(true);
    expect(upward('lib/oauth/resource.ts', 'lib/console/session.ts')).toBe(true);
    expect(upward('lib/mcp/refusals.ts', 'lib/console/config.ts')).toBe(true);
    expect(upward('lib/endpoint.ts', 'lib/calculators/definition.ts')).toBe(true);
    expect(upward('lib/endpoint.ts', 'lib/fund/definition.ts')).toBe(true);
    expect(upward('lib/site/pages.ts', 'lib/console/config.ts')).toBe(true);
    // The console may use OAuth, MCP's client setups and the site's sections; OAuth, MCP and the site use
    // the identity facts (lib/identity.ts), not the console.
    expect(upward('lib/console/consent.tsx', 'lib/oauth/provider.ts')).toBe(false);
    expect(upward('lib/mcp/refusals.ts', 'lib/identity.ts')).toBe(false);
  });

  it("counts type-only imports: a module that only names another's types depends on it", () => {
    // lib/catalog.ts imports nothing but types from the calculators and the fund data.
    expect(graph).toContainEqual({ from: 'lib/catalog.ts', to: 'lib/calculators/definition.ts', dynamic: false });
    expect(graph).toContainEqual({ from: 'lib/catalog.ts', to: 'lib/fund/definition.ts', dynamic: false });
    const typeOnly = importsOf(parseModule("import type { A } from './a.ts';\nexport type { B } from './b.ts';\n", 'x.ts').program);
    expect(typeOnly.map((i) => i.specifier)).toEqual(['./a.ts', './b.ts']);
    // A cycle through a type-only import is a cycle.
    expect(cycles([...graph, { from: 'lib/calculators/definition.ts', to: 'lib/catalog.ts' }]).flat()).toContain('lib/catalog.ts');
  });
});

describe('sizes', () => {
  const libModules = modules().filter((f) => !f.startsWith('functions/') && !f.startsWith('lib/generated/'));

  it('no module in lib/ or operator/ is over 400 lines', () => {
    const long = libModules
      .map((f) => [f, readFileSync(join(ROOT, f), 'utf8').split('\n').length - 1] as const)
      .filter(([, lines]) => lines > 400);
    expect(long).toEqual([]);
  });

  it('no function in lib/, functions/ or operator/ is over 100 lines', () => {
    const long: string[] = [];
    for (const file of modules().filter((f) => !f.startsWith('lib/generated/'))) {
      const m = parsedOf(file);
      for (const node of nodesOf(m.program)) {
        if (!/Function/.test(node.type) || !node.loc) continue;
        const first = m.sourceLine(node.loc.start.line, node.loc.start.column);
        const last = m.sourceLine(node.loc.end.line, Math.max(0, node.loc.end.column - 1));
        if (last - first + 1 > 100) long.push(`${file}:${first} (${last - first + 1} lines)`);
      }
    }
    expect(long).toEqual([]);
  });
});

describe('a fresh clone', () => {
  it('type-checks before its first build: the tracked files alone, build outputs absent', () => {
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f && f !== 'node_modules' && !f.startsWith('node_modules/') && existsSync(join(ROOT, f)));
    expect(files).toContain('lib/generated/routes.d.ts');
    expect(files).not.toContain('lib/generated/routes.ts');
    const dir = mkdtempSync(join(tmpdir(), 'fund-edge-clone-'));
    try {
      for (const f of files) {
        mkdirSync(join(dir, dirname(f)), { recursive: true });
        cpSync(join(ROOT, f), join(dir, f));
      }
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
      const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      const run = (args: string[]) => execFileSync(process.execPath, [tsc, ...args], { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
      expect(() => run(['--noEmit'])).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
