/**
 * Where a first request's CPU goes in workerd: a V8 CPU profile of the first request of a fresh isolate,
 * attributed by source module and by function. bench/workerd.ts measures how much; this says where.
 *
 * Usage: node --experimental-strip-types --disable-warning=ExperimentalWarning bench/profile-workerd.ts
 *          [--runs n] [--top n] [--save dir] [--warm n] [--repeat n] [--database fund] [case-id-substring ...]
 * (case ids as in bench/first-requests.ts: `fund-overview`, `fund-risk-var`, `calc-fee-calculator`, …;
 * default: every fund-data endpoint; with `--database`, cases as bench/first-db-workerd.ts takes them:
 * `nav-history?days=3660`, `mcp:get_capital_accounts`). `--warm n --repeat m`: a warm request instead of the first one: n
 * requests unprofiled, then m profiled one after another, the figures per request (what throughput pays).
 * `--database bench-fund`: the fund cases read that fund of the scale bench's PostgreSQL database
 * (`fund_edge_scale`, imported by `npm run bench -- --only scale`) as bench/first-db-workerd.ts serves it.
 *
 * How: the Worker is bundled as bench/workerd.ts bundles it (`wrangler deploy --dry-run --outdir`) but not
 * minified, so function names survive and esbuild's `// path/of/module.ts` comments tell which source module
 * each line of the bundle comes from. Each run starts a fresh Miniflare with workerd's inspector open
 * (`inspectorPort: 0`), lets Miniflare's binding simulators serve their first call (as bench/workerd.ts
 * does), connects to the Worker's isolate over the DevTools protocol, starts V8's sampling profiler (50 µs),
 * sends the one request, stops the profiler once the answer's last byte is in. Self time is summed per module
 * and per function over the runs and divided by the number of runs. The profiler slows what it samples and
 * an open inspector keeps V8 from some optimisations, so the totals are larger than bench/workerd.ts's
 * figure: read the shares, not the milliseconds. Only the Worker's isolate is profiled: Miniflare's KV and
 * asset simulators run in isolates of their own (their time is in bench/workerd.ts's figure, not here).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { WebSocket } from 'ws';
import { databaseCase, firstRequests } from './first-requests.ts';
import { Cleanup, selfTimeBy, useWranglerEnv, type CallFrame, type CpuProfile } from './report.ts';
import { RAISED_BURST_LIMITS, deployedWorker, freshMiniflare, service, WORKER_NAME, type Subject } from './workerd.ts';
import { databaseService } from './scale.ts';
import { startPgWsProxy } from '../scripts/pg-ws-proxy.ts';

/**
 * Line → source module of an unminified esbuild bundle, from its `// path` comments (0-based line numbers,
 * as V8's call frames give them; lines before the first comment are the bundle's prelude).
 */
export function moduleIndex(bundle: string): (line: number) => string {
  const starts: { line: number; module: string }[] = [];
  bundle.split('\n').forEach((text, i) => {
    const m = /^\/\/ ((?:node_modules\/|lib\/|functions\/|\.\.\/)\S+\.[cm]?[jt]s)$/.exec(text);
    if (m) starts.push({ line: i, module: m[1]! });
  });
  return (line) => {
    let lo = 0;
    let hi = starts.length - 1;
    let found = '(bundle prelude)';
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]!.line <= line) {
        found = starts[mid]!.module;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
}

/** A minimal DevTools protocol client over one WebSocket. */
async function devtools(url: string): Promise<{ send(method: string, params?: object): Promise<unknown>; close(): void }> {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let next = 1;
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
    if (msg.id === undefined) return;
    const w = waiting.get(msg.id);
    waiting.delete(msg.id);
    if (msg.error) w?.reject(new Error(msg.error.message));
    else w?.resolve(msg.result);
  });
  return {
    send(method, params = {}) {
      const id = next++;
      ws.send(JSON.stringify({ id, method, params }));
      return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
    },
    close: () => ws.close(),
  };
}

/** One profiled first request in a fresh workerd. */
async function profileOnce(
  subject: Subject,
  path: string,
  init: RequestInit | ((key: string) => RequestInit),
  load: { warm: number; repeat: number } = { warm: 0, repeat: 1 },
): Promise<CpuProfile> {
  // Many requests of one caller: the burst limits are raised as the HTTP section raises them (bench/http.ts).
  const raised = load.warm + load.repeat > 1 ? { ratelimits: RAISED_BURST_LIMITS } : {};
  const mf = freshMiniflare(subject, { worker: raised, inspectorPort: 0 });
  try {
    await mf.ready;
    const url = await mf.unsafeGetDirectURL(WORKER_NAME);
    const key = await subject.prepare(mf);
    const inspector = await mf.getInspectorURL();
    const targets = (await (await fetch(new URL('/json', inspector.href.replace(/^ws/, 'http')))).json()) as {
      id: string;
      webSocketDebuggerUrl?: string;
      title?: string;
    }[];
    const target = targets.find((t) => (t.webSocketDebuggerUrl ?? t.id).endsWith(`:${WORKER_NAME}`));
    if (!target?.webSocketDebuggerUrl) throw new Error(`no inspector target for ${WORKER_NAME}: ${JSON.stringify(targets)}`);
    const base = typeof init === 'function' ? init(key) : init;
    const headers = new Headers(base.headers);
    // Many calls of an anonymous calculator case would use up the anonymous daily quota: they carry the
    // bench's minted key (its calculator quota raised), as the HTTP section's calls do.
    if (load.warm + load.repeat > 1 && !headers.has('authorization')) headers.set('authorization', `Bearer ${key}`);
    const send = async () => {
      const res = await fetch(new URL(path, url), { ...base, headers });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${path}: status ${res.status}: ${body.slice(0, 200)}`);
    };
    for (let i = 0; i < load.warm; i++) await send();
    const cdp = await devtools(target.webSocketDebuggerUrl);
    try {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
      await cdp.send('Profiler.start');
      for (let i = 0; i < load.repeat; i++) await send();
      const { profile } = (await cdp.send('Profiler.stop')) as { profile: CpuProfile };
      return profile;
    } finally {
      cdp.close();
    }
  } finally {
    await mf.dispose();
  }
}

const skip = (f: CallFrame) => f.functionName === '(idle)';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      runs: { type: 'string', default: '3' },
      top: { type: 'string', default: '25' },
      save: { type: 'string' },
      warm: { type: 'string', default: '0' },
      repeat: { type: 'string', default: '1' },
      database: { type: 'string' },
    },
  });
  const runs = Number(values.runs);
  const load = { warm: Number(values.warm), repeat: Number(values.repeat) };
  const top = Number(values.top);
  const cleanup = new Cleanup();
  try {
    useWranglerEnv();
    const outdir = await deployedWorker(cleanup, { minify: false });
    let subject = service(outdir);
    if (values.database) {
      const proxy = await startPgWsProxy({ target: { host: '127.0.0.1', port: 5432 } });
      cleanup.add('stop the proxy', () => proxy.close());
      subject = databaseService(outdir, values.database, proxy.wsProxy);
    }
    const moduleOf = moduleIndex(readFileSync(join(outdir, 'worker.js'), 'utf8'));
    const where = (f: CallFrame) => (f.url.endsWith('worker.js') ? moduleOf(f.lineNumber) : f.url || `(${f.functionName || 'native'})`);
    // On the database, a case is named as bench/first-db-workerd.ts names it (a fund path with its query, or
    // `mcp:<tool>?<arguments>`), and carries the key minted for that fund (not the demo key).
    const cases = values.database
      ? positionals.map((spec) => ({ id: spec, ...databaseCase(spec) }))
      : firstRequests().filter((c) => (positionals.length ? positionals.some((p) => c.id.includes(p)) : c.kind === 'fund'));
    for (const c of cases) {
      const profiles: CpuProfile[] = [];
      for (let i = 0; i < runs; i++) profiles.push(await profileOnce(subject, c.path, c.init, load));
      if (values.save)
        for (const [i, p] of profiles.entries()) writeFileSync(join(values.save, `${c.id}-${i}.cpuprofile`), JSON.stringify(p));
      const sum = (key: (f: CallFrame) => string | null) => {
        const totals = new Map<string, number>();
        const per = runs * load.repeat;
        for (const p of profiles) for (const e of selfTimeBy(p, key)) totals.set(e.key, (totals.get(e.key) ?? 0) + e.ms / per);
        return [...totals].sort((a, b) => b[1] - a[1]);
      };
      const byModule = sum((f) => (skip(f) ? null : where(f)));
      const total = byModule.reduce((s, [, v]) => s + v, 0);
      const what = load.warm || load.repeat > 1 ? `per request of ${load.repeat} after ${load.warm} unprofiled, ` : '';
      console.log(`\n## ${c.id} (${c.path}): ${total.toFixed(2)} ms sampled (${what}mean of ${runs} fresh isolates)`);
      console.log('\nby module (self time, ms):');
      for (const [k, v] of byModule.slice(0, top)) console.log(`  ${v.toFixed(2).padStart(6)}  ${k}`);
      console.log('\nby function (self time, ms):');
      const byFunction = sum((f) => (skip(f) ? null : `${f.functionName || '(anonymous)'} [${where(f)}:${f.lineNumber + 1}]`));
      for (const [k, v] of byFunction.slice(0, top)) console.log(`  ${v.toFixed(2).padStart(6)}  ${k}`);
    }
  } finally {
    await cleanup.run();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  Cleanup.installSignalHandlers();
  await main();
}
