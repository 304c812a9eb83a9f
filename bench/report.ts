/**
 * Shared helpers of the benchmark suite: the figure record every section returns (value, unit, budget,
 * pass), the table printer, machine information for `bench/results.json`, small statistics, a cleanup
 * registry that stops whatever a section started (also on Ctrl-C), and child-process helpers that run
 * wrangler offline and quietly.
 */
import { execFile } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, arch, platform, release, totalmem, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

/** The sections of the suite, in the order `bench/run.ts` runs them. */
export const SECTIONS = ['size', 'cpu', 'workerd', 'http', 'startup', 'database', 'import', 'scale'] as const;
/** One of the bench's sections, as named on the command line (`--only size,cpu`). */
export type SectionName = (typeof SECTIONS)[number];

/** Units a figure is measured in. */
export type Unit = 'bytes' | 'ms' | 's' | 'req/s' | 'rows/s' | 'MiB' | 'count';

/**
 * A budget. `on: 'value'` compares the figure's value; `on: 'ratio'` compares its ratio (for HTTP: the
 * figure divided by the bare baseline's).
 */
export interface Budget {
  op: '<=' | '>=';
  value: number;
  on: 'value' | 'ratio';
  /** How the budget reads in the table, e.g. `≤ 64 KiB` or `≥ 0.80× baseline`. */
  text: string;
}

/** One measured figure. */
export interface Figure {
  section: SectionName;
  name: string;
  value: number | null;
  unit: Unit;
  budget: Budget | null;
  /** true / false against the budget; null without one (or without a value). */
  pass: boolean | null;
  /** value ÷ budget for a value budget; the caller's ratio (× baseline) otherwise; null when not meaningful. */
  ratio: number | null;
  /** Short free text for the table (spread, sample count, growth, ...). */
  note?: string;
  /** Machine-readable extras for results.json (raw bytes, latency percentiles, top bundle inputs, ...). */
  extra?: Record<string, unknown>;
}

/** Arguments of {@link figure}. */
export interface FigureInput {
  name: string;
  value: number | null;
  unit: Unit;
  budget?: Budget | null;
  ratio?: number | null;
  note?: string;
  extra?: Record<string, unknown>;
}

/** Builds a figure and decides pass/fail. */
export function figure(section: SectionName, input: FigureInput): Figure {
  const budget = input.budget ?? null;
  let ratio = input.ratio ?? null;
  if (budget?.on === 'value' && input.value !== null && ratio === null && budget.value !== 0) ratio = input.value / budget.value;
  const compared = budget === null ? null : budget.on === 'value' ? input.value : ratio;
  const pass = budget === null || compared === null ? null : budget.op === '<=' ? compared <= budget.value : compared >= budget.value;
  return {
    section,
    name: input.name,
    value: input.value,
    unit: input.unit,
    budget,
    pass,
    ratio,
    ...(input.note ? { note: input.note } : {}),
    ...(input.extra ? { extra: input.extra } : {}),
  };
}

/** A budget on a value: `max(value, op, text)`. */
export const atMost = (value: number, text: string): Budget => ({ op: '<=', value, on: 'value', text });
/** A budget on the ratio to a baseline. */
export const ratioAtLeast = (value: number, text: string): Budget => ({ op: '>=', value, on: 'ratio', text });

/** Bytes as KiB with one decimal. */
export function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

/** Milliseconds with precision suited to the magnitude. */
export function ms(value: number): string {
  if (value >= 100) return `${value.toFixed(0)} ms`;
  if (value >= 10) return `${value.toFixed(1)} ms`;
  if (value >= 1) return `${value.toFixed(2)} ms`;
  return `${value.toFixed(3)} ms`;
}

/** A figure's value as the table shows it. */
export function formatValue(value: number | null, unit: Unit): string {
  if (value === null) return 'n/a';
  switch (unit) {
    case 'bytes':
      return kib(value);
    case 'ms':
      return ms(value);
    case 's':
      return `${value.toFixed(1)} s`;
    case 'req/s':
      return `${Math.round(value).toLocaleString('en-US')} req/s`;
    case 'rows/s':
      return `${Math.round(value).toLocaleString('en-US')} rows/s`;
    case 'MiB':
      return `${Math.round(value)} MiB`;
    case 'count':
      return Math.round(value).toLocaleString('en-US');
  }
}

function pad(text: string, width: number, right = false): string {
  const len = [...text].length;
  return right ? ' '.repeat(Math.max(0, width - len)) + text : text + ' '.repeat(Math.max(0, width - len));
}

/** Prints one section's table: figure, value, budget, ratio, ✓/✗, note. */
export function printTable(title: string, figures: readonly Figure[], legend?: string): void {
  const rows = figures.map((f) => [
    f.name,
    formatValue(f.value, f.unit),
    f.budget?.text ?? '—',
    f.ratio === null ? '—' : `${f.ratio.toFixed(2)}×`,
    f.pass === null ? ' ' : f.pass ? '✓' : '✗',
    f.note ?? '',
  ]);
  const header = ['figure', 'value', 'budget', 'ratio', '', 'note'];
  const widths = header.map((h, i) => Math.max([...h].length, ...rows.map((r) => [...r[i]!].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => pad(c, widths[i]!, i === 1 || i === 3))
      .join('  ')
      .trimEnd();
  const misses = figures.filter((f) => f.pass === false).length;
  const budgeted = figures.filter((f) => f.pass !== null).length;
  console.log('');
  console.log(`== ${title} — ${budgeted - misses}/${budgeted} budgets met${misses ? `, ${misses} missed` : ''}`);
  if (legend) console.log(legend);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

/** Machine and run information for results.json. */
export function machineInfo(): Record<string, unknown> {
  const cpuList = cpus();
  let commit: string | null = null;
  let dirty: boolean | null = null;
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    dirty = execFileSync('git', ['status', '--porcelain'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() !== '';
  } catch {
    // Not a git checkout: leave null.
  }
  return {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${platform()} ${release()} ${arch()}`,
    cpus: cpuList.length,
    cpuModel: cpuList[0]?.model ?? 'unknown',
    totalMemoryBytes: totalmem(),
    loadAverageAtStart: loadavg(),
    commit,
    dirty,
  };
}

/** Median of a list (NaN when empty). */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/**
 * Prints an A/B tool's figures under `title`: per label (a case and a build), the median of its runs (ms)
 * and the runs sorted.
 */
export function printMedians(title: string, figures: ReadonlyMap<string, readonly number[]>): void {
  console.log(title);
  for (const [label, runs] of figures) {
    const sorted = [...runs].sort((a, b) => a - b);
    console.log(`${median(sorted).toFixed(2).padStart(7)}  ${label}   [${sorted.map((v) => v.toFixed(1)).join(' ')}]`);
  }
}

/** The p-th percentile (nearest rank on the sorted list; NaN when empty). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Progress on stderr, so stdout carries only the tables. */
export function progress(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** Load settings of the HTTP section: bounded and loopback only. */
export interface LoadSettings {
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
}
/** HTTP load by default: 2 connections (this machine has 2 cores), 1 s warm-up, 5 s measured per target. */
export const DEFAULT_LOAD: LoadSettings = { connections: 2, warmupSeconds: 1, durationSeconds: 5 };

type Task = { name: string; run: () => unknown };

/**
 * Stops what a section started, last started first, logging (not throwing) failures. Every live registry
 * is also run on SIGINT/SIGTERM, so an interrupted run leaves no server behind.
 */
export class Cleanup {
  static readonly live = new Set<Cleanup>();
  private readonly tasks: Task[] = [];

  constructor() {
    Cleanup.live.add(this);
  }

  /** Temp folders of every live registry, removed synchronously if the process exits before `run`. */
  static readonly tempDirs = new Set<string>();

  /** Registers a step. */
  add(name: string, run: () => unknown): void {
    this.tasks.push({ name, run });
  }

  /** Creates a temp folder that `run` (or, failing that, process exit) removes. */
  tempDir(prefix: string): string {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    Cleanup.tempDirs.add(dir);
    this.add(`rm ${dir}`, () => {
      rmSync(dir, { recursive: true, force: true });
      Cleanup.tempDirs.delete(dir);
    });
    return dir;
  }

  /** Runs every step once, newest first. */
  async run(): Promise<void> {
    Cleanup.live.delete(this);
    while (this.tasks.length) {
      const task = this.tasks.pop()!;
      try {
        await task.run();
      } catch (err) {
        progress(`cleanup "${task.name}" failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  /** Runs every live registry (signal handler). */
  static async runAll(): Promise<void> {
    for (const c of [...Cleanup.live]) await c.run();
  }

  /**
   * Makes SIGINT/SIGTERM stop what the bench started before exiting. wrangler, once loaded, registers
   * handlers that call `process.exit()` at once (so a Worker's disposal or a database drop would be cut
   * short): they are replaced by one that runs every live registry, then exits 130. Call again after
   * loading wrangler.
   */
  static installSignalHandlers(): void {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.removeAllListeners(signal);
      process.on(signal, () => {
        if (Cleanup.stopping) return;
        Cleanup.stopping = true;
        progress(`${signal}: stopping what the bench started`);
        setTimeout(() => process.exit(130), 30_000).unref(); // a disposal that hangs must not keep the process
        void Cleanup.runAll().finally(() => process.exit(130));
      });
    }
  }
  private static stopping = false;
}

// Last resort on any exit: temp folders go synchronously (servers and databases need the async steps above).
process.on('exit', () => {
  for (const dir of Cleanup.tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** The repository root (bench/..). */
export const ROOT = join(import.meta.dirname, '..');

/** Environment for any wrangler process or API: offline, quiet, config under the repo. */
export function wranglerEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    WRANGLER_SEND_METRICS: 'false',
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    WRANGLER_HIDE_BANNER: 'true',
    XDG_CONFIG_HOME: join(ROOT, '.config'),
  };
}

/** Sets {@link wranglerEnv} on this process (for wrangler's in-process API). */
export function useWranglerEnv(): void {
  Object.assign(process.env, wranglerEnv());
}

/** Path of a binary in node_modules/.bin. */
export function bin(name: string): string {
  return join(ROOT, 'node_modules', '.bin', name);
}

/**
 * Runs a program and resolves with its stdout and stderr; rejects on a non-zero exit, with stderr's tail.
 * @param timeoutMs killed after this long
 */
export function run(
  file: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string } = {},
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      {
        cwd: options.cwd ?? ROOT,
        env: options.env ?? process.env,
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 64 * 1024 * 1024,
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${file} ${args.join(' ')} failed: ${err.message}\n${String(stderr).slice(-2000)}`));
        else resolve({ stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

// ---------------------------------------------------------------------------------------------------------
// CPU profiles (V8 `.cpuprofile`, from workerd's inspector or node:inspector)

/** The parts of a V8 CPU profile read here. */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
    hitCount?: number;
    children?: number[];
  }[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** A profile node's call frame. */
export type CallFrame = CpuProfile['nodes'][number]['callFrame'];

/**
 * Self time per node, in microseconds, as Chrome DevTools attributes it: sample i lasts until sample i + 1
 * (the last one until the profile's end).
 */
export function selfTimes(profile: CpuProfile): Map<number, number> {
  const out = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let t = profile.startTime;
  const stamps = samples.map((_, i) => (t += deltas[i] ?? 0));
  samples.forEach((id, i) => {
    const next = i + 1 < stamps.length ? stamps[i + 1]! : profile.endTime;
    out.set(id, (out.get(id) ?? 0) + Math.max(0, next - stamps[i]!));
  });
  return out;
}

/** Self time (ms) summed by `key` of each node's call frame (null: left out), largest first. */
export function selfTimeBy(profile: CpuProfile, key: (frame: CallFrame) => string | null): { key: string; ms: number }[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, number>();
  for (const [id, us] of selfTimes(profile)) {
    const node = byId.get(id);
    if (!node) continue;
    const k = key(node.callFrame);
    if (k !== null) totals.set(k, (totals.get(k) ?? 0) + us / 1000);
  }
  return [...totals].map(([k, v]) => ({ key: k, ms: v })).sort((a, b) => b.ms - a.ms);
}

/** The npm package (or repo file, or VM bucket) a source URL belongs to. */
export function packageOf(url: string): string {
  if (!url) return '(V8: native, GC, program)';
  if (url.startsWith('node:')) return 'node internals';
  const path = url.replace(/^file:\/\//, '');
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (m) return m[1]!;
  const root = `${ROOT}/`;
  const file = path.startsWith(root) ? path.slice(root.length) : path;
  // V8 attributes a function inlined into the benchmark's closure to the closure's file.
  return file.startsWith('bench/') ? '(measured code inlined into the bench closure)' : file;
}

/** Top entries as `name 42%` of their total. */
export function shares(entries: readonly { key: string; ms: number }[], count: number): string {
  const total = entries.reduce((s, e) => s + e.ms, 0) || 1;
  return entries
    .slice(0, count)
    .map((e) => `${e.key} ${Math.round((100 * e.ms) / total)}%`)
    .join(', ');
}
