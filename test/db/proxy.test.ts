/**
 * The local WebSocket-to-TCP proxy (`scripts/pg-ws-proxy.ts`) in front of the test database (the local
 * PostgreSQL, or embedded PGlite with `FUND_EDGE_TEST_PGLITE=1`; see test/support/database.ts).
 *
 * Covers:
 * - it listens on 127.0.0.1 only: no other local address (127.0.0.2, ::1, the machine's own interfaces)
 *   reaches it;
 * - it forwards only to its target: an upgrade whose `address` names another host or port is refused with
 *   403 before anything is opened; the target itself, `localhost`/`[::1]` for a loopback target and no
 *   `address` at all are accepted, and the driver reaches the database through `localhost` as well;
 * - a plain HTTP request is 426;
 * - `dropConnections()` closes every open client socket and keeps listening; `close()` stops listening;
 * - the client's Terminate closes the TCP side (PGlite keeps it open otherwise), followed through messages
 *   split at awkward boundaries, with an `X` byte inside a query that is not a Terminate; with the driver,
 *   `release()` brings the connection count back to 0 on both servers;
 * - the helpers `postgresTarget`, `isLoopback` and `localDatabaseUrl` (environment over `.dev.vars`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { openDatabase } from '../../operator/db/session.ts';
import { UpstreamUnavailableError } from '../../lib/errors.ts';
import { isLoopback, localDatabaseUrl, postgresTarget, startPgWsProxy, type PgWsProxy } from '../../scripts/pg-ws-proxy.ts';
import { envFileLine } from '../../scripts/dev-args.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

let database: TestDatabase;
/** Host and port of the database server behind the proxy. */
let target: { host: string; port: number };

beforeAll(async () => {
  database = await createTestDatabase();
  target = postgresTarget(database.url);
}, 120_000);

afterAll(async () => {
  await database?.dispose();
});

/** Waits until the proxy holds no connection (closing is asynchronous on both sides). */
async function drained(proxy: PgWsProxy): Promise<void> {
  await vi.waitFor(() => expect(proxy.connections()).toBe(0), { timeout: 10_000, interval: 20 });
}

/** True when a TCP connection to host:port is accepted (refused, unreachable or silent for 3 s: false). */
function tcpAccepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host, port });
    socket.setTimeout(3000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

type Upgrade = { kind: 'open'; ws: WebSocket } | { kind: 'refused'; status: number } | { kind: 'error'; message: string };

/** Opens a WebSocket to the proxy; resolves with what became of the upgrade. */
function upgrade(proxy: PgWsProxy, query: string): Promise<Upgrade> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${proxy.port}/v1${query}`);
    ws.once('open', () => resolve({ kind: 'open', ws }));
    ws.once('unexpected-response', (_req, res) => {
      resolve({ kind: 'refused', status: res.statusCode ?? 0 });
      res.resume();
      ws.terminate();
    });
    ws.once('error', (err) => resolve({ kind: 'error', message: err.message }));
  });
}

/** An accepted upgrade's socket (fails the test otherwise). */
async function opened(proxy: PgWsProxy, query = `?address=${target.host}:${target.port}`): Promise<WebSocket> {
  const result = await upgrade(proxy, query);
  if (result.kind !== 'open') throw new Error(`upgrade ${query} was not accepted: ${JSON.stringify(result)}`);
  return result.ws;
}

/** Resolves when the socket is closed (at once if it already is). */
function closedSocket(ws: WebSocket): Promise<void> {
  if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => ws.once('close', () => resolve()));
}

describe('where it listens', () => {
  it('on 127.0.0.1 only, and says so in the driver setting it hands out', async () => {
    const proxy = database.proxy;
    expect(proxy.wsProxy).toBe(`127.0.0.1:${proxy.port}/v1`);
    expect(await tcpAccepts('127.0.0.1', proxy.port)).toBe(true);

    // Every other address of this machine: the IPv6 loopback, the machine's own interfaces (link-local
    // addresses need a zone and are left out) and, on Linux, the rest of 127/8, which a socket bound to
    // 0.0.0.0 would also answer on.
    const others = new Set<string>(['::1']);
    if (process.platform === 'linux') others.add('127.0.0.2');
    for (const list of Object.values(networkInterfaces())) {
      for (const info of list ?? []) {
        if (!info.internal && !info.address.startsWith('fe80:')) others.add(info.address);
      }
    }
    for (const host of others) expect(await tcpAccepts(host, proxy.port), host).toBe(false);
  });
});

describe('which upgrades it accepts', () => {
  // Connections closed just before (creating the database) may still be closing: start from none.
  beforeEach(async () => {
    await drained(database.proxy);
  });

  afterEach(async () => {
    await drained(database.proxy);
  });

  it.each([
    ['a remote host on the Postgres port', () => '10.0.0.1:5432'],
    ['a remote host on the target port', () => `10.0.0.1:${target.port}`],
    ['a named remote host on the target port', () => `db.example:${target.port}`],
    ['the target host on another port', () => `${target.host}:${target.port + 1}`],
    ['localhost on another port', () => 'localhost:1'],
    ['another loopback address on the target port', () => `127.0.0.2:${target.port}`],
    ['an IPv4-mapped IPv6 address', () => `[::ffff:127.0.0.1]:${target.port}`],
    ['a port that is not a number', () => `${target.host}:${target.port}x`],
  ])('refuses an address naming %s with 403, opening nothing', async (_label, address) => {
    const result = await upgrade(database.proxy, `?address=${encodeURIComponent(address())}`);
    expect(result).toEqual({ kind: 'refused', status: 403 });
    expect(database.proxy.connections()).toBe(0);
  });

  it.each([
    ['the target itself', () => `?address=${target.host}:${target.port}`],
    ['localhost and the target port', () => `?address=localhost:${target.port}`],
    ['[::1] and the target port', () => `?address=${encodeURIComponent(`[::1]:${target.port}`)}`],
    ['no address (the target)', () => ''],
  ])('accepts %s', async (_label, query) => {
    const ws = await opened(database.proxy, query());
    expect(database.proxy.connections()).toBe(1);
    ws.terminate();
    await closedSocket(ws);
  });

  it('lets the driver reach the database through localhost (the address it sends is host:port of the URL)', async () => {
    const url = new URL(database.url);
    url.hostname = 'localhost';
    const db = openDatabase({ url: url.toString(), wsProxy: database.proxy.wsProxy, timeoutMs: 30_000 });
    try {
      expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await db.release();
    }
  });

  it('answers a plain HTTP request with 426', async () => {
    const res = await fetch(`http://127.0.0.1:${database.proxy.port}/v1?address=${target.host}:${target.port}`);
    expect(res.status).toBe(426);
    expect(await res.text()).toBe('WebSocket, or POST /sql.\n');
    expect(database.proxy.connections()).toBe(0);
  });
});

describe('dropConnections() and close()', () => {
  let proxy: PgWsProxy | undefined;

  beforeEach(async () => {
    proxy = await startPgWsProxy({ target });
  });

  afterEach(async () => {
    await proxy?.close();
  });

  it('dropConnections() closes every open client socket and keeps listening', async () => {
    const sockets = [await opened(proxy!), await opened(proxy!)];
    expect(proxy!.connections()).toBe(2);
    proxy!.dropConnections();
    expect(proxy!.connections()).toBe(0);
    await Promise.all(sockets.map(closedSocket));

    const again = await opened(proxy!);
    expect(proxy!.connections()).toBe(1);
    again.terminate();
    await closedSocket(again);
    await drained(proxy!);
  });

  it('close() drops the open sockets and stops listening: new connections fail', async () => {
    const ws = await opened(proxy!);
    await proxy!.close();
    await closedSocket(ws);
    expect(proxy!.connections()).toBe(0);
    expect(await tcpAccepts('127.0.0.1', proxy!.port)).toBe(false);

    const db = openDatabase({ url: database.url, wsProxy: proxy!.wsProxy, timeoutMs: 10_000 });
    try {
      await expect(db.query('SELECT 1')).rejects.toBeInstanceOf(UpstreamUnavailableError);
    } finally {
      await db.release();
    }
  });
});

/** PostgreSQL frontend messages, built by hand. */
const wire = {
  startup(params: Record<string, string>): Buffer {
    const body = Buffer.concat([...Object.entries(params).map(([k, v]) => Buffer.from(`${k}\0${v}\0`)), Buffer.from([0])]);
    const head = Buffer.alloc(8);
    head.writeInt32BE(8 + body.length, 0);
    head.writeInt32BE(196_608, 4);
    return Buffer.concat([head, body]);
  },
  typed(type: string, body: Buffer): Buffer {
    const head = Buffer.alloc(5);
    head.write(type, 0, 'latin1');
    head.writeInt32BE(4 + body.length, 1);
    return Buffer.concat([head, body]);
  },
};

/** Collects the server's messages from a socket, by type byte. */
class ServerMessages {
  private buffer = Buffer.alloc(0);
  readonly types: string[] = [];
  private closed = false;
  private waiters: (() => void)[] = [];

  constructor(ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, data]);
      while (this.buffer.length >= 5 && this.buffer.length >= 1 + this.buffer.readInt32BE(1)) {
        this.types.push(String.fromCharCode(this.buffer[0]!));
        this.buffer = this.buffer.subarray(1 + this.buffer.readInt32BE(1));
      }
      this.wake();
    });
    ws.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  private wake(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves once `count` messages of `type` have arrived; rejects on an error message or a closed socket. */
  async waitFor(type: string, count: number): Promise<void> {
    while (this.types.filter((t) => t === type).length < count) {
      if (this.types.includes('E')) throw new Error(`the server answered an error: ${this.types.join('')}`);
      if (this.closed) throw new Error(`the connection closed after ${this.types.join('')}`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }
}

/** Resolves with `promise`, or rejects after `ms` (a failing test then says what it waited for). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe("the client's Terminate", () => {
  beforeEach(async () => {
    await drained(database.proxy);
  });

  it('closes the TCP side, however the messages are split, and only on a real Terminate', async () => {
    const user = new URL(database.url).username;
    const name = new URL(database.url).pathname.slice(1);
    const ws = await opened(database.proxy);
    const server = new ServerMessages(ws);
    const closed = closedSocket(ws);

    // The StartupMessage one byte per WebSocket message.
    for (const byte of wire.startup({ user, database: name })) ws.send(Buffer.from([byte]));
    await within(server.waitFor('Z', 1), 10_000, 'the answer to the StartupMessage');

    // A query whose text holds an `X` at the start of a WebSocket message, with its header split too:
    // the proxy must not take it for a Terminate.
    const query = wire.typed('Q', Buffer.from("SELECT 'X' AS x\0"));
    const at = query.indexOf('X', 5);
    for (const part of [query.subarray(0, 1), query.subarray(1, 3), query.subarray(3, at), query.subarray(at)]) ws.send(part);
    await within(server.waitFor('Z', 2), 10_000, 'the answer to the query');
    expect(server.types).toContain('D');
    // Had the proxy ended the TCP side there, the server would be gone: a further query proves it is not.
    ws.send(wire.typed('Q', Buffer.from('SELECT 2\0')));
    await within(server.waitFor('Z', 3), 10_000, 'the answer to the second query');
    expect(ws.readyState).toBe(WebSocket.OPEN);
    expect(database.proxy.connections()).toBe(1);

    // Terminate, its type byte and its length in two messages.
    const terminate = wire.typed('X', Buffer.alloc(0));
    ws.send(terminate.subarray(0, 1));
    ws.send(terminate.subarray(1));
    await within(closed, 10_000, 'the proxy closing after Terminate');
    await drained(database.proxy);
  });

  it("brings the count back to 0 after the driver's release()", async () => {
    const db = database.open();
    try {
      expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      expect(database.proxy.connections()).toBe(1);
    } finally {
      await db.release();
    }
    await drained(database.proxy);
  });
});

describe('postgresTarget and isLoopback', () => {
  it.each([
    ['postgres://u@db.example:6543/x', { host: 'db.example', port: 6543 }],
    ['postgres://u:secret@db.example/x', { host: 'db.example', port: 5432 }],
    ['postgresql://u@127.0.0.1:5433/x?sslmode=disable', { host: '127.0.0.1', port: 5433 }],
    ['postgres://u@[::1]:5434/x', { host: '::1', port: 5434 }],
    ['postgres://u@localhost/x', { host: 'localhost', port: 5432 }],
  ])('postgresTarget(%s)', (url, expected) => {
    expect(postgresTarget(url)).toEqual(expected);
  });

  it.each([
    ['127.0.0.1', true],
    ['localhost', true],
    ['::1', true],
    ['db.example', false],
    ['10.0.0.1', false],
    ['ep-cool-name-123456.eu-central-1.aws.neon.tech', false],
  ])('isLoopback(%s) is %s', (host, expected) => {
    expect(isLoopback(host)).toBe(expected);
  });
});

describe('localDatabaseUrl', () => {
  const saved = process.env.DATABASE_URL;
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'fund-edge-devvars-'));
    delete process.env.DATABASE_URL;
  });

  afterEach(() => {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
    rmSync(root, { recursive: true, force: true });
  });

  const devVars = (text: string) => writeFileSync(join(root, '.dev.vars'), text);

  it('prefers the environment over .dev.vars', () => {
    devVars('DATABASE_URL=postgres://file@127.0.0.1:5432/from_file\n');
    process.env.DATABASE_URL = 'postgres://env@127.0.0.1:5432/from_env';
    expect(localDatabaseUrl(root)).toBe('postgres://env@127.0.0.1:5432/from_env');
  });

  it('reads .dev.vars when the environment has none: comments and other lines skipped, quotes and spaces removed', () => {
    devVars(
      '# DATABASE_URL=postgres://commented@127.0.0.1/x\r\nOTHER=1\r\n  DATABASE_URL = "postgres://file@127.0.0.1:5432/from_file"  \r\n',
    );
    expect(localDatabaseUrl(root)).toBe('postgres://file@127.0.0.1:5432/from_file');
    devVars("DATABASE_URL='postgres://single@127.0.0.1/x'\n");
    expect(localDatabaseUrl(root)).toBe('postgres://single@127.0.0.1/x');
  });

  it('reads back a URL as envFileLine writes it, a $ in its password included', () => {
    devVars(`${envFileLine('DATABASE_URL', 'postgres://app:pa$word@127.0.0.1:5432/fund_edge')}\n`);
    expect(localDatabaseUrl(root)).toBe('postgres://app:pa$word@127.0.0.1:5432/fund_edge');
    devVars(`${envFileLine('DATABASE_URL', 'postgres://app:p a$$@127.0.0.1/x')}\n`);
    expect(localDatabaseUrl(root)).toBe('postgres://app:p a$$@127.0.0.1/x');
  });

  it('is undefined with neither', () => {
    expect(localDatabaseUrl(root)).toBeUndefined();
    devVars('INVESTOR_REF_KEY=abc\n');
    expect(localDatabaseUrl(root)).toBeUndefined();
  });
});
