/**
 * The Postgres store against a real server (see test/support/database.ts): parity with the embedded store
 * (byte-identical JSON from all twelve endpoints, for both synthetic funds and non-default arguments), the
 * round trips each endpoint call makes, and the app serving a real key from the database. Parity holds for
 * a database seeded directly and for one loaded through files: each fund exported as a bundle from the
 * embedded store and imported with `npm run fund`'s pipeline (operator/bundle/) into an empty database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../operator/db/migrate.ts';
import { exportEmbedded } from '../../operator/bundle/export.ts';
import { importBundle } from '../../operator/bundle/load.ts';
import { loadMigrations } from '../../scripts/db.ts';
import { createApp } from '../../lib/service.ts';
import { callFundTool } from '../../lib/fund/definition.ts';
import { fundIdentities } from '../../lib/fund/identities.ts';
import { embeddedStore } from '../../lib/fund/embedded-store.ts';
import { clearKeptIndexes, postgresStore } from '../../lib/fund/postgres-store.ts';
import { guardedStore } from '../../lib/fund/store.ts';
import { addDays, isUsable } from '../../lib/fund/analytics/runs.ts';
import { DEMO_FUND, SAMPLE_FUND } from '../../lib/fund/synthetic.ts';
import { FUND_TOOLS } from '../../lib/registry.ts';
import { createKey } from '../../lib/keys.ts';
import { createTestDatabase, migrateAndSeed, type TestDatabase } from '../support/database.ts';
import { fakeEnv } from '../support/fakes.ts';

let database: TestDatabase;
/** An empty migrated database that both funds were loaded into through their exported bundles (PostgreSQL only). */
let throughFiles: TestDatabase | undefined;
const bundles = mkdtempSync(join(tmpdir(), 'fund-edge-parity-'));

beforeAll(async () => {
  database = await createTestDatabase();
  await migrateAndSeed(database, [SAMPLE_FUND.fundId, DEMO_FUND.fundId]);
  // COPY FROM STDIN needs PostgreSQL itself: the embedded fallback's socket server does not speak it.
  if (database.kind !== 'postgres') return;
  throughFiles = await createTestDatabase();
  const db = throughFiles.open();
  try {
    await migrate(db, loadMigrations());
  } finally {
    await db.release();
  }
  for (const { fundId } of [SAMPLE_FUND, DEMO_FUND]) {
    const dir = join(bundles, fundId);
    await exportEmbedded(fundId, dir);
    const result = await importBundle({ dir, fundId, mode: 'replace', allowRestatement: false, dryRun: false, url: throughFiles.url });
    if (result.outcome !== 'imported') throw new Error(`importing ${fundId}: ${JSON.stringify(result.validation.errors)}`);
  }
}, 120_000);

afterAll(async () => {
  await database?.dispose();
  await throughFiles?.dispose();
  rmSync(bundles, { recursive: true, force: true });
});

/** Argument sets per tool: the defaults, and non-default ones that reach other code paths. */
const ARGS: Record<string, Record<string, string>[]> = {
  get_exposure_series: [{}, { days: '366' }],
  get_pnl_attribution: [{ date: '2026-10-20' }, { date: '2026-03-02' }],
  get_value_at_risk: [{}, { method: 'sample', confidence: '0.99', horizonDays: '10', windowDays: '1000' }, { windowDays: '20' }],
  get_trial_balance: [{}, { asOf: '2025-12-31' }],
  get_expenses: [{}, { limit: '500' }, { limit: '1' }],
  get_nav_history: [{}, { days: '3660' }],
};

const CASES = FUND_TOOLS.flatMap((def) => (ARGS[def.tool] ?? [{}]).map((args) => [def.tool, JSON.stringify(args), def, args] as const));

const LOADS = [SAMPLE_FUND, DEMO_FUND].flatMap((spec) => [
  { spec, fundId: spec.fundId, load: 'seeded', of: (): TestDatabase | undefined => database },
  { spec, fundId: spec.fundId, load: 'exported and imported through files', of: () => throughFiles },
]);

describe.each(LOADS)('parity with the embedded store: $fundId, $load', ({ spec, of }) => {
  const embedded = guardedStore(embeddedStore([spec]));

  // The fund's identity set is loaded once per isolate and version (lib/fund/identities.ts), with the index
  // statement; after that a call only compares its version, read by the same statement.
  beforeAll(async () => {
    const source = of();
    if (!source) return;
    const db = source.open();
    try {
      await fundIdentities(guardedStore(postgresStore(db)), spec.fundId);
    } finally {
      await db.release();
    }
  });

  it.for(CASES)('%s %s gives byte-identical JSON, in the round trips it needs', async ([, , def, args], ctx) => {
    const source = of();
    if (!source) return ctx.skip(); // through files: PostgreSQL only (see beforeAll)
    const expected = await callFundTool(def, { store: embedded, fundId: spec.fundId }, {}, args);
    // As an isolate's first call of the fund (its index read); later calls: test/db/index-versions.test.ts.
    clearKeptIndexes();
    const db = source.open();
    try {
      const actual = await callFundTool(def, { store: guardedStore(postgresStore(db)), fundId: spec.fundId }, {}, args);
      expect(actual).toBe(expected);
      // The index (fund, share classes, the last year's runs) is one statement; tools that need rows read
      // them in one more. Runs of earlier days (a NAV history of ten years) take one more the first time the
      // isolate reads them at the fund's version (test/db/index-versions.test.ts), so any count up to 2 here.
      const indexOnly = ['get_fund_overview', 'get_fee_terms', 'get_nav_history'].includes(def.tool);
      if (def.tool === 'get_nav_history' && args.days) expect(db.roundTrips).toBeLessThanOrEqual(2);
      else expect(db.roundTrips).toBe(indexOnly ? 1 : 2);
    } finally {
      await db.release();
    }
  });

  it('sums the ledger of a span per account, asset and venue as the embedded store does, in the same order', async (ctx) => {
    const source = of();
    if (!source) return ctx.skip();
    const db = source.open();
    try {
      const store = guardedStore(postgresStore(db));
      const spans = [
        { after: '2026-10-19', through: '2026-10-20' },
        { after: '2026-02-28', through: '2026-03-31' },
        { after: null, through: spec.endDate },
      ];
      for (const ledger of spans) {
        const want = (await embedded.read(spec.fundId, { ledger })).ledger;
        expect(want.length, JSON.stringify(ledger)).toBeGreaterThan(0);
        expect((await store.read(spec.fundId, { ledger })).ledger, JSON.stringify(ledger)).toEqual(want);
      }
    } finally {
      await db.release();
    }
  });
});

describe('the runs a request reads', () => {
  it.each([SAMPLE_FUND, DEMO_FUND])(
    '$fundId: the index holds the last year’s runs, and a read from any day the runs from it, as the embedded store',
    async (spec) => {
      const embedded = embeddedStore([spec]);
      const expected = (await embedded.index(spec.fundId))!;
      const all = (await embedded.read(spec.fundId, { runs: { from: expected.firstRunDate! } })).runs;
      const db = database.open();
      try {
        const store = postgresStore(db);
        const index = (await store.index(spec.fundId))!;
        expect(index).toEqual(expected);
        expect(index.runs.length).toBeLessThan(all.length);
        // From before the first run, the first run, a broken stretch, the index's own start, the last run and after it.
        const days = [addDays(all[0]!.navDate, -30), all[0]!.navDate, all[40]!.navDate, all[200]!.navDate, index.runsFrom!];
        days.push(
          all.at(-1)!.navDate,
          addDays(all.at(-1)!.navDate, 5),
          ...all
            .filter((r) => !isUsable(r))
            .map((r) => r.navDate)
            .slice(0, 5),
        );
        for (const from of days) {
          const runs = (await store.read(spec.fundId, { runs: { from } })).runs;
          expect(runs, from).toEqual((await embedded.read(spec.fundId, { runs: { from } })).runs);
          const start = all.filter((r) => isUsable(r) && r.navDate < from).at(-1);
          expect(runs, from).toEqual(start ? all.filter((r) => r.navDate >= start.navDate) : all);
        }
      } finally {
        await db.release();
      }
    },
  );
});

describe('a fund the database does not hold', () => {
  it('reads as no fund (404 from the endpoint) in one round trip', async () => {
    const db = database.open();
    try {
      expect(await postgresStore(db).index('no-such-fund')).toBeNull();
      expect(db.roundTrips).toBe(1);
    } finally {
      await db.release();
    }
  });
});

describe('the app with DATABASE_URL', () => {
  it.each(FUND_TOOLS.map((def) => [def.path, def] as const))(
    'GET /api/v1/fund/%s reads Postgres for a real key, as the embedded store would',
    async (path, def) => {
      const query = def.tool === 'get_pnl_attribution' ? '?date=2026-10-20' : '';
      const app = createApp();
      const plain = fakeEnv();
      const { key } = await createKey(plain.API_KEYS, { fundId: SAMPLE_FUND.fundId });
      // INVESTOR_REF_KEY is required with DATABASE_URL; the embedded store is given the same key.
      const embedded = { ...plain.env, INVESTOR_REF_KEY: 'test-investor-ref-key-0123456789' };
      const withDb = { ...embedded, DATABASE_URL: database.url, DATABASE_WS_PROXY: database.proxy.wsProxy };
      const fromDb = await app.request(`/api/v1/fund/${path}${query}`, { headers: { authorization: `Bearer ${key}` } }, withDb);
      const fromEmbedded = await app.request(`/api/v1/fund/${path}${query}`, { headers: { authorization: `Bearer ${key}` } }, embedded);
      expect(fromDb.status).toBe(200);
      expect(await fromDb.text()).toBe(await fromEmbedded.text());
    },
  );
});
