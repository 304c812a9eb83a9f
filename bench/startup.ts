/**
 * Startup: the CPU time the Worker takes to start (evaluate its module, which builds the app with
 * `createApp()`, and run its warm-ups: lib/worker.ts), budget ≤ 100 ms (docs/performance.md).
 *
 * Measured with `wrangler check startup` (wrangler 4.86), which runs offline: it loads the deployable bundle
 * (`wrangler deploy --dry-run --outfile`, built once) into a local workerd, imports the Worker's module under
 * V8's CPU profiler and writes the `.cpuprofile`. The figure is the number of samples outside `(idle)` times
 * the sampling interval (about 1 ms), median of seven runs. To show which packages the time goes to, the
 * same Worker bundled unminified (which names each module in a `// path` comment) is profiled three times and
 * its median profile's frames are mapped back to the bundled modules.
 *
 * Cross-check (information, no budget): the same bundle imported by a fresh Node process, wall and CPU time
 * of the import (compile, module evaluation and the first `createApp()`), median of seven.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  Cleanup,
  atMost,
  bin,
  figure,
  median,
  ms,
  progress,
  run,
  shares,
  wranglerEnv,
  type CallFrame,
  type CpuProfile,
  type Figure,
} from './report.ts';

/**
 * Budget (docs/performance.md#which-plan-fits), ms. Cloudflare's limit is 1 s, and startup is not counted
 * against a request's CPU limit; what it costs is the latency of a cold start. Work that a first request
 * would otherwise pay for (the MCP SDK's, the schemas', every fund tool's runs: lib/fund/warm-up.ts) is done
 * here on purpose, within this budget. It was 80 ms until the fund tools ran nine times instead of once, which
 * costs startup about a sixth more and takes 4–8 ms off a large fund's heaviest first requests.
 */
export const STARTUP_BUDGET_MS = 100;
const RUNS = 7;
/** Runs of the unminified bundle, profiled only to attribute startup time to packages. */
const ATTRIBUTION_RUNS = 3;

/** The modules of an unminified esbuild bundle by first line (0-based), from its `// path` comments. */
function moduleLines(js: string): { line: number; path: string }[] {
  const out: { line: number; path: string }[] = [];
  js.split('\n').forEach((text, line) => {
    const m = /^\/\/ ((?:node_modules|lib|functions)\/\S+)$/.exec(text);
    if (m) out.push({ line, path: m[1]! });
  });
  return out;
}

/** The package (or `lib/...` file) of the bundled module that holds `line` (0-based). */
function moduleAt(modules: readonly { line: number; path: string }[], line: number): string {
  let lo = 0;
  let hi = modules.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (modules[mid]!.line <= line) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (found < 0) return '(esbuild runtime helpers)';
  const path = modules[found]!.path;
  const pkg = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  return pkg ? pkg[1]! : path;
}

/** The profile's sampling interval: the median time between samples, ms. */
export function samplingIntervalMs(profile: CpuProfile): number {
  return median((profile.timeDeltas ?? []).slice(1)) / 1000;
}

/**
 * Startup CPU of one profile, ms: samples outside `(idle)` × the sampling interval. (Summing the gaps
 * between samples instead would charge the wait between the module's end and the profiler's stop to the
 * last sample.)
 */
export function startupCpuMs(profile: CpuProfile): number {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const busy = (profile.samples ?? []).filter((id) => byId.get(id)?.callFrame.functionName !== '(idle)').length;
  return busy * samplingIntervalMs(profile);
}

/**
 * Startup CPU by the bundled package it is spent in, ms (same estimate as {@link startupCpuMs}). Time in
 * workerd's own code (its `node:` polyfills, e.g. `process` built on first use) counts for the bundled
 * module that called it; samples with no bundled caller are V8's own (GC, compiling).
 */
export function startupByPackage(profile: CpuProfile, modules: readonly { line: number; path: string }[]): { key: string; ms: number }[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const interval = samplingIntervalMs(profile);
  const totals = new Map<string, number>();
  for (const id of profile.samples ?? []) {
    const leaf = byId.get(id)?.callFrame;
    if (!leaf || leaf.functionName === '(idle)') continue;
    let owner: string | null = null;
    for (let x: number | undefined = id; x !== undefined && owner === null; x = parent.get(x)) {
      const frame: CallFrame = byId.get(x)!.callFrame;
      if (frame.url.endsWith('.js')) owner = frame.lineNumber < 0 ? '(bundle top level)' : moduleAt(modules, frame.lineNumber);
    }
    const key = owner ?? `(V8: ${leaf.functionName || 'native'})`;
    totals.set(key, (totals.get(key) ?? 0) + interval);
  }
  return [...totals].map(([key, v]) => ({ key, ms: v })).sort((a, b) => b.ms - a.ms);
}

/** The main module's source from a bundle written by `wrangler deploy --outfile` (multipart form data). */
async function mainModule(bundlePath: string): Promise<string> {
  const bytes = readFileSync(bundlePath);
  const boundary = bytes.subarray(2, bytes.indexOf(10)).toString().trim();
  const form = await new Response(bytes, { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }).formData();
  const metadata = JSON.parse(String(form.get('metadata'))) as { main_module: string };
  // (Typed loosely: the Workers types give FormData.get a string; Node's returns the module as a File.)
  const main = form.get(metadata.main_module) as unknown as Blob | string | null;
  if (!main || typeof main === 'string') throw new Error('the bundle has no main module');
  return await main.text();
}

const NODE_IMPORT = `
const file = process.argv[2];
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await import(file);
const wall = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
process.stdout.write(JSON.stringify({ wallMs: wall, cpuMs: (cpu.user + cpu.system) / 1000 }));
`;

/** The startup section. */
export async function runStartup(): Promise<{ figures: Figure[]; diagnostics: string[] }> {
  const cleanup = new Cleanup();
  const diagnostics: string[] = [];
  try {
    const dir = cleanup.tempDir('fund-edge-bench-startup-');
    const bundle = join(dir, 'worker.bundle');
    progress('startup: wrangler deploy --dry-run --outfile (the bundle check startup loads)');
    await run(bin('wrangler'), ['deploy', '--dry-run', '--outfile', bundle], { env: wranglerEnv() });
    const js = await mainModule(bundle);
    // The deployed bundle is minified (wrangler.toml), which leaves no `// path` comment to attribute time
    // by: the same bundle unminified is profiled for the by-package breakdown only.
    const plainBundle = join(dir, 'worker-unminified.bundle');
    await run(bin('wrangler'), ['deploy', '--dry-run', '--minify=false', '--outfile', plainBundle], { env: wranglerEnv() });
    const modules = moduleLines(await mainModule(plainBundle));

    const profile = async (file: string, i: number): Promise<CpuProfile> => {
      const out = join(dir, `startup-${i}.cpuprofile`);
      await run(bin('wrangler'), ['check', 'startup', '--worker', file, '--outfile', out], { env: wranglerEnv(), timeoutMs: 60_000 });
      return JSON.parse(readFileSync(out, 'utf8')) as CpuProfile;
    };
    const profiles: CpuProfile[] = [];
    for (let i = 0; i < RUNS; i++) {
      progress(`startup: wrangler check startup ${i + 1}/${RUNS}`);
      profiles.push(await profile(bundle, i));
    }
    const times = profiles.map(startupCpuMs);
    const med = median(times);
    const interval = samplingIntervalMs(profiles[times.indexOf(med)]!);
    progress(`startup: wrangler check startup of the unminified bundle ×${ATTRIBUTION_RUNS} (by package)`);
    const plainProfiles: CpuProfile[] = [];
    for (let i = 0; i < ATTRIBUTION_RUNS; i++) plainProfiles.push(await profile(plainBundle, RUNS + i));
    const plainTimes = plainProfiles.map(startupCpuMs);
    const byPackage = startupByPackage(plainProfiles[plainTimes.indexOf(median(plainTimes))]!, modules);
    const f = figure('startup', {
      name: 'Worker startup CPU (wrangler check startup, workerd profile)',
      value: med,
      unit: 'ms',
      budget: atMost(STARTUP_BUDGET_MS, `≤ ${STARTUP_BUDGET_MS} ms`),
      note: `median of ${RUNS}: ${times.map((t) => t.toFixed(0)).join(', ')} ms (busy samples × ${interval.toFixed(2)} ms interval)`,
      extra: { runsMs: times, samplingIntervalMs: interval, unminifiedRunsMs: plainTimes, byPackage: byPackage.slice(0, 12) },
    });
    const figures = [f];
    diagnostics.push(
      `Startup CPU by package (unminified bundle, median of ${ATTRIBUTION_RUNS}: ${ms(median(plainTimes))}): ${shares(byPackage, 6)}.`,
    );
    if (f.pass === false) diagnostics.push(`Startup is ${ms(med - STARTUP_BUDGET_MS)} over ${f.budget!.text}.`);

    progress(`startup: Node import of the same bundle ×${RUNS} (cross-check)`);
    const moduleFile = join(dir, 'worker.mjs');
    const runner = join(dir, 'import.mjs');
    writeFileSync(moduleFile, js);
    writeFileSync(runner, NODE_IMPORT);
    const node: { wallMs: number; cpuMs: number }[] = [];
    for (let i = 0; i < RUNS; i++) {
      const { stdout } = await run(process.execPath, [runner, pathToFileURL(moduleFile).href], { timeoutMs: 60_000 });
      node.push(JSON.parse(stdout) as { wallMs: number; cpuMs: number });
    }
    const wall = median(node.map((n) => n.wallMs));
    const cpu = median(node.map((n) => n.cpuMs));
    figures.push(
      figure('startup', {
        name: 'Node: import the bundled Worker (evaluate + first createApp), wall',
        value: wall,
        unit: 'ms',
        note: `median of ${RUNS}: ${node.map((n) => n.wallMs.toFixed(0)).join(', ')} ms; process CPU ${ms(cpu)} (incl. compile, GC threads)`,
        extra: { runs: node },
      }),
    );
    return { figures, diagnostics };
  } finally {
    await cleanup.run();
  }
}
