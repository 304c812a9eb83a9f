/**
 * What a warm request costs in workerd: the CPU time of workerd's main thread per request, over many
 * sequential keep-alive requests of one case to the Worker's own socket, after a warm-up. Several Workers
 * (bundles) or cases are measured side by side, their rounds interleaved (ABBA order), so that a slow
 * minute of the shared machine spreads over all of them; the figure is the median over the rounds. This
 * is the tool for an A/B of a change to a warm path (the HTTP section's throughput is a function of it):
 * build the Worker with and without the change (`wrangler deploy --dry-run --outdir <dir>`) and pass both.
 *
 * Usage: node --experimental-strip-types --disable-warning=ExperimentalWarning bench/warm-workerd.ts
 *          [--bundle dir]... [--rounds n] [--requests n] [--warm n] case-id...
 * (case ids as in bench/first-requests.ts: `calc-fee-calculator`, `fund-fee-terms`, `mcp-public`, …, and
 * `baseline` for the bare Worker under the service's configuration, `baseline-post` for the same sent a POST
 * of `{}` as a calculator is; without `--bundle`, the Worker is
 * bundled from this tree as deployed). Every case runs on every bundle. Calculator cases carry the bench's
 * minted key (its quota raised), and the burst limits are raised, as in the HTTP section.
 *
 * Not part of `npm run bench`: it prints a table and exits 1 if an answer is not 200. Miniflare's binding
 * simulators and static-assets routing run on the same thread and are in the figure, as in bench/workerd.ts.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Miniflare } from 'miniflare';
import { firstRequests } from './first-requests.ts';
import { threadTimes } from './schedstat.ts';
import { Cleanup, median, useWranglerEnv } from './report.ts';
import { RAISED_BURST_LIMITS, WORKER_NAME, baselineModules, deployedWorker, service, workerdChildren } from './workerd.ts';

interface Subject {
  label: string;
  mf: Miniflare;
  url: URL;
  pid: number;
  send: () => Promise<void>;
  perRequestUs: number[];
}

/** The bare baseline Worker under the service's configuration, without its code nor the Durable Object class that code exports. */
function baselineOptions(service: Record<string, unknown>): Record<string, unknown> {
  const { scriptPath: _s, modulesRoot: _r, durableObjects: _d, ...configured } = service;
  return { ...configured, modules: baselineModules() };
}

/** Starts one Worker of `bundle` in a fresh workerd for one case. */
async function start(bundle: string, caseId: string): Promise<Subject> {
  const subject = service(bundle);
  const known = workerdChildren();
  const bare = caseId === 'baseline' || caseId === 'baseline-post';
  const options = bare ? baselineOptions(subject.options) : subject.options;
  const mf = new Miniflare({
    workers: [{ ...options, ratelimits: RAISED_BURST_LIMITS, name: WORKER_NAME, unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }] }],
    kvPersist: false,
    durableObjectsPersist: false,
    cachePersist: false,
  } as ConstructorParameters<typeof Miniflare>[0]);
  await mf.ready;
  const url = await mf.unsafeGetDirectURL(WORKER_NAME);
  const pid = [...workerdChildren()].find((p) => !known.has(p));
  if (pid === undefined) throw new Error('no workerd process found for the new Miniflare');
  const c = bare ? null : firstRequests().find((x) => x.id === caseId);
  if (c === undefined) throw new Error(`unknown case "${caseId}" (see bench/first-requests.ts, "baseline" or "baseline-post")`);
  const key = bare ? '' : await subject.prepare(mf);
  const init: RequestInit =
    c !== null
      ? c.init(key)
      : caseId === 'baseline-post'
        ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }
        : {};
  const headers = new Headers(init.headers);
  if (c?.kind === 'calc' && !headers.has('authorization')) headers.set('authorization', `Bearer ${key}`);
  const path = c === null ? '/api/v1/baseline' : c.path;
  const send = async () => {
    const res = await fetch(new URL(path, url), { ...init, headers });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${caseId} on ${bundle}: status ${res.status}: ${body.slice(0, 200)}`);
  };
  return { label: `${caseId} · ${bundle}`, mf, url, pid, send, perRequestUs: [] };
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      bundle: { type: 'string', multiple: true },
      rounds: { type: 'string', default: '8' },
      requests: { type: 'string', default: '1000' },
      warm: { type: 'string', default: '500' },
    },
  });
  if (positionals.length === 0) throw new Error('name at least one case id (e.g. calc-fee-calculator, fund-fee-terms, baseline)');
  const rounds = Number(values.rounds);
  const requests = Number(values.requests);
  const cleanup = new Cleanup();
  try {
    useWranglerEnv();
    const bundles = values.bundle?.length ? values.bundle : [await deployedWorker(cleanup)];
    const subjects: Subject[] = [];
    cleanup.add('dispose the Miniflares', async () => {
      for (const s of subjects) await s.mf.dispose();
    });
    for (const bundle of bundles) for (const id of positionals) subjects.push(await start(resolve(bundle), id));
    for (const s of subjects) for (let i = 0; i < Number(values.warm); i++) await s.send();
    for (let round = 0; round < rounds; round++) {
      for (const s of round % 2 ? [...subjects].reverse() : subjects) {
        const before = threadTimes(s.pid).get(s.pid)!;
        for (let i = 0; i < requests; i++) await s.send();
        s.perRequestUs.push((threadTimes(s.pid).get(s.pid)! - before) / requests / 1000);
      }
    }
    console.log(`workerd main-thread CPU per warm request, µs (median of ${rounds} rounds of ${requests} requests; the rounds sorted)`);
    for (const s of subjects) {
      const sorted = [...s.perRequestUs].sort((a, b) => a - b);
      console.log(`${median(sorted).toFixed(0).padStart(6)}  ${s.label}   [${sorted.map((v) => v.toFixed(0)).join(' ')}]`);
    }
  } finally {
    await cleanup.run();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  Cleanup.installSignalHandlers();
  await main();
}
