/**
 * Size: what the host platform loads. Every endpoint file under `functions/` bundled alone with esbuild as
 * wrangler bundles for workerd (ESM, platform `browser`, conditions `workerd, worker, browser`, target
 * es2024, names kept as wrangler.toml's `keep_names` says, `process.env.NODE_ENV` = "production", `node:*`
 * external under nodejs_compat), minified and gzipped; and the whole Worker exactly as wrangler would deploy it (`wrangler deploy --dry-run
 * --outdir`), gzipped. Budgets (docs/performance.md): calculator and fund endpoints (and the OpenAPI endpoint) ≤ 64 KiB
 * gzipped, an MCP server ≤ 160 KiB, the Worker ≤ 400 KiB (Cloudflare's free-plan limit is 3 MiB).
 * esbuild's metafile names the five largest inputs of every bundle, reported for the misses.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { unstable_readConfig } from 'wrangler';
import { Cleanup, ROOT, atMost, bin, figure, kib, progress, run, wranglerEnv, type Figure } from './report.ts';

const KIB = 1024;
/** Budgets (docs/performance.md), gzipped bytes. */
export const SIZE_BUDGETS = { endpoint: 64 * KIB, mcp: 160 * KIB, worker: 400 * KIB } as const;

/** The MCP server endpoint files (budget 160 KiB). */
const MCP_FILES = new Set(['functions/api/mcp.ts', 'functions/api/mcp/public.ts']);

/** One of the largest inputs of a bundle. */
export interface TopInput {
  path: string;
  bytes: number;
}

/** Every `.ts` file under `functions/`, repo-relative, sorted. */
export function endpointFiles(): string[] {
  const dir = join(ROOT, 'functions');
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((p) => join('functions', p))
    .filter((p) => p.endsWith('.ts') && statSync(join(ROOT, p)).isFile())
    .sort();
}

function kindOf(file: string): { kind: 'calculator' | 'fund' | 'mcp' | 'other'; budget: number; budgetText: string } {
  if (MCP_FILES.has(file)) return { kind: 'mcp', budget: SIZE_BUDGETS.mcp, budgetText: '≤ 160 KiB' };
  if (file.startsWith('functions/api/v1/calc/')) return { kind: 'calculator', budget: SIZE_BUDGETS.endpoint, budgetText: '≤ 64 KiB' };
  if (file.startsWith('functions/api/v1/fund/')) return { kind: 'fund', budget: SIZE_BUDGETS.endpoint, budgetText: '≤ 64 KiB' };
  return { kind: 'other', budget: SIZE_BUDGETS.endpoint, budgetText: '≤ 64 KiB' };
}

/** Largest inputs of an esbuild output by bytes in the output. */
export function topInputs(metafile: esbuild.Metafile, count = 5): TopInput[] {
  const out = Object.values(metafile.outputs).find((o) => o.entryPoint !== undefined) ?? Object.values(metafile.outputs)[0];
  if (!out) return [];
  return Object.entries(out.inputs)
    .map(([path, v]) => ({ path, bytes: v.bytesInOutput }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, count);
}

/** Bytes per npm package (or `lib/`, `functions/`) of an esbuild output. */
export function bytesByPackage(metafile: esbuild.Metafile): TopInput[] {
  const out = Object.values(metafile.outputs).find((o) => o.entryPoint !== undefined) ?? Object.values(metafile.outputs)[0];
  const totals = new Map<string, number>();
  for (const [path, v] of Object.entries(out?.inputs ?? {})) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
    const key = m ? m[1]! : path.split('/')[0]!;
    totals.set(key, (totals.get(key) ?? 0) + v.bytesInOutput);
  }
  return [...totals].map(([path, bytes]) => ({ path, bytes })).sort((a, b) => b.bytes - a.bytes);
}

/** The `[alias]` table of wrangler.toml (module → replacement path), applied as wrangler applies it. */
export function wranglerAliases(): Record<string, string> {
  const toml = readFileSync(join(ROOT, 'wrangler.toml'), 'utf8');
  const section = /^\[alias\]\s*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(toml)?.[1] ?? '';
  const aliases: Record<string, string> = {};
  for (const m of section.matchAll(/^"([^"]+)"\s*=\s*"([^"]+)"/gm)) aliases[m[1]!] = m[2]!;
  return aliases;
}

/** wrangler.toml's top-level `keep_names` as wrangler reads it (its default: true), which esbuild's `keepNames` follows. */
export function wranglerKeepsNames(): boolean {
  return unstable_readConfig({ config: join(ROOT, 'wrangler.toml') }).keep_names ?? true;
}

/**
 * Bundles one endpoint file as wrangler would for workerd; returns minified bytes, gzipped bytes and the metafile.
 * @param alsoExternal packages left out (for "what if" diagnostics only)
 */
export async function bundleEndpoint(
  file: string,
  alsoExternal: readonly string[] = [],
): Promise<{ minified: number; gzipped: number; metafile: esbuild.Metafile }> {
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [file],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    target: 'es2024',
    keepNames: wranglerKeepsNames(),
    external: ['node:*', 'cloudflare:*', ...alsoExternal],
    alias: wranglerAliases(),
    define: {
      'process.env.NODE_ENV': '"production"',
      'global.process.env.NODE_ENV': '"production"',
      'globalThis.process.env.NODE_ENV': '"production"',
    },
    loader: { '.js': 'jsx', '.mjs': 'jsx', '.cjs': 'jsx' },
    outdir: 'out', // not written (write: false); names the output file `out/<entry>.js`
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const output = result.outputFiles.find((f) => f.path.endsWith('.js'));
  if (!output) throw new Error(`esbuild produced no JavaScript for ${file}`);
  const js = output.contents;
  return { minified: js.byteLength, gzipped: gzipSync(js).byteLength, metafile: result.metafile };
}

function describeTop(top: readonly TopInput[]): string {
  return top.map((t) => `${t.path.replace(/^node_modules\//, '')} ${kib(t.bytes)}`).join(', ');
}

/** Runs `wrangler deploy --dry-run` into a temp folder; returns the module bytes (no source maps) and wrangler's own summary. */
async function wranglerBundle(cleanup: Cleanup, minify: boolean) {
  const outdir = cleanup.tempDir('fund-edge-bench-size-');
  const metafilePath = join(outdir, 'meta.json');
  const args = ['deploy', '--dry-run', '--outdir', join(outdir, 'out'), '--metafile', metafilePath, ...(minify ? ['--minify'] : [])];
  const { stdout, stderr } = await run(bin('wrangler'), args, { env: wranglerEnv(), timeoutMs: 120_000 });
  const files = (readdirSync(join(outdir, 'out'), { recursive: true }) as string[]).filter(
    (p) => !p.endsWith('.map') && p !== 'README.md' && statSync(join(outdir, 'out', p)).isFile(),
  );
  let raw = 0;
  let gzipped = 0;
  for (const p of files) {
    const bytes = readFileSync(join(outdir, 'out', p));
    raw += bytes.byteLength;
    gzipped += gzipSync(bytes).byteLength;
  }
  const summary = /Total Upload: ([\d.]+ KiB) \/ gzip: ([\d.]+ KiB)/.exec(stdout + stderr);
  const metafile = JSON.parse(readFileSync(metafilePath, 'utf8')) as esbuild.Metafile;
  return { raw, gzipped, files, wranglerSays: summary ? `${summary[1]} / gzip ${summary[2]}` : 'n/a', metafile };
}

/** The size section. */
export async function runSize(): Promise<{ figures: Figure[]; diagnostics: string[] }> {
  const cleanup = new Cleanup();
  const figures: Figure[] = [];
  const diagnostics: string[] = [];
  try {
    const files = endpointFiles();
    const misses: {
      file: string;
      kind: string;
      gzipped: number;
      budget: number;
      budgetText: string;
      top: TopInput[];
      metafile: esbuild.Metafile;
    }[] = [];
    progress(`size: bundling ${files.length} endpoint files with esbuild ${esbuild.version}`);
    for (const file of files) {
      const { minified, gzipped, metafile } = await bundleEndpoint(file);
      const { kind, budget, budgetText } = kindOf(file);
      const top = topInputs(metafile);
      const f = figure('size', {
        name: `${relative('functions', file)} (${kind}) gz`,
        value: gzipped,
        unit: 'bytes',
        budget: atMost(budget, budgetText),
        note: `min ${kib(minified)} (${minified.toLocaleString('en-US')} B), gz ${gzipped.toLocaleString('en-US')} B`,
        extra: { file, kind, minifiedBytes: minified, gzipBytes: gzipped, topInputs: top, byPackage: bytesByPackage(metafile).slice(0, 8) },
      });
      figures.push(f);
      if (f.pass === false) misses.push({ file, kind, gzipped, budget, budgetText, top, metafile });
    }
    // One diagnosis per kind of endpoint (the bundles of one kind share their dependencies): the range over
    // budget, the five largest inputs of the largest bundle, and what dropping its largest package would save.
    for (const kind of ['calculator', 'fund', 'mcp', 'other'] as const) {
      const group = misses.filter((m) => m.kind === kind).sort((a, b) => b.gzipped - a.gzipped);
      const worst = group[0];
      if (!worst) continue;
      const least = group[group.length - 1]!;
      const pkg = bytesByPackage(worst.metafile).find((p) => !['lib', 'functions'].includes(p.path));
      let whatIf = '';
      if (pkg) {
        const without = await bundleEndpoint(worst.file, [pkg.path]);
        whatIf = ` Without ${pkg.path} (${kib(pkg.bytes)} minified) ${worst.file} would be ${kib(without.gzipped)} gz.`;
      }
      diagnostics.push(
        `${group.length} ${kind} endpoint(s) over ${worst.budgetText}: ${kib(least.gzipped)}–${kib(worst.gzipped)} gz ` +
          `(${kib(least.gzipped - least.budget)}–${kib(worst.gzipped - worst.budget)} over). Largest, ${worst.file}, top inputs ` +
          `(minified bytes in output): ${describeTop(worst.top)}. By package: ` +
          `${bytesByPackage(worst.metafile)
            .slice(0, 6)
            .map((p) => `${p.path} ${kib(p.bytes)}`)
            .join(', ')}.${whatIf}`,
      );
    }

    progress('size: wrangler deploy --dry-run (as deployed, then with --minify)');
    const worker = await wranglerBundle(cleanup, false);
    const wf = figure('size', {
      name: 'Worker as deployed (wrangler deploy --dry-run) gz',
      value: worker.gzipped,
      unit: 'bytes',
      budget: atMost(SIZE_BUDGETS.worker, '≤ 400 KiB'),
      note: `raw ${kib(worker.raw)} (${worker.raw.toLocaleString('en-US')} B, minified as wrangler.toml sets), gz ${worker.gzipped.toLocaleString('en-US')} B; wrangler: ${worker.wranglerSays}; free-plan limit 3 MiB`,
      extra: {
        rawBytes: worker.raw,
        gzipBytes: worker.gzipped,
        files: worker.files,
        wranglerSummary: worker.wranglerSays,
        topInputs: topInputs(worker.metafile, 10),
        byPackage: bytesByPackage(worker.metafile).slice(0, 10),
      },
    });
    figures.push(wf);
    const minified = await wranglerBundle(cleanup, true);
    figures.push(
      figure('size', {
        name: 'Worker with --minify (information) gz',
        value: minified.gzipped,
        unit: 'bytes',
        note: `raw ${kib(minified.raw)} (${minified.raw.toLocaleString('en-US')} B), gz ${minified.gzipped.toLocaleString('en-US')} B; wrangler: ${minified.wranglerSays}`,
        extra: { rawBytes: minified.raw, gzipBytes: minified.gzipped, wranglerSummary: minified.wranglerSays },
      }),
    );
    const pkgs = bytesByPackage(worker.metafile).slice(0, 6);
    diagnostics.push(`Worker (${kib(worker.raw)} raw) by package: ${pkgs.map((p) => `${p.path} ${kib(p.bytes)}`).join(', ')}.`);
    if (wf.pass === false) diagnostics.push(`Worker: top inputs ${describeTop(topInputs(worker.metafile))}.`);
    return { figures, diagnostics };
  } finally {
    await cleanup.run();
  }
}
