/**
 * The Postgres store's index by version: an isolate keeps the last index it read of a fund, and a request
 * whose fund has not changed reads its version only (the index's JSON, the last year's runs, is not sent
 * again), and the earlier runs a request read at that version (a 10-year NAV history's) are not read again
 * either; any change to the fund, a share class, its fee terms or a run gives a new version, and the next
 * read sends the index and those runs again. The version is a digest of the rows, written by the database whenever
 * they are (a TRUNCATE included), so two databases holding the same fund id with other rows never share an
 * index.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlClient } from '../../lib/db/sql.ts';
import { postgresStore } from '../../lib/fund/postgres-store.ts';
import { StaleIndexError, guardedStore, type FundStore } from '../../lib/fund/store.ts';
import { fundIdentities } from '../../lib/fund/identities.ts';
import { callFundTool, type FundToolDefinition } from '../../lib/fund/definition.ts';
import { FUND_TOOLS } from '../../lib/registry.ts';
import type { ApiError } from '../../lib/errors.ts';
import { SAMPLE_FUND } from '../../lib/fund/synthetic.ts';
import { createTestDatabase, migrateAndSeed, type TestDatabase } from '../support/database.ts';

const FUND = SAMPLE_FUND.fundId;
let database: TestDatabase;
let other: TestDatabase;

beforeAll(async () => {
  [database, other] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  await migrateAndSeed(database, [FUND]);
  await migrateAndSeed(other, [FUND]);
  // The fund's identity set held, as in a Worker after its first request: the store may then answer the
  // index from the one it keeps.
  const connection = database.open();
  try {
    await fundIdentities(guardedStore(postgresStore(connection)), FUND);
  } finally {
    await connection.release();
  }
}, 120_000);
afterAll(async () => {
  await database?.dispose();
  await other?.dispose();
});

/**
 * The store's index, checked as a fund tool call checks it (lib/fund/definition.ts): the store may answer
 * from the index it keeps, and `verify` says whether that was current; when not, the index is read again.
 */
async function currentIndex(store: FundStore) {
  const index = await store.index(FUND);
  try {
    if (index) await store.verify?.(FUND, index);
    return index;
  } catch (err) {
    if (!(err instanceof StaleIndexError)) throw err;
    return store.index(FUND);
  }
}

/** One index read on a fresh connection to `db`: the index, and whether the last answer carried the index's JSON. */
async function readIndex(db: TestDatabase) {
  const connection = db.open();
  let sent = false;
  const watched: SqlClient = {
    async query(text, params) {
      const result = await connection.query(text, params);
      sent = (result.rows[0] as { index?: unknown } | undefined)?.index != null;
      return result as never;
    },
  };
  try {
    return { index: await currentIndex(postgresStore(watched)), sent };
  } finally {
    await connection.release();
  }
}

async function run(db: TestDatabase, sql: string): Promise<void> {
  const connection = db.open();
  try {
    await connection.query(sql);
  } finally {
    await connection.release();
  }
}

describe('the index by version', () => {
  it('is sent once, then only its version while the fund is unchanged; a change sends it again', async () => {
    const first = await readIndex(database);
    const second = await readIndex(database);
    expect(first.index!.runs.length).toBeGreaterThan(100);
    expect(second.sent).toBe(false);
    expect(second.index).toEqual(first.index);
    // A request may change its copy without changing what the next request gets.
    second.index!.runs.pop();
    expect((await readIndex(database)).index).toEqual(first.index);

    const latest = first.index!.runs[first.index!.runs.length - 1]!;
    await run(database, `UPDATE nav_runs SET net_flows = net_flows + 1 WHERE fund_id = '${FUND}' AND nav_date = '${latest.navDate}'`);
    const changed = await readIndex(database);
    expect(changed.sent).toBe(true);
    expect(Number(changed.index!.runs.at(-1)!.netFlows)).toBe(Number(latest.netFlows) + 1);

    await run(database, `UPDATE fee_terms SET mgmt_fee_pct = mgmt_fee_pct + 1 WHERE fund_id = '${FUND}'`);
    expect((await readIndex(database)).sent).toBe(true);
    expect((await readIndex(database)).sent).toBe(false);
  });

  it('reads the earlier runs of a version once: a later request at that version reads none, a new run reads them again', async () => {
    /** A request's index and runs from `from`, checked as a tool call checks them: the runs, and the round trips it made. */
    const runsFromDay = async (from: string) => {
      const connection = database.open();
      try {
        const store = postgresStore(connection);
        const once = async () => {
          const index = (await store.index(FUND))!;
          const { runs } = await store.read(FUND, { runs: { from } }, index);
          await store.verify!(FUND, index);
          return { index, runs };
        };
        const { index, runs } = await once().catch((err: unknown) => {
          if (err instanceof StaleIndexError) return once();
          throw err;
        });
        return { index, runs, roundTrips: connection.roundTrips };
      } finally {
        await connection.release();
      }
    };
    const index = (await readIndex(database)).index!;
    const all = await runsFromDay(index.firstRunDate!);
    expect(all.runs.length).toBeGreaterThan(index.runs.length);
    // The index kept (the last test read it): one statement, the earlier runs with the versions.
    expect(all.roundTrips).toBe(1);
    // Then none but the check of the versions.
    const again = await runsFromDay(index.firstRunDate!);
    expect(again.roundTrips).toBe(1);
    expect(again.runs).toEqual(all.runs);
    // A later day: a part of the kept runs, the same as the database's.
    const later = await runsFromDay(all.runs[300]!.navDate);
    expect(later.roundTrips).toBe(1);
    const fresh = database.open();
    try {
      expect(later.runs).toEqual((await postgresStore(fresh).read(FUND, { runs: { from: all.runs[300]!.navDate } })).runs);
    } finally {
      await fresh.release();
    }
    // A new version (a run changed): the index and the earlier runs are read again, as they now are.
    const first = all.runs[0]!;
    await run(database, `UPDATE nav_runs SET net_flows = net_flows + 1 WHERE fund_id = '${FUND}' AND nav_date = '${first.navDate}'`);
    // The check finds the kept index stale; then the index and the earlier runs are read.
    const changed = await runsFromDay(index.firstRunDate!);
    expect(changed.roundTrips).toBe(3);
    expect(Number(changed.runs[0]!.netFlows)).toBe(Number(first.netFlows) + 1);
  });

  it('never gives one database the index of another holding the same fund id with other rows', async () => {
    await run(other, `UPDATE funds SET name = 'Another fund' WHERE fund_id = '${FUND}'`);
    await readIndex(database);
    const there = await readIndex(other);
    expect(there.sent).toBe(true);
    expect(there.index!.fund.name).toBe('Another fund');
    expect((await readIndex(database)).index!.fund.name).not.toBe('Another fund');
  });

  it('a TRUNCATE of the investors or the runs changes the versions too', async () => {
    const versions = async () => {
      const connection = database.open();
      try {
        return (
          await connection.query<{ v: string }>(
            `SELECT index_version || ' ' || identity_version AS v FROM fund_versions WHERE fund_id = $1`,
            [FUND],
          )
        ).rows[0]!.v;
      } finally {
        await connection.release();
      }
    };
    const before = await versions();
    await run(database, 'TRUNCATE investors CASCADE');
    const [index, identity] = (await versions()).split(' ');
    expect(index).toBe(before.split(' ')[0]);
    expect(identity).toBe('md5:d41d8cd98f00b204e9800998ecf8427e'); // no investor: the MD5 of nothing
    await run(database, 'TRUNCATE nav_runs CASCADE');
    expect((await versions()).split(' ')[0]).not.toBe(index);
    expect((await readIndex(database)).index!.runs).toEqual([]);
  });

  it('reads a fund the database does not hold as none', async () => {
    const connection = database.open();
    try {
      expect(await postgresStore(connection).index('no-such-fund')).toBeNull();
    } finally {
      await connection.release();
    }
  });
});

// On the other database: the one above has had its runs truncated by now.
describe('a tool call on the kept index', () => {
  const tool = (name: string) => FUND_TOOLS.find((t) => t.tool === name)! as FundToolDefinition;
  /** One tool call on a connection of its own: its answer, and the round trips it made. */
  const call = async (name: string, args: Record<string, string> = {}) => {
    const connection = other.open();
    try {
      const text = await callFundTool(tool(name), { store: guardedStore(postgresStore(connection)), fundId: FUND }, {}, args);
      return { text, roundTrips: connection.roundTrips };
    } finally {
      await connection.release();
    }
  };

  it('makes one statement: its read, or the check of the versions; a change found there is answered from the new index', async () => {
    await call('get_nav_history', { days: '7' });
    // Index only: the check of the versions. With rows: the read, which carries the versions.
    expect((await call('get_nav_history', { days: '7' })).roundTrips).toBe(1);
    const balances = await call('get_trial_balance');
    expect(balances.roundTrips).toBe(1);

    const index = (await readIndex(other)).index!;
    const latest = index.runs.at(-1)!;
    await run(other, `UPDATE nav_runs SET admin_nav = admin_nav + 1 WHERE fund_id = '${FUND}' AND nav_date = '${latest.navDate}'`);
    // The check finds the kept index stale, and the answer is made again from the index now read.
    const history = await call('get_nav_history', { days: '7' });
    expect(history.roundTrips).toBe(2);
    const adminNav = (JSON.parse(history.text) as { runs: { navDate: string; adminNav: string }[] }).runs[0]!;
    expect(adminNav.navDate).toBe(latest.navDate);
    expect(Number(adminNav.adminNav)).toBe(Number(latest.adminNav) + 1);

    await run(other, `UPDATE nav_runs SET admin_nav = admin_nav - 1 WHERE fund_id = '${FUND}' AND nav_date = '${latest.navDate}'`);
    // The read finds it stale; the index and the read again.
    const again = await call('get_trial_balance');
    expect(again.roundTrips).toBe(3);
    expect(again.text).toBe(balances.text);
    expect((await call('get_trial_balance')).roundTrips).toBe(1);
  });

  it('sends no refusal made from a kept index that is stale: the call is answered from the index now read', async () => {
    // A complete run whose reconciliation broke: its P&L attribution is refused (409) while it is not usable.
    const date = '2026-10-31';
    await call('get_nav_history', { days: '7' });
    const refused = await call('get_pnl_attribution', { date }).catch((err: unknown) => err);
    expect((refused as ApiError).code).toBe('not_usable');
    await run(other, `UPDATE nav_runs SET recon_status = 'matched' WHERE fund_id = '${FUND}' AND nav_date = '${date}'`);
    try {
      // The kept index still says the run is not usable; the check before the refusal finds it stale.
      const answered = await call('get_pnl_attribution', { date });
      expect((JSON.parse(answered.text) as { date: string }).date).toBe(date);
      expect(answered.roundTrips).toBe(3); // the check, the index, the read
    } finally {
      await run(other, `UPDATE nav_runs SET recon_status = 'break' WHERE fund_id = '${FUND}' AND nav_date = '${date}'`);
    }
  });

  it("checks each call's index on its own when the calls of one request share a store (an MCP batch)", async () => {
    await call('get_nav_history', { days: '7' });
    const connection = other.open();
    try {
      const store = guardedStore(postgresStore(connection));
      const a = (await store.index(FUND))!;
      const b = (await store.index(FUND))!;
      expect(connection.roundTrips).toBe(0);
      // A's read checks A's index: current.
      await store.read(FUND, { balances: { through: a.runs.at(-1)!.navDate } }, a);
      const latest = a.runs.at(-1)!;
      await run(other, `UPDATE nav_runs SET admin_nav = admin_nav + 1 WHERE fund_id = '${FUND}' AND nav_date = '${latest.navDate}'`);
      try {
        // B's index was not checked by A's read: it is now, and found stale; A's stands as its read found it.
        await expect(store.verify!(FUND, b)).rejects.toBeInstanceOf(StaleIndexError);
        await expect(store.verify!(FUND, a)).resolves.toBeUndefined();
        expect(connection.roundTrips).toBe(2);
        // After a stale index, the store reads the index: the fund as it now is.
        const now = (await store.index(FUND))!;
        expect(Number(now.runs.at(-1)!.adminNav)).toBe(Number(latest.adminNav) + 1);
      } finally {
        await run(other, `UPDATE nav_runs SET admin_nav = admin_nav - 1 WHERE fund_id = '${FUND}' AND nav_date = '${latest.navDate}'`);
      }
    } finally {
      await connection.release();
    }
  });
});
