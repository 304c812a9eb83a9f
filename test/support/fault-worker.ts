/**
 * A test-only Worker entry (never part of the shipped bundle: wrangler.toml's `main` is lib/worker.ts): the
 * real Worker with its `RATE_LIMITS` KV namespace wrapped so that a test can inject the faults Workers KV
 * has in production, and switch them at run time over HTTP while the Worker runs in workerd
 * (test/support/worker.ts `startFaultWorker`).
 *
 * - `POST /api/__faults` with a JSON body of {@link Faults} fields sets them (the fields not sent keep their
 *   value) and answers the faults now in force and what the wrapper saw: `{ faults, reads, writes,
 *   refusedWrites, failedReads, writesInFlight }` (counts since the Worker started, and the delayed writes
 *   not yet done); `GET` answers the same.
 * - `GET /api/__quota` with a key's `Authorization` answers what KV itself holds for that key's calculator
 *   counter today: `{ stored: number | null }` (read past the faults).
 * - `POST /api/__uncaught` leaves a rejected promise to `waitUntil`: workerd reports it as uncaught, so a
 *   test can show that its log check sees such a line.
 * The paths are under `/api/` so that they reach the Worker before the static assets (wrangler.toml
 * `run_worker_first`).
 */
import worker from '../../lib/worker.ts';
import type { Env } from '../../lib/env.ts';
import { authenticate } from '../../lib/auth.ts';
import { consoleAccess } from '../../lib/service.ts';
import { calcCaller, utcDate } from '../../lib/rate-limit.ts';

/** The Worker's Durable Object classes, exported as the real entry exports them (wrangler.toml binds them). */
export { AtomicRecord } from '../../lib/worker.ts';

/** The faults of the wrapped `RATE_LIMITS` namespace. */
export interface Faults {
  /** Every read waits this many milliseconds before reaching KV (a slow read a client can hang up on). */
  readDelayMs: number;
  /** Every read fails (`KV GET failed: 503 Service Unavailable`). */
  failReads: boolean;
  /** Every write takes this many milliseconds before KV takes (or refuses) it: a slow write to answer past. */
  writeDelayMs: number;
  /**
   * `rate`: a second write to one key within 1,000 ms is refused (`KV PUT failed: 429 Too Many Requests`),
   * as KV refuses more than one write per key per second; `all`: every write is refused; `none`: KV as is.
   */
  refuseWrites: 'none' | 'rate' | 'all';
}

const faults: Faults = { readDelayMs: 0, failReads: false, writeDelayMs: 0, refuseWrites: 'rate' };
const seen = { reads: 0, writes: 0, refusedWrites: 0, failedReads: 0, writesInFlight: 0 };
const lastWriteAt = new Map<string, number>();

/** The namespace with the faults in force; one wrapper per namespace, so the app's per-namespace state holds. */
const wrapped = new WeakMap<KVNamespace, KVNamespace>();
function faulty(kv: KVNamespace): KVNamespace {
  let out = wrapped.get(kv);
  if (!out) {
    out = {
      async get(key: string, ...rest: unknown[]) {
        seen.reads++;
        if (faults.readDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, faults.readDelayMs));
        if (faults.failReads) {
          seen.failedReads++;
          throw new Error('KV GET failed: 503 Service Unavailable');
        }
        return (kv.get as (k: string, ...r: unknown[]) => Promise<unknown>)(key, ...rest);
      },
      async put(key: string, value: string, options?: KVNamespacePutOptions) {
        if (faults.writeDelayMs > 0) {
          seen.writesInFlight++;
          await new Promise((resolve) => setTimeout(resolve, faults.writeDelayMs));
          seen.writesInFlight--;
        }
        const now = Date.now();
        const last = lastWriteAt.get(key);
        if (faults.refuseWrites === 'all' || (faults.refuseWrites === 'rate' && last !== undefined && now - last < 1000)) {
          seen.refusedWrites++;
          throw new Error('KV PUT failed: 429 Too Many Requests');
        }
        lastWriteAt.set(key, now);
        seen.writes++;
        return kv.put(key, value, options);
      },
      list: (options?: KVNamespaceListOptions) => kv.list(options),
      delete: (key: string) => kv.delete(key),
      getWithMetadata: kv.getWithMetadata.bind(kv),
    } as unknown as KVNamespace;
    wrapped.set(kv, out);
  }
  return out;
}

const envs = new WeakMap<Env, Env>();
function faultyEnv(env: Env): Env {
  let out = envs.get(env);
  if (!out) {
    out = { ...env, RATE_LIMITS: faulty(env.RATE_LIMITS) };
    envs.set(env, out);
  }
  return out;
}

export default {
  async fetch(request, env, ctx) {
    const path = new URL(request.url).pathname;
    if (path === '/api/__faults') {
      if (request.method === 'POST') Object.assign(faults, await request.json());
      return Response.json({ faults, ...seen });
    }
    if (path === '/api/__quota') {
      const principal = await authenticate(request.headers.get('authorization'), consoleAccess(env));
      const caller = calcCaller(principal, undefined);
      const stored = await env.RATE_LIMITS.get(`calc:${caller.id}:${utcDate(new Date())}`);
      return Response.json({ stored: stored === null ? null : Number(stored) });
    }
    if (path === '/api/__uncaught') {
      ctx.waitUntil(Promise.reject(new Error('fault-worker: a rejection left uncaught on purpose')));
      return new Response(null, { status: 204 });
    }
    return worker.fetch(request, faultyEnv(env), ctx);
  },
} satisfies ExportedHandler<Env>;
