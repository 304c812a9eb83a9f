/**
 * In-memory stand-ins for the Worker's bindings, for tests of the Hono app through `app.request`.
 * They keep the parts of the KV and Rate Limiting contracts the service relies on (values, metadata,
 * list, expirationTtl ≥ 60) and record what was read and written, so tests can assert on them.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Env } from '../../lib/env.ts';
import { AtomicRecord, type AtomicState } from '../../lib/atomic.ts';

/** The assets binding over `public/` (what `npm run docs:build` wrote), as wrangler's `[assets]` serves it. */
export const fakeAssets = {
  async fetch(input: string | URL | Request): Promise<Response> {
    const path = new URL(input instanceof Request ? input.url : String(input)).pathname;
    try {
      return new Response(await readFile(join(process.cwd(), 'public', path)));
    } catch {
      return new Response('Not found', { status: 404 });
    }
  },
};

/** A KV namespace in memory. `puts` records every write. */
export class MemoryKv {
  readonly data = new Map<string, { value: string; metadata?: unknown; expirationTtl?: number }>();
  readonly puts: { key: string; value: string; expirationTtl?: number }[] = [];
  readonly gets: string[] = [];
  /** When true, every put fails as KV does over its per-key write rate. */
  failPuts = false;

  /** Bulk reads (`get` of an array of keys, as KV's binding allows up to 100), each as its list of keys. */
  readonly bulkGets: string[][] = [];

  async get(key: string): Promise<string | null>;
  async get(keys: string[], type?: 'text'): Promise<Map<string, string | null>>;
  async get(key: string | string[]): Promise<string | null | Map<string, string | null>> {
    if (Array.isArray(key)) {
      if (key.length > 100) throw new Error('KV bulk get takes at most 100 keys');
      this.bulkGets.push(key);
      return new Map(key.map((k) => [k, this.data.get(k)?.value ?? null]));
    }
    this.gets.push(key);
    return this.data.get(key)?.value ?? null;
  }

  async put(key: string, value: string, options: { metadata?: unknown; expirationTtl?: number } = {}): Promise<void> {
    if (this.failPuts) throw new Error('KV PUT failed: 429 Too Many Requests');
    if (options.expirationTtl !== undefined && options.expirationTtl < 60) throw new Error('KV expirationTtl must be at least 60');
    this.data.set(key, { value, ...options });
    this.puts.push({ key, value, ...(options.expirationTtl !== undefined ? { expirationTtl: options.expirationTtl } : {}) });
  }

  async delete(key: string): Promise<void> {
    this.data.delete(key);
  }

  async list(options: { prefix?: string } = {}): Promise<{ keys: { name: string; metadata?: unknown }[]; list_complete: true }> {
    const prefix = options.prefix ?? '';
    return {
      keys: [...this.data].filter(([name]) => name.startsWith(prefix)).map(([name, v]) => ({ name, metadata: v.metadata })),
      list_complete: true,
    };
  }
}

/** A burst limiter that allows `limit` calls per key, then refuses, until `reset()`. */
export class FakeBurst {
  readonly counts = new Map<string, number>();
  readonly limitPerKey: number;
  constructor(limitPerKey = Number.POSITIVE_INFINITY) {
    this.limitPerKey = limitPerKey;
  }
  async limit({ key }: { key: string }): Promise<{ success: boolean }> {
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    return { success: n <= this.limitPerKey };
  }
}

/**
 * The `ATOMIC` Durable Object namespace in memory: the real {@link AtomicRecord} class, one instance per
 * name, over a Map, with `blockConcurrencyWhile` a per-record queue (as workerd runs one operation of a
 * Durable Object at a time). `alarms` holds each record's scheduled deletion.
 */
export class FakeAtomicNamespace {
  readonly records = new Map<string, { record: AtomicRecord; data: Map<string, unknown> }>();
  readonly alarms = new Map<string, number>();
  /** Names of the records operations ran on, in order. */
  readonly calls: string[] = [];

  idFromName(name: string): DurableObjectId {
    return { name, toString: () => name, equals: (o: DurableObjectId) => o.toString() === name } as unknown as DurableObjectId;
  }

  get(id: DurableObjectId): { fetch(input: string, init: RequestInit): Promise<Response> } {
    const name = id.toString();
    let entry = this.records.get(name);
    if (!entry) {
      const data = new Map<string, unknown>();
      let queue: Promise<unknown> = Promise.resolve();
      const alarms = this.alarms;
      const state: AtomicState = {
        storage: {
          get: async <T>(key: string) => structuredClone(data.get(key)) as T | undefined,
          put: async <T>(key: string, value: T) => void data.set(key, structuredClone(value)),
          delete: async (key: string) => data.delete(key),
          deleteAll: async () => {
            data.clear();
            alarms.delete(name);
          },
          getAlarm: async () => alarms.get(name) ?? null,
          setAlarm: async (time: number) => void alarms.set(name, time),
        },
        blockConcurrencyWhile: <T>(callback: () => Promise<T>): Promise<T> => {
          const run = queue.then(callback, callback);
          queue = run.catch(() => undefined);
          return run;
        },
      };
      entry = { record: new AtomicRecord(state), data };
      this.records.set(name, entry);
    }
    const { record } = entry;
    return {
      fetch: async (input: string, init: RequestInit) => {
        this.calls.push(name);
        return record.fetch(new Request(input, init));
      },
    };
  }
}

/** Fresh bindings for one test. */
export function fakeEnv(
  overrides: Partial<{
    burst: FakeBurst;
    fundBurst: FakeBurst;
    consoleBurst: FakeBurst;
    CORS_ORIGINS: string;
    MCP_ALLOWED_ORIGINS: string;
    FUND_ID: string;
    PUBLIC_ORIGIN: string;
    CONSOLE_SESSION_SECRET: string;
  }> = {},
) {
  const API_KEYS = new MemoryKv();
  const CONSOLE = new MemoryKv();
  const CONSOLE_BURST = overrides.consoleBurst ?? new FakeBurst();
  const RATE_LIMITS = new MemoryKv();
  const CALC_BURST = overrides.burst ?? new FakeBurst();
  const FUND_BURST = overrides.fundBurst ?? new FakeBurst();
  const ATOMIC = new FakeAtomicNamespace();
  const env = {
    API_KEYS,
    RATE_LIMITS,
    CALC_BURST,
    FUND_BURST,
    ASSETS: fakeAssets,
    CONSOLE,
    CONSOLE_BURST,
    ATOMIC,
    FUND_ID: overrides.FUND_ID ?? 'sample-fund',
    ...(overrides.PUBLIC_ORIGIN !== undefined ? { PUBLIC_ORIGIN: overrides.PUBLIC_ORIGIN } : {}),
    ...(overrides.CONSOLE_SESSION_SECRET ? { CONSOLE_SESSION_SECRET: overrides.CONSOLE_SESSION_SECRET } : {}),
    ...(overrides.CORS_ORIGINS ? { CORS_ORIGINS: overrides.CORS_ORIGINS } : {}),
    ...(overrides.MCP_ALLOWED_ORIGINS !== undefined ? { MCP_ALLOWED_ORIGINS: overrides.MCP_ALLOWED_ORIGINS } : {}),
  } as unknown as Env;
  return { env, API_KEYS, RATE_LIMITS, CALC_BURST, FUND_BURST, CONSOLE, CONSOLE_BURST, ATOMIC };
}
