/**
 * A small WebSocket-to-TCP proxy for local development and tests: what Neon's own proxy does in
 * production, so that `@neondatabase/serverless` reaches a plain PostgreSQL server exactly as it reaches Neon
 * (Postgres wire protocol inside binary WebSocket messages). On `POST /sql` it also answers Neon's
 * SQL-over-HTTP protocol (scripts/pg-http.ts), the path of the Worker's one-shot reads (lib/db/http.ts).
 *
 * It listens on loopback only and forwards only to the one Postgres host and port it was started for:
 * the `address` a client asks for (`/v1?address=host:port`, as the driver's `wsProxy` setting sends it) must
 * name that target, or the upgrade is refused with 403. It is never part of the Worker.
 *
 * Usage as a program: `node scripts/pg-ws-proxy.ts [--port 5488] [--target 127.0.0.1:5432]`.
 */
import { createConnection, type Socket } from 'node:net';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { devVar } from './dev-args.ts';
import { answerSqlOverHttp } from './pg-http.ts';

/** A running proxy. */
export interface PgWsProxy {
  /** The port it listens on (127.0.0.1). */
  port: number;
  /** The value of the driver's `wsProxy` setting that reaches it, e.g. `127.0.0.1:5488/v1`. */
  wsProxy: string;
  /** Open client connections (each is one Postgres connection): WebSockets, and `POST /sql` requests in flight. */
  connections(): number;
  /** Drops every open connection (both sides, WebSockets and SQL-over-HTTP requests) without stopping the listener: a fault for tests. */
  dropConnections(): void;
  /** Stops listening and drops every connection. */
  close(): Promise<void>;
}

/**
 * Starts the proxy.
 * @param options.target the Postgres server, `{ host, port }` (e.g. 127.0.0.1:5432)
 * @param options.port the loopback port to listen on; 0 (the default) picks a free one
 */
export async function startPgWsProxy(options: { target: { host: string; port: number }; port?: number }): Promise<PgWsProxy> {
  const { target } = options;
  const pairs = new Set<{ ws: WebSocket; tcp: Socket }>();
  const requests = new Set<() => void>();
  const track = (drop: () => void) => {
    requests.add(drop);
    return () => void requests.delete(drop);
  };
  const server = createServer((req, res) => {
    if (req.method === 'POST' && new URL(req.url ?? '/', 'http://proxy').pathname === '/sql') {
      void answerSqlOverHttp(req, res, target, (host, port) => sameTarget(host, port, target), track);
      return;
    }
    res.writeHead(426, { 'Content-Type': 'text/plain' }).end('WebSocket, or POST /sql.\n');
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 * 1024 });

  server.on('upgrade', (req: IncomingMessage, socket, head) => {
    if (!allowedAddress(req.url, target)) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => pipe(ws));
  });

  function pipe(ws: WebSocket): void {
    const tcp = createConnection({ host: target.host, port: target.port });
    const pair = { ws, tcp };
    pairs.add(pair);
    const pending: Buffer[] = [];
    const frames = new ClientFrames();
    let connected = false;
    tcp.setNoDelay(true);
    tcp.on('connect', () => {
      connected = true;
      for (const chunk of pending.splice(0)) tcp.write(chunk);
    });
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => {
      const chunk = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      const terminated = frames.push(chunk);
      if (connected) tcp.write(chunk);
      else pending.push(chunk);
      // After Terminate the client sends nothing more: close our side, as a server would its socket
      // (PostgreSQL does; an embedded server may wait, which would keep the connection open).
      if (terminated) tcp.end();
    });
    tcp.on('data', (chunk) => {
      if (ws.readyState === ws.OPEN) ws.send(chunk);
    });
    const end = () => {
      pairs.delete(pair);
      tcp.destroy();
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.terminate();
    };
    tcp.on('close', end);
    tcp.on('error', end);
    ws.on('close', end);
    ws.on('error', end);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  const dropConnections = () => {
    for (const { ws, tcp } of [...pairs]) {
      tcp.destroy();
      ws.terminate();
    }
    pairs.clear();
    for (const drop of [...requests]) drop();
    requests.clear();
  };
  return {
    port,
    wsProxy: `127.0.0.1:${port}/v1`,
    connections: () => pairs.size + requests.size,
    dropConnections,
    close: () =>
      new Promise<void>((resolve) => {
        dropConnections();
        wss.close();
        server.close(() => resolve());
      }),
  };
}

/**
 * Follows the framing of what a client sends (PostgreSQL protocol 3): untyped messages (SSLRequest,
 * StartupMessage) until the StartupMessage, then a type byte and a length per message. It only looks for
 * the client's Terminate (`X`).
 */
class ClientFrames {
  private typed = false;
  private header = Buffer.alloc(0);
  private skip = 0;

  /** @returns true when the chunk completes a Terminate message */
  push(chunk: Buffer): boolean {
    let at = 0;
    while (at < chunk.length) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - at);
        this.skip -= n;
        at += n;
        continue;
      }
      const size = this.typed ? 5 : 8;
      const take = Math.min(size - this.header.length, chunk.length - at);
      this.header = Buffer.concat([this.header, chunk.subarray(at, at + take)]);
      at += take;
      if (this.header.length < size) break;
      if (this.typed) {
        if (this.header[0] === 0x58) return true;
        this.skip = this.header.readInt32BE(1) - 4;
      } else {
        // Length, then the protocol code: 196608 (3.0) is the StartupMessage; others (SSL, GSS) precede it.
        this.skip = this.header.readInt32BE(0) - 8;
        if (this.header.readInt32BE(4) === 196_608) this.typed = true;
      }
      this.header = Buffer.alloc(0);
    }
    return false;
  }
}

/** True when the upgrade asks for no address, or for the proxy's own target. */
function allowedAddress(url: string | undefined, target: { host: string; port: number }): boolean {
  const address = new URL(url ?? '/', 'http://proxy').searchParams.get('address');
  if (address === null) return true;
  const at = address.lastIndexOf(':');
  const host = at > 0 ? address.slice(0, at) : address;
  const port = at > 0 ? Number(address.slice(at + 1)) : 5432;
  return sameTarget(host, port, target);
}

/** True when `host:port` names the target (any loopback name for a loopback target). */
function sameTarget(host: string, port: number, target: { host: string; port: number }): boolean {
  const local = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
  return (host === target.host || (local.has(host) && local.has(target.host))) && port === target.port;
}

/** `host:port` of a `postgres://` URL (port 5432 when absent). */
export function postgresTarget(databaseUrl: string): { host: string; port: number } {
  const url = new URL(databaseUrl);
  return { host: url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1', port: url.port ? Number(url.port) : 5432 };
}

/** True for a loopback host: a database the local proxy may front (Neon and other remote hosts are reached directly). */
export function isLoopback(host: string): boolean {
  return ['127.0.0.1', 'localhost', '::1'].includes(host);
}

/**
 * `DATABASE_URL` for local tools: the environment's, else the one in `.dev.vars` (where `wrangler dev` reads
 * the Worker's local secrets from, read as `devVar` reads it), else undefined.
 */
export function localDatabaseUrl(root: string): string | undefined {
  return devVar(root, 'DATABASE_URL');
}

if (import.meta.main) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const [host, port] = (arg('target') ?? '127.0.0.1:5432').split(':');
  const proxy = await startPgWsProxy({ target: { host: host!, port: Number(port ?? 5432) }, port: Number(arg('port') ?? 5488) });
  console.log(`pg-ws-proxy: ws://127.0.0.1:${proxy.port}/v1 -> ${host}:${port ?? 5432}`);
  const stop = () => void proxy.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
