/**
 * The Worker in workerd for end-to-end tests: wrangler's `unstable_startWorker` on 127.0.0.1, port 0,
 * offline and quiet, with KV persisted to a folder of the test's own (so a restart keeps the counters and
 * keys minted by the real `npm run keys` CLI into the same folder are seen), and the Worker's log as this
 * process receives it ({@link captureWorkerLog}).
 */
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify, stripVTControlCharacters } from 'node:util';
import { unstable_startWorker } from 'wrangler';

process.env.WRANGLER_SEND_METRICS = 'false';
process.env.CLOUDFLARE_CF_FETCH_ENABLED = 'false';
process.env.WRANGLER_HIDE_BANNER = 'true';
process.env.XDG_CONFIG_HOME ??= join(process.cwd(), '.config');

/** A running Worker and its base URL (no trailing slash). */
export interface TestWorker {
  base: string;
  dispose(): Promise<void>;
}

/** How a test Worker runs beyond its bindings. */
export interface WorkerOptions {
  /**
   * Another entry module than wrangler.toml's `main`, relative to the project (a test-only wrapper such as
   * test/support/fault-worker.ts; it is bundled for the test, never shipped).
   */
  entrypoint?: string;
  /**
   * Turns the inspector on (loopback, port 0). wrangler prints what workerd reports only through it: an
   * uncaught exception (`Uncaught (async) ...`) and a request cancelled as hung. A test that reads the
   * Worker's log for those ({@link captureWorkerLog}) needs it, with `logLevel` `error`.
   */
  inspector?: boolean;
  /**
   * Answers the Worker's outbound `fetch()` to hosts that are not loopback, as Miniflare's `outboundService`
   * would (wrangler's `unstable_startWorker` declares `dev.outboundService` but does not pass it on): the
   * Worker runs test/support/outbound-worker.ts, which sends each such request, every redirect hop apart, to
   * a server of this process on loopback, and this handler gets it as the Worker asked for it (its public
   * URL, method, headers, body, and a signal aborted when the Worker hangs up). A handler that throws closes
   * the connection, and the Worker's `fetch` fails as for a host it cannot reach. Not with `entrypoint`.
   */
  outbound?: (request: Request) => Response | Promise<Response>;
}

/** The header in which test/support/outbound-worker.ts names the URL the Worker asked for (its own copy: that module is the Worker's). */
const OUTBOUND_URL_HEADER = 'x-test-outbound-url';

/** The loopback server that answers the Worker's outbound requests with {@link WorkerOptions.outbound}. */
async function outboundServer(handler: NonNullable<WorkerOptions['outbound']>): Promise<{ origin: string; close(): void }> {
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const hangUp = new AbortController();
      res.on('close', () => hangUp.abort());
      try {
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers)) {
          if (name === OUTBOUND_URL_HEADER || name === 'host' || value === undefined) continue;
          for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
        }
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const body = chunks.length > 0 && req.method !== 'GET' && req.method !== 'HEAD' ? Buffer.concat(chunks) : null;
        const url = String(req.headers[OUTBOUND_URL_HEADER]);
        const answer = await handler(new Request(url, { method: req.method, headers, body, signal: hangUp.signal }));
        res.writeHead(answer.status, Object.fromEntries(answer.headers));
        if (answer.body) for await (const chunk of answer.body) res.write(chunk);
        res.end();
      } catch {
        res.destroy();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

/**
 * Starts the Worker of `wrangler.toml`.
 * @param persistDir the folder local KV lives in
 * @param bindings bindings that replace wrangler.toml's (e.g. a raised burst limit)
 * @param logLevel `error` shows the Worker's `console.error` lines (lib/log.ts) on this process's stderr
 * @param options another entry module, the inspector, an answer to the Worker's outbound requests ({@link WorkerOptions})
 */
export async function startWorker(
  persistDir: string,
  bindings: Record<string, unknown> = {},
  logLevel: 'none' | 'error' = 'none',
  options: WorkerOptions = {},
): Promise<TestWorker> {
  if (options.outbound && options.entrypoint) throw new Error('startWorker: outbound runs its own entry module');
  const outbound = options.outbound ? await outboundServer(options.outbound) : null;
  const entrypoint = outbound ? 'test/support/outbound-worker.ts' : options.entrypoint;
  const worker = await unstable_startWorker({
    config: join(process.cwd(), 'wrangler.toml'),
    ...(entrypoint ? { entrypoint: join(process.cwd(), entrypoint) } : {}),
    bindings: outbound ? { ...bindings, TEST_OUTBOUND: { type: 'plain_text', value: outbound.origin } } : bindings,
    dev: {
      server: { hostname: '127.0.0.1', port: 0 },
      inspector: options.inspector ? { hostname: '127.0.0.1', port: 0 } : false,
      persist: persistDir,
      watch: false,
      logLevel,
    },
  } as Parameters<typeof unstable_startWorker>[0]);
  await worker.ready;
  const base = (await worker.url).toString().replace(/\/$/, '');
  return {
    base,
    async dispose() {
      await worker.dispose();
      outbound?.close();
    },
  };
}

/**
 * Runs one of the project's CLIs (`scripts/<script>`) with the Node running the tests, without blocking the
 * event loop: a synchronous run would stall every kept-alive connection to a running Worker for its seconds,
 * and the next request could then be written to a socket workerd had closed meanwhile ("other side closed").
 * @returns what the CLI printed on stdout, trimmed
 * @throws {Error} when the CLI exits non-zero or runs over 60 s
 */
export async function runCli(script: string, args: readonly string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--experimental-strip-types', '--disable-warning=ExperimentalWarning', `scripts/${script}`, ...args],
    { encoding: 'utf8', timeout: 60_000 },
  );
  return stdout.trim();
}

/**
 * Mints a key through the real `npm run keys` CLI into the local KV under `persistDir` (the tests and
 * `npm run bench` use it).
 * @param args the CLI's `create` options (`--fund`, `--label`, `--daily-calc-limit`, ...)
 * @returns the key (`svc_dk_` and 32 letters or digits)
 * @throws {Error} when the CLI fails or prints no key
 */
export async function mintKey(persistDir: string, args: readonly string[]): Promise<string> {
  const key = (await runCli('keys.ts', ['create', ...args, '--persist-to', persistDir])).split('\n').pop();
  if (!key || !/^svc_dk_[0-9A-Za-z]{32}$/.test(key)) throw new Error('the keys CLI printed no key');
  return key;
}

/**
 * What workerd reports when the Worker's code went wrong outside any answer: an exception nobody caught
 * (`Uncaught (async) Error: ...`, e.g. a rejected `waitUntil` promise), a request cancelled because it
 * waited on nothing of its own (`... canceled this request because it detected that your Worker's code had
 * hung ...`), and the continuations it dropped for a promise shared across requests.
 */
export const WORKER_LOG_PROBLEM =
  /Uncaught|hung and would never generate a response|canceled this request|hanging Promise was canceled|different request context/i;

/** The Worker's log, as captured by {@link captureWorkerLog}. */
export interface WorkerLog {
  /** Every line written since the capture started (ANSI colours removed), oldest first. */
  lines(): string[];
  /** The lines that match {@link WORKER_LOG_PROBLEM}. */
  problems(): string[];
  /** Forgets the lines captured so far (a test's own window). */
  clear(): void;
  /** Stops capturing; what was captured stays readable. */
  stop(): void;
}

/**
 * Captures the Worker's log from now on: what wrangler prints of it through `console` (under vitest, which
 * replaces `console`) or straight to stdout and stderr (its `console.error` lines at `logLevel` `error`,
 * and with the inspector on, uncaught exceptions and hung requests; see {@link WorkerOptions.inspector}).
 * The text still reaches the terminal unless `echo` is false.
 */
export function captureWorkerLog(echo = true): WorkerLog {
  let lines: string[] = [];
  let partial = '';
  let inConsole = 0;
  const take = (text: string) => {
    // Without the colours wrangler puts around its error lines.
    const parts = stripVTControlCharacters(partial + text).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts.filter((line) => line.trim() !== ''));
  };
  const restore: (() => void)[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write;
    stream.write = function (this: typeof stream, chunk: unknown, ...rest: unknown[]): boolean {
      if (inConsole === 0) take(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      return echo ? (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest) : true;
    } as typeof stream.write;
    restore.push(() => {
      stream.write = write;
    });
  }
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const original = console[level];
    console[level] = (...args: unknown[]) => {
      take(`${args.map(String).join(' ')}\n`);
      if (!echo) return;
      inConsole++;
      try {
        original.apply(console, args);
      } finally {
        inConsole--;
      }
    };
    restore.push(() => {
      console[level] = original;
    });
  }
  const all = () => (partial.trim() ? [...lines, partial] : lines);
  return {
    lines: all,
    problems: () => all().filter((line) => WORKER_LOG_PROBLEM.test(line)),
    clear() {
      lines = [];
      partial = '';
    },
    stop() {
      for (const undo of restore.splice(0)) undo();
    },
  };
}
