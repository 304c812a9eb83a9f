/**
 * Real MCP clients run as child processes against a test Worker (test/e2e/clients.test.ts): each in its own
 * process group, with a deadline (a client still running then is killed and reported, never waited for),
 * no browser to open and its own temporary home; and a recording proxy in front of the Worker, so a test can
 * tell whether a client started OAuth (it fetches the metadata documents and registers itself).
 */
import { spawn } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How a client process ended. */
export interface ClientRun {
  /** The exit code, or null when it was killed. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** True when the deadline passed before it ended (or before `until` matched). */
  timedOut: boolean;
  /** True when `until` matched its output and it was stopped then. */
  stopped: boolean;
  /** Milliseconds from start to end. */
  ms: number;
}

/** Every client process group still running, so a failed test leaves none behind. */
const running = new Set<number>();

/** Ends a process group, ignoring one that already ended. */
function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
  running.delete(pid);
}

/** Kills every client process group this module started and that still runs (an `afterAll` of the tests). */
export function killClients(): void {
  for (const pid of [...running]) killGroup(pid);
}

/**
 * Runs a client to its end, or until its output matches `until` (then it is stopped: a client waiting for
 * an OAuth authorization never ends by itself), or until `timeoutMs` (then it is killed, `timedOut`).
 * @param options.env added to a minimal environment: PATH, a fresh HOME, no DISPLAY, a browser that opens nothing
 * @param options.input written to its standard input (which stays open, as a desktop client keeps it)
 */
export async function runClient(
  args: readonly string[],
  options: { env?: Record<string, string>; timeoutMs: number; until?: RegExp; input?: string },
): Promise<ClientRun> {
  const home = mkdtempSync(join(tmpdir(), 'fund-edge-client-'));
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      MCP_REMOTE_CONFIG_DIR: join(home, '.mcp-auth'),
      BROWSER: '/bin/true',
      DISPLAY: '',
      NO_COLOR: '1',
      ...options.env,
    },
  });
  const pid = child.pid!;
  running.add(pid);
  if (options.input !== undefined) child.stdin.write(options.input);
  let stdout = '';
  let stderr = '';
  let stopped = false;
  let timedOut = false;
  return new Promise<ClientRun>((resolve) => {
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(pid);
    }, options.timeoutMs);
    const check = () => {
      if (options.until && !stopped && options.until.test(stdout + stderr)) {
        stopped = true;
        killGroup(pid);
      }
    };
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      check();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      check();
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      killGroup(pid);
      rmSync(home, { recursive: true, force: true });
      resolve({ code: stopped || timedOut ? null : code, stdout, stderr, timedOut, stopped, ms: Math.round(performance.now() - started) });
    });
  });
}

/** One request the recording proxy forwarded. */
export interface Forwarded {
  method: string;
  path: string;
  /** Whether it carried an `Authorization` header. */
  authorization: boolean;
  status: number;
}

/** A loopback HTTP proxy in front of the Worker that keeps the `Host` it is sent, and records each request. */
export interface RecordingProxy {
  base: string;
  requests: Forwarded[];
  /** Whether any request since the last {@link RecordingProxy.clear} was one of an OAuth flow (metadata, registration). */
  sawOAuth(): boolean;
  clear(): void;
  close(): Promise<void>;
}

/** Paths a client reaches only when it starts OAuth. */
const OAUTH_PATH = /^\/(\.well-known\/oauth-|oauth\/register|oauth\/token|developers\/console\/oauth\/authorize)/;

/**
 * Starts a proxy on 127.0.0.1, port 0, forwarding to `target` with the request's own `Host` (so the Worker,
 * which builds its URLs from the request, names the proxy in `resource_metadata` and the client's discovery
 * comes back through it).
 */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const to = new URL(target);
  const requests: Forwarded[] = [];
  const server: Server = createServer((req, res) => {
    const upstream = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      requests.push({
        method: req.method ?? '',
        path: (req.url ?? '').split('?')[0]!,
        authorization: req.headers.authorization !== undefined,
        status: answer.statusCode ?? 0,
      });
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as { port: number }).port;
  return {
    base: `http://127.0.0.1:${port}`,
    requests,
    sawOAuth: () => requests.some((r) => OAUTH_PATH.test(r.path)),
    clear: () => {
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** A free TCP port on loopback (mcp-remote's OAuth callback server listens there; never a fixed port). */
export async function freePort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as { port: number }).port;
  await new Promise((done) => server.close(done));
  return port;
}
