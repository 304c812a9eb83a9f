/**
 * Node module hooks for the bench's child processes: Node's type stripping reads `.ts` but not `.tsx`
 * (the developer console's pages, imported by lib/service.ts), so `.tsx` files are compiled by esbuild with the
 * JSX settings of tsconfig.json (`react-jsx`, `hono/jsx`). Registered by `--import ./bench/tsx-register.ts`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';

type Next = (url: string, context?: unknown) => Promise<{ format?: string; source?: unknown; shortCircuit?: boolean }>;

/** Loads a `.tsx` module as ES module JavaScript; everything else is left to Node. */
export async function load(url: string, context: unknown, next: Next) {
  if (!url.startsWith('file:') || !url.endsWith('.tsx')) return next(url, context);
  const path = fileURLToPath(url);
  const { code } = transformSync(readFileSync(path, 'utf8'), {
    loader: 'tsx',
    format: 'esm',
    jsx: 'automatic',
    jsxImportSource: 'hono/jsx',
    sourcefile: path,
    target: 'es2022',
  });
  return { format: 'module', source: code, shortCircuit: true };
}
