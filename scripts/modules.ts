/**
 * A TypeScript module read as its syntax tree: esbuild strips the types (keeping type-only imports as
 * imports, so the tree shows every module the source names) and acorn parses the JavaScript. Used by the route
 * table's generator (which declaration a file under `functions/` serves, scripts/build-routes.ts) and by the
 * architecture test (the import graph and the length of every function, test/architecture.test.ts).
 */
import { SourceMap } from 'node:module';
import { parse, type Node, type Program } from 'acorn';
import { transformSync } from 'esbuild';

/** One import of a module: what it names, from where, and whether it is loaded lazily (`import()`). */
export interface ModuleImport {
  specifier: string;
  /** Names taken (`default` for a default import, `*` for a namespace); empty for `import()` and bare imports. */
  names: { imported: string; local: string }[];
  dynamic: boolean;
}

/** A parsed module: its syntax tree and the line in the TypeScript source of a position in the tree. */
export interface ParsedModule {
  program: Program;
  /** The 1-based source line of a 1-based line and 0-based column of the stripped JavaScript. */
  sourceLine(line: number, column: number): number;
}

/**
 * Parses a `.ts` or `.tsx` module. `import type` and `export type { … } from` become plain imports and
 * exports before types are stripped, so a module that only names another's types still depends on it.
 * @param text the module's source
 * @param file its name (for the loader, and error messages)
 * @throws {Error} when esbuild or acorn cannot read it
 */
export function parseModule(text: string, file: string): ParsedModule {
  const kept = text.replace(/^(\s*)import type /gm, '$1import ').replace(/^(\s*)export type (\{|\*)/gm, '$1export $2');
  const out = transformSync(kept, {
    loader: file.endsWith('.tsx') ? 'tsx' : 'ts',
    jsx: 'automatic',
    jsxImportSource: 'hono/jsx',
    target: 'es2024',
    sourcemap: 'external',
    sourcefile: file,
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
  });
  const map = new SourceMap(JSON.parse(out.map));
  const program = parse(out.code, { ecmaVersion: 'latest', sourceType: 'module', locations: true });
  return {
    program,
    sourceLine(line, column) {
      const entry = map.findEntry(line - 1, column) as { originalLine?: number };
      return (entry.originalLine ?? line - 1) + 1;
    },
  };
}

/** Every node of a tree, depth first. */
export function* nodesOf(node: Node): Generator<Node> {
  yield node;
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const item of value) if (item && typeof item.type === 'string') yield* nodesOf(item as Node);
    } else if (value && typeof value === 'object' && typeof (value as Node).type === 'string') yield* nodesOf(value as Node);
  }
}

/** The fields of the nodes this module reads (acorn's own types name each node kind apart). */
interface Syntax extends Node {
  source?: { type: string; value?: unknown } | null;
  specifiers?: { type: string; imported?: { name?: string; value?: unknown }; local: { name: string } }[];
}

/** The imports and re-exports of a parsed module, in source order. */
export function importsOf(program: Program): ModuleImport[] {
  const out: ModuleImport[] = [];
  for (const node of nodesOf(program)) {
    const n = node as Syntax;
    if (n.type === 'ImportDeclaration') {
      out.push({
        specifier: String(n.source!.value),
        dynamic: false,
        names: n.specifiers!.map((s) => ({
          imported:
            s.type === 'ImportDefaultSpecifier'
              ? 'default'
              : s.type === 'ImportNamespaceSpecifier'
                ? '*'
                : String(s.imported?.name ?? s.imported?.value),
          local: s.local.name,
        })),
      });
    } else if ((n.type === 'ExportNamedDeclaration' || n.type === 'ExportAllDeclaration') && n.source) {
      out.push({ specifier: String(n.source.value), dynamic: false, names: [] });
    } else if (n.type === 'ImportExpression' && n.source?.type === 'Literal') {
      out.push({ specifier: String(n.source.value), dynamic: true, names: [] });
    }
  }
  return out;
}
