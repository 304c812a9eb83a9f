/**
 * The Worker's one-shot reads over SQL-over-HTTP (lib/db/http.ts), through the project's proxy
 * (scripts/pg-http.ts on `POST /sql`), against the test database: the same rows as the WebSocket driver's for
 * the types the service reads, the server's own time budget, and every failure of the database as a service a
 * 503 that carries no message of the server's, while a fault of the statement stays a plain 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { UpstreamUnavailableError } from '../../lib/errors.ts';
import { encodeParam, neonHttpEndpoint, openHttpDatabase } from '../../lib/db/http.ts';
import { createTestDatabase, someoneWaitsOnALock, type TestDatabase } from '../support/database.ts';

let database: TestDatabase;
const endpoint = () => neonHttpEndpoint(database.url, database.proxy.wsProxy);
const open = (timeoutMs = 30_000) => openHttpDatabase({ url: database.url, endpoint: endpoint(), timeoutMs });

beforeAll(async () => {
  database = await createTestDatabase();
}, 60_000);
afterAll(async () => {
  await database?.dispose();
});

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}

describe('the endpoint', () => {
  it("is the local proxy's when one is configured, else Neon's for the URL's host (as the driver derives it)", () => {
    expect(neonHttpEndpoint('postgres://u:p@127.0.0.1:5432/db', '127.0.0.1:5488/v1')).toBe('http://127.0.0.1:5488/sql');
    expect(neonHttpEndpoint('postgresql://u:p@ep-cool-name-123.us-east-2.aws.neon.tech/neondb')).toBe(
      'https://api.us-east-2.aws.neon.tech/sql',
    );
  });
});

describe('parameters', () => {
  it("are sent in pg's text forms: arrays as array literals, quotes and backslashes escaped", () => {
    expect(encodeParam(null)).toBeNull();
    expect(encodeParam(undefined)).toBeNull();
    expect(encodeParam(12.5)).toBe('12.5');
    expect(encodeParam(true)).toBe('true');
    expect(encodeParam(['a', 'b"c', 'd\\e', null])).toBe('{"a","b\\"c","d\\\\e",NULL}');
    expect(encodeParam({ a: 1 })).toBe('{"a":1}');
    expect(encodeParam(new Date(Date.UTC(2026, 0, 2)))).toBe('2026-01-02T00:00:00.000Z');
  });

  it('a text[] parameter reaches the server as the strings it was (any text)', async () => {
    const db = open();
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.string({ unit: 'binary' }).map((s) => s.replace(/\0/g, '')),
          { maxLength: 6 },
        ),
        async (values) => {
          const { rows } = await db.query<{ v: string[] }>('SELECT to_json($1::text[]) AS v', [values]);
          expect(rows[0]!.v).toEqual(values);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('rows', () => {
  it("equal the WebSocket driver's for the types the service reads (text, json, integers, floats, booleans, nulls)", async () => {
    const text = `SELECT $1::text AS t, json_build_object('a', $2::int, 'b', ARRAY['x', NULL]) AS j, '{"k": [1, 2.5]}'::jsonb AS jb,
      42::int4 AS i, 7::int2 AS s, 1.25::float8 AS f, true AS yes, false AS no, NULL::text AS nothing,
      9007199254740993::int8 AS big, 12.340::numeric AS n, ARRAY['a', 'b'] AS arr_as_text FROM generate_series(1, 2)`;
    const params = ['héllo "wörld"', 5];
    const ws = database.open();
    try {
      const viaWs = (await ws.query(text, params)).rows;
      const viaHttp = (await open().query(text, params)).rows;
      const { arr_as_text: arrWs, ...restWs } = viaWs[0]!;
      const { arr_as_text: arrHttp, ...restHttp } = viaHttp[0]!;
      expect(viaHttp).toHaveLength(2);
      expect(restHttp).toEqual(restWs);
      expect(restHttp).toEqual({
        t: 'héllo "wörld"',
        j: { a: 5, b: ['x', null] },
        jb: { k: [1, 2.5] },
        i: 42,
        s: 7,
        f: 1.25,
        yes: true,
        no: false,
        nothing: null,
        big: '9007199254740993',
        n: '12.340',
      });
      // Arrays are the one difference: the driver parses them, the HTTP client leaves their text (the service reads none).
      expect(arrWs).toEqual(['a', 'b']);
      expect(arrHttp).toBe('{a,b}');
    } finally {
      await ws.release();
    }
  });

  it('each statement is one round trip, read-only, under the time budget on the server too', async () => {
    const db = open(1234);
    const { rows } = await db.query<{ budget: string; ro: string }>(
      "SELECT current_setting('statement_timeout') AS budget, current_setting('transaction_read_only') AS ro",
    );
    expect(rows).toEqual([{ budget: '1234ms', ro: 'on' }]);
    expect(db.roundTrips).toBe(1);
  });
});

describe('failures', () => {
  it('a fault of the statement is a plain error, its SQLSTATE kept as the cause', async () => {
    const err = (await rejection(open().query('SELEC 1'))) as Error & { cause?: { code?: string } };
    expect(err).not.toBeInstanceOf(UpstreamUnavailableError);
    expect(err.message).toBe('A database statement failed.');
    expect(err.cause?.code).toBe('42601');
    const write = (await rejection(open().query('CREATE TABLE not_here (x int)'))) as Error & { cause?: { code?: string } };
    expect(write.cause?.code).toBe('25006');
  });

  it("the server's statement timeout is a 503 without the server's message", async () => {
    if (database.kind !== 'postgres') return; // PGlite runs one statement at a time and has no timeout
    const db = openHttpDatabase({ url: database.url, endpoint: endpoint(), timeoutMs: 200 });
    // The client's abort and the server's cancel race at the same budget; either way it is a 503.
    const err = await rejection(db.query('SELECT pg_sleep(5)'));
    expect(err).toBeInstanceOf(UpstreamUnavailableError);
    expect(String((err as Error).message)).not.toMatch(/cancel|timeout|pg_sleep/i);
  });

  it('nothing listening: 503', async () => {
    const db = openHttpDatabase({ url: database.url, endpoint: 'http://127.0.0.1:9/sql', timeoutMs: 5_000 });
    expect(await rejection(db.query('SELECT 1'))).toBeInstanceOf(UpstreamUnavailableError);
  });

  it('a server that answers late: 503 at the time budget', async () => {
    if (database.kind !== 'postgres') return;
    const holder = database.open(60_000);
    try {
      await holder.query('CREATE TABLE IF NOT EXISTS held (x int)');
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE held IN ACCESS EXCLUSIVE MODE');
      const started = performance.now();
      const err = await rejection(open(400).query('SELECT count(*) FROM held'));
      expect(err).toBeInstanceOf(UpstreamUnavailableError);
      expect(performance.now() - started).toBeLessThan(3_000);
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      await holder.release();
    }
  });

  it('the connection dropped mid-statement: 503, and the proxy holds nothing afterwards', async () => {
    if (database.kind !== 'postgres') return;
    const holder = database.open(60_000);
    try {
      await holder.query('CREATE TABLE IF NOT EXISTS held2 (x int)');
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE held2 IN ACCESS EXCLUSIVE MODE');
      const waiting = rejection(open().query('SELECT count(*) FROM held2'));
      await someoneWaitsOnALock(database);
      database.proxy.dropConnections();
      expect(await waiting).toBeInstanceOf(UpstreamUnavailableError);
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      await holder.release();
    }
    for (let i = 0; i < 50 && database.proxy.connections() > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(database.proxy.connections()).toBe(0);
    expect((await open().query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('the proxy serves only its own target: another host or port is refused (403), a 503 to the client', async () => {
    const elsewhere = openHttpDatabase({ url: database.url.replace(/:\d+\//, ':1/'), endpoint: endpoint(), timeoutMs: 5_000 });
    expect(await rejection(elsewhere.query('SELECT 1'))).toBeInstanceOf(UpstreamUnavailableError);
  });
});
