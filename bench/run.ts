/**
 * `npm run bench`: the benchmark suite (docs/performance.md) — the service as its users and its host platform see it.
 * Runs the sections (size, cpu, workerd, http, startup, database, import, scale), prints a table per section (figure, value,
 * budget, ratio, ✓/✗, note) with a diagnosis of each miss, and writes `bench/results.json` (machine, date,
 * every figure with value, unit, budget and pass). Benchmarks, not tests: the exit code is 0 even when a
 * budget is missed (`--strict` makes a miss exit 1); a section that fails to run exits 1.
 *
 * Usage: node --experimental-strip-types --disable-warning=ExperimentalWarning bench/run.ts [options]
 *   --only <s,...>     run only these sections (size, cpu, workerd, http, startup, database, import, scale)
 *   --skip <s,...>     run all but these
 *   --out <file>       where to write the results (default bench/results.json)
 *   --duration <s>     measured seconds per HTTP target, in 1 s slices interleaved with as many of the
 *                      baseline (default 5; at most 30)
 *   --warmup <s>       warm-up seconds per HTTP target (default 1)
 *   --connections <n>  HTTP connections (default 2; at most 2)
 *   --strict           exit 1 when a budget is missed
 *   --fresh            scale: import the large funds again into fund_edge_scale (else kept from the last run)
 *   --cases <a,...>    scale: only the cases whose name contains one of these (e.g. `var,capital`); the
 *                      concurrency case runs when one of them is `concurrent`
 *
 * Every server a section starts (workerd, the Postgres WebSocket proxy, the throwaway database, temp
 * folders) is stopped by that section's `finally`, and by a SIGINT/SIGTERM handler if interrupted.
 */
import './tsx-register.ts'; // before the sections' dynamic imports: lib/service.ts imports the console's .tsx
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  Cleanup,
  DEFAULT_LOAD,
  ROOT,
  SECTIONS,
  machineInfo,
  ms,
  printTable,
  progress,
  type Figure,
  type LoadSettings,
  type SectionName,
} from './report.ts';
import { FIRST_REQUEST_LABEL } from './first-requests.ts';
import { FEE_CALCULATOR, FEE_TERMS, OPERATING_COST, OVERVIEW, POSITIONS, VALUE_AT_RISK, short } from './targets.ts';

interface SectionResult {
  durationMs: number;
  figures: Figure[];
  diagnostics: string[];
  error?: string;
}

const TITLES: Record<SectionName, string> = {
  size: 'Size: endpoint bundles (esbuild, minified + gzip) and the Worker as deployed',
  cpu: 'CPU per call (tinybench, median)',
  workerd: 'First request of a fresh isolate in workerd (CPU of workerd’s main thread)',
  http: 'HTTP under wrangler dev (autocannon), vs the bare baseline Worker',
  startup: 'Startup CPU of the Worker',
  database: 'Database path (callFundTool on postgresStore through @neondatabase/serverless)',
  import: 'Fund import (npm run fund -- import): a 5-year, 500-position fund, against raw COPY of the same rows',
  scale: 'Scale: every fund endpoint and tool on the 5-year fund (500 and 1,000 positions) through PostgreSQL, in workerd',
};

const LEGENDS: Partial<Record<SectionName, string>> = {
  size: 'ratio = gzipped size ÷ budget',
  cpu: 'value = median ms per call; ratio = median ÷ budget; scaling rows say how time grows with size',
  workerd: 'value = median ms of CPU over fresh isolates; ratio = median ÷ budget',
  http: 'ratio = figure ÷ the baseline’s measured alongside (interleaved 1 s slices); for latency, higher is slower',
  database: 'ratio = round trips ÷ budget',
  import: 'ratio = value ÷ budget; for rows/s, the import ÷ raw COPY of the same rows in the same run',
  scale: 'ratio = value ÷ budget; the database is kept in fund_edge_scale between runs (--fresh imports again)',
};

function sectionList(values: { only?: string; skip?: string }): SectionName[] {
  const parse = (text: string) =>
    text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((s) => {
        if (!(SECTIONS as readonly string[]).includes(s)) throw new Error(`unknown section "${s}" (one of ${SECTIONS.join(', ')})`);
        return s as SectionName;
      });
  const only = values.only ? parse(values.only) : [...SECTIONS];
  const skip = new Set(values.skip ? parse(values.skip) : []);
  return SECTIONS.filter((s) => only.includes(s) && !skip.has(s));
}

async function runSection(name: SectionName, load: LoadSettings): Promise<{ figures: Figure[]; diagnostics: string[] }> {
  switch (name) {
    case 'size':
      return (await import('./size.ts')).runSize();
    case 'cpu':
      return (await import('./cpu.ts')).runCpu();
    case 'workerd': {
      const workerd = await import('./workerd.ts');
      Cleanup.installSignalHandlers(); // again: loading wrangler replaced them
      return workerd.runWorkerd();
    }
    case 'http': {
      const http = await import('./http.ts');
      Cleanup.installSignalHandlers(); // again: loading wrangler replaced them
      return http.runHttp(load);
    }
    case 'startup':
      return (await import('./startup.ts')).runStartup();
    case 'database':
      return (await import('./database.ts')).runDatabase();
    case 'scale': {
      const scale = await import('./scale.ts');
      Cleanup.installSignalHandlers(); // again: loading wrangler replaced them
      return scale.runScale();
    }
    case 'import':
      return (await import('./import.ts')).runImport();
  }
}

/**
 * HTTP vs in-process CPU: how much of a target's p50 over the baseline's is the computation measured in the
 * cpu section, and how much is the path around it (auth, KV, rate limit, MCP transport, workerd).
 */
function crossCheck(results: Partial<Record<SectionName, SectionResult>>): string[] {
  const http = results.http?.figures;
  const cpu = results.cpu?.figures;
  if (!http || !cpu) return [];
  const pairs: [string, string, string][] = [
    [`POST ${short(FEE_CALCULATOR)}`, `request in process: POST ${short(FEE_CALCULATOR)}`, short(FEE_CALCULATOR).replace('/', ' ')],
    [`probe: POST ${short(OPERATING_COST)}`, 'calc operating-cost-calculator (typical)', 'probe calc operating-cost (computation only)'],
    [`GET ${short(OVERVIEW)}`, `request in process: GET ${short(OVERVIEW)}`, short(OVERVIEW).replace('/', ' ')],
    [`GET ${short(POSITIONS)}`, `request in process: GET ${short(POSITIONS)}`, short(POSITIONS).replace('/', ' ')],
    [`GET ${short(VALUE_AT_RISK)}`, `request in process: GET ${short(VALUE_AT_RISK)}`, short(VALUE_AT_RISK).replace('/', ' ')],
    [
      `probe: GET ${short(FEE_TERMS)} (demo key)`,
      `callFundTool ${short(FEE_TERMS).slice('fund/'.length)} `,
      `probe ${short(FEE_TERMS).replace('/', ' ')}, demo key (tool call only)`,
    ],
    [
      `probe: GET ${short(FEE_TERMS)} (minted key)`,
      `callFundTool ${short(FEE_TERMS).slice('fund/'.length)} `,
      `probe ${short(FEE_TERMS).replace('/', ' ')}, minted key (tool call only)`,
    ],
    ['MCP public: calc_fee_calculator', 'request in process: MCP public', 'MCP public calc_fee_calculator'],
    ['MCP fund: get_fund_overview', 'request in process: MCP fund', 'MCP fund get_fund_overview'],
  ];
  const lines: string[] = [];
  for (const [httpName, cpuName, label] of pairs) {
    const p50 = http.find((f) => f.name.startsWith(httpName) && f.name.endsWith(' · p50'));
    const c = cpu.find((f) => f.name.startsWith(cpuName))?.value ?? null;
    if (!p50 || p50.value === null || !p50.ratio || c === null) continue;
    const base = p50.value / p50.ratio;
    lines.push(
      `${label}: p50 ${ms(p50.value)} = baseline alongside ${ms(base)} + ${ms(p50.value - base)}; in process (Node, no I/O) it costs ${ms(c)}.`,
    );
  }
  const head =
    "HTTP p50 over the baseline vs the same work in process (cpu section). With 2 connections a request may also wait for the other one's CPU, so p50 over baseline ≈ 1–2 × the CPU when the path is CPU-bound; much more means I/O (local KV, workerd).";
  return lines.length ? [head, ...lines.map((l) => `  ${l}`)] : [];
}

/**
 * Each first request in workerd beside the same request's first-request figure in Node (cpu section): the
 * figure a deployment sees is workerd's; Node's loads its own JavaScript Request and stream code first.
 */
function firstRequestSideBySide(results: Partial<Record<SectionName, SectionResult>>): {
  lines: string[];
  rows: { request: string; workerdMs: number | null; nodeMs: number | null }[];
} {
  const workerd = results.workerd?.figures;
  const cpu = results.cpu?.figures;
  if (!workerd || !cpu) return { lines: [], rows: [] };
  const rows = workerd
    .filter((f) => f.budget !== null)
    .map((f) => {
      const request = f.name.slice(FIRST_REQUEST_LABEL.workerd.length);
      return { request, workerdMs: f.value, nodeMs: cpu.find((g) => g.name === `${FIRST_REQUEST_LABEL.node}${request}`)?.value ?? null };
    });
  const cell = (v: number | null) => (v === null ? 'n/a' : ms(v)).padStart(8);
  const width = Math.max(...rows.map((r) => r.request.length));
  return {
    rows,
    lines: [
      'First request of a fresh isolate, CPU ms: workerd (what Cloudflare counts; workerd section) beside Node (cpu section), budget 10 ms.',
      `  ${'request'.padEnd(width)}  ${'workerd'.padStart(8)}  ${'Node'.padStart(8)}`,
      ...rows.map((r) => `  ${r.request.padEnd(width)}  ${cell(r.workerdMs)}  ${cell(r.nodeMs)}`),
    ],
  };
}

async function main(): Promise<number> {
  const started = performance.now();
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      skip: { type: 'string' },
      out: { type: 'string', default: join(ROOT, 'bench', 'results.json') },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      strict: { type: 'boolean', default: false },
      fresh: { type: 'boolean', default: false },
      cases: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(
      'Usage: bench/run.ts [--only s,...] [--skip s,...] [--out file] [--duration s] [--warmup s] [--connections n] [--strict] [--fresh]',
    );
    console.log(`Sections: ${SECTIONS.join(', ')}`);
    return 0;
  }
  const sections = sectionList(values);
  const number = (text: string | undefined, fallback: number, min: number, max: number, name: string) => {
    if (text === undefined) return fallback;
    const n = Number(text);
    if (!Number.isFinite(n) || n < min || n > max) throw new Error(`--${name} must be a number from ${min} to ${max}`);
    return n;
  };
  const load: LoadSettings = {
    durationSeconds: number(values.duration, DEFAULT_LOAD.durationSeconds, 1, 30, 'duration'),
    warmupSeconds: number(values.warmup, DEFAULT_LOAD.warmupSeconds, 0, 10, 'warmup'),
    connections: Math.round(number(values.connections, DEFAULT_LOAD.connections, 1, 2, 'connections')),
  };

  const machine = machineInfo();
  progress(`sections: ${sections.join(', ')}; node ${process.version}, ${String(machine.cpus)} CPUs`);
  const results: Partial<Record<SectionName, SectionResult>> = {};
  let failed = false;
  for (const name of sections) {
    const t0 = performance.now();
    try {
      const r = await runSection(name, load);
      results[name] = { durationMs: performance.now() - t0, ...r };
    } catch (err) {
      failed = true;
      const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
      results[name] = { durationMs: performance.now() - t0, figures: [], diagnostics: [], error: message };
      progress(`${name} failed: ${message}`);
    }
    const r = results[name]!;
    printTable(`${TITLES[name]} (${(r.durationMs / 1000).toFixed(1)} s)`, r.figures, LEGENDS[name]);
    if (r.error) console.log(`SECTION FAILED: ${r.error.split('\n')[0]}`);
    for (const d of r.diagnostics) console.log(`  • ${d}`);
  }
  const cross = crossCheck(results);
  if (cross.length) {
    console.log('');
    for (const line of cross) console.log(line);
  }
  const firstRequests = firstRequestSideBySide(results);
  if (firstRequests.lines.length) {
    console.log('');
    for (const line of firstRequests.lines) console.log(line);
  }

  const all = Object.values(results).flatMap((r) => r.figures);
  const budgeted = all.filter((f) => f.pass !== null);
  const misses = budgeted.filter((f) => f.pass === false);
  const totalMs = performance.now() - started;
  console.log('');
  console.log(`== Summary: ${budgeted.length - misses.length}/${budgeted.length} budgets met in ${(totalMs / 1000).toFixed(1)} s`);
  for (const name of sections) {
    const r = results[name]!;
    const b = r.figures.filter((f) => f.pass !== null);
    console.log(
      `  ${name.padEnd(9)} ${(r.durationMs / 1000).toFixed(1).padStart(6)} s  ${b.filter((f) => f.pass).length}/${b.length} met${r.error ? '  (FAILED)' : ''}`,
    );
  }
  for (const f of misses)
    console.log(
      `  ✗ [${f.section}] ${f.name}: ${f.note?.startsWith('FAILED') ? f.note : `ratio ${f.ratio?.toFixed(2) ?? 'n/a'}× (${f.budget!.text})`}`,
    );

  const document = {
    suite: 'fund-edge bench',
    machine,
    command: process.argv.slice(2),
    durationMs: totalMs,
    http: sections.includes('http') ? load : undefined,
    summary: { budgets: budgeted.length, met: budgeted.length - misses.length, missed: misses.map((f) => `${f.section}: ${f.name}`) },
    sections: results,
    crossCheck: cross,
    firstRequestWorkerdVsNode: firstRequests.rows,
  };
  writeFileSync(values.out!, `${JSON.stringify(document, null, 2)}\n`);
  console.log(`\nWrote ${values.out}`);
  if (failed) return 1;
  return values.strict && misses.length ? 1 : 0;
}

Cleanup.installSignalHandlers();

main().then(
  (code) => {
    process.exitCode = code;
  },
  async (err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    await Cleanup.runAll();
    process.exitCode = 1;
  },
);
