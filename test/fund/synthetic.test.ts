/**
 * Invariants of the raw synthetic fund data (`lib/fund/synthetic.ts`), proven for both bundled specs,
 * DEMO_FUND and SAMPLE_FUND:
 * - determinism (same spec → byte-identical dataset) and that the two specs are different funds;
 * - the shape the product relies on: one run per calendar day, a few failed, partial and break runs, a
 *   break as the last run, a multi-venue live book with shorts and cash, a paper book kept apart from it,
 *   investors with identity data, an expense description quoting an e-mail address;
 * - the accounting identities, exactly (decimal.js, never floats): market value = quantity × price to cents;
 *   NAV = Σ live market values − payables = net assets per the ledger; every journal entry balances;
 *   investors' capital sums to NAV and each capital row rolls forward; reconciliation status follows the
 *   fund's tolerance; a run's net flows are the day's capital postings;
 * - the embedded store never serves paper-book rows or ledger memos.
 */
import { describe, expect, it } from 'vitest';
import { D, dec, sum as total, toMoney as money, type Dec } from '../../lib/decimal.ts';
import { embeddedStore } from '../../lib/fund/embedded-store.ts';
import { ROW_FIELDS, guardRows, type LedgerLineRow, type NavRunRow, type PositionRow } from '../../lib/fund/rows.ts';
import { INDEX_RUN_DAYS, addDays, isUsable } from '../../lib/fund/analytics/runs.ts';
import { ACCOUNTS, DEMO_FUND, SAMPLE_FUND, generateFund, type FundDataset, type SyntheticFundSpec } from '../../lib/fund/synthetic.ts';
import { isUsableRun } from '../support/contract.ts';

// ---------------------------------------------------------------------------------------------------------
// Helpers

/** Each spec generated once per file (~100 ms each) and shared by every test. */
const generated = new Map<string, FundDataset>();
function fundOf(spec: SyntheticFundSpec): FundDataset {
  let data = generated.get(spec.fundId);
  if (!data) {
    data = generateFund(spec);
    generated.set(spec.fundId, data);
  }
  return data;
}

/** `date` shifted by `days` calendar days (UTC); written here independently of the library's. */
function shiftDate(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

const isCompleteBreak = (r: NavRunRow) => r.status === 'complete' && r.reconStatus === 'break';
const livePositionsAt = (data: FundDataset, date: string) => data.positions.filter((p) => p.navDate === date && p.book === 'live');
const lastUsableRun = (data: FundDataset) => data.runs.filter(isUsableRun).at(-1)!;
const ACCOUNT_TYPE = new Map(ACCOUNTS.map((a) => [a.code, a.type]));
const PAYABLES = ['2100', '2110', '2200'] as const;

/** Loose e-mail shape (what redaction must catch in free text). */
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+/;

/**
 * Ledger balances (debit − credit, by account) as of each run date: walks the ledger once in date order.
 * @returns balances by run date (each map is a snapshot)
 */
function balancesByRunDate(data: FundDataset): Map<string, Map<string, Dec>> {
  const out = new Map<string, Map<string, Dec>>();
  const running = new Map<string, Dec>();
  let i = 0;
  for (const run of data.runs) {
    for (; i < data.ledger.length && data.ledger[i]!.entryDate <= run.navDate; i++) {
      const l = data.ledger[i]!;
      running.set(l.accountCode, (running.get(l.accountCode) ?? dec(0)).plus(l.debit).minus(l.credit));
    }
    out.set(run.navDate, new Map(running));
  }
  expect(i, 'every ledger line is dated within the run calendar').toBe(data.ledger.length);
  return out;
}

/** Payables (fees and expenses) per the ledger: the credit balances of 2100, 2110 and 2200. */
function payablesOf(balances: ReadonlyMap<string, Dec>): Dec {
  return total(PAYABLES.map((code) => (balances.get(code) ?? dec(0)).neg()));
}

/** Net assets per the ledger: Σ (debit − credit) over asset- and liability-type accounts. */
function ledgerNetAssets(balances: ReadonlyMap<string, Dec>): Dec {
  return total([...balances].filter(([code]) => ['asset', 'liability'].includes(ACCOUNT_TYPE.get(code) ?? '')).map(([, b]) => b));
}

// ---------------------------------------------------------------------------------------------------------

describe('the two bundled specs', () => {
  it('are different funds: other investors, other NAVs', () => {
    const demo = fundOf(DEMO_FUND);
    const sample = fundOf(SAMPLE_FUND);
    expect(demo.fund.fundId).toBe('demo-fund');
    expect(sample.fund.fundId).toBe('sample-fund');
    expect(demo.fund.name).not.toBe(sample.fund.name);

    const demoNames = demo.investors.map((i) => i.legalName);
    const sampleNames = new Set(sample.investors.map((i) => i.legalName));
    expect(demoNames).not.toEqual([...sampleNames]);
    expect(demoNames.filter((n) => sampleNames.has(n)).length).toBeLessThan(demoNames.length / 2);

    expect(demo.runs[0]!.shadowNav).not.toBe(sample.runs[0]!.shadowNav);
    const sampleNav = new Map(sample.runs.map((r) => [r.navDate, r.shadowNav]));
    const sameNavSameDay = demo.runs.filter((r) => r.shadowNav !== null && sampleNav.get(r.navDate) === r.shadowNav);
    expect(sameNavSameDay).toEqual([]);
  });
});

describe.each([DEMO_FUND, SAMPLE_FUND].map((spec) => [spec.fundId, spec] as const))('synthetic fund %s', (_id, spec) => {
  const data = () => fundOf(spec);

  it('is deterministic: the same spec generates the same dataset, byte for byte', () => {
    const again = generateFund(spec);
    expect(JSON.stringify(again)).toBe(JSON.stringify(data()));
  });

  describe('shape', () => {
    it('has one run per calendar day from inception to endDate, oldest first (≥ 400)', () => {
      const { runs, fund } = data();
      expect(runs.length).toBe(spec.runDays);
      expect(runs.length).toBeGreaterThanOrEqual(400);
      expect(runs[0]!.navDate).toBe(fund.inceptionDate);
      expect(runs.at(-1)!.navDate).toBe(spec.endDate);
      const offCalendar = runs.filter((r, i) => r.navDate !== shiftDate(fund.inceptionDate, i));
      expect(offCalendar).toEqual([]);
    });

    it('has a few failed, partial and complete-with-break runs, and ends on a break', () => {
      const { runs } = data();
      const failed = runs.filter((r) => r.status === 'failed');
      const partial = runs.filter((r) => r.status === 'partial');
      const breaks = runs.filter(isCompleteBreak);
      for (const list of [failed, partial, breaks]) {
        expect(list.length).toBeGreaterThanOrEqual(3);
        expect(list.length).toBeLessThanOrEqual(10);
      }
      // A failed run strikes no NAV and so has nothing to reconcile; the administrator's NAV still arrives.
      for (const r of failed) {
        expect(r.shadowNav).toBeNull();
        expect(r.reconStatus).toBeNull();
        expect(r.adminNav).not.toBeNull();
      }
      for (const r of [...partial, ...breaks]) {
        expect(r.shadowNav).not.toBeNull();
        expect(r.reconStatus).not.toBeNull();
      }
      // reconStatus is null exactly when no shadow NAV was struck.
      expect(runs.filter((r) => (r.shadowNav === null) !== (r.reconStatus === null))).toEqual([]);

      const last = runs.at(-1)!;
      expect(last.status).toBe('complete');
      expect(last.reconStatus).toBe('break');
      const latestUsable = lastUsableRun(data());
      expect(latestUsable.navDate < last.navDate).toBe(true);
      expect(runs.filter(isUsableRun).length).toBeGreaterThan(runs.length - 20);
    });

    it('holds ≥ 25 live positions over ≥ 5 venues and ≥ 4 source types at the latest usable run', () => {
      const live = livePositionsAt(data(), lastUsableRun(data()).navDate);
      expect(live.length).toBeGreaterThanOrEqual(25);
      expect(new Set(live.map((p) => p.venue)).size).toBeGreaterThanOrEqual(5);
      const sourceTypes = new Set(live.map((p) => p.sourceType));
      expect(sourceTypes.size).toBeGreaterThanOrEqual(4);
      for (const t of sourceTypes) expect(['exchange', 'custodian', 'onchain_wallet', 'defi', 'bank']).toContain(t);
      for (const c of new Set(live.map((p) => p.assetClass))) expect(['crypto', 'perpetual', 'stablecoin', 'fiat']).toContain(c);
      // One row per (asset, venue).
      expect(new Set(live.map((p) => `${p.asset}|${p.venue}`)).size).toBe(live.length);
    });

    it('has short perpetuals (negative quantity and market value) and stablecoin and fiat cash', () => {
      const live = livePositionsAt(data(), lastUsableRun(data()).navDate);
      const perps = live.filter((p) => p.assetClass === 'perpetual');
      expect(perps.length).toBeGreaterThanOrEqual(1);
      for (const p of perps) {
        expect(dec(p.quantity).isNegative(), `${p.asset} quantity`).toBe(true);
        expect(dec(p.marketValue).isNegative(), `${p.asset} market value`).toBe(true);
      }
      for (const cls of ['stablecoin', 'fiat']) {
        const cash = live.filter((p) => p.assetClass === cls);
        expect(cash.length, cls).toBeGreaterThanOrEqual(1);
        for (const p of cash) expect(p.price).toBe('1.00');
      }
      // Every perpetual row of every run is a short.
      const longPerps = data().positions.filter((p) => p.assetClass === 'perpetual' && !dec(p.marketValue).isNegative());
      expect(longPerps).toEqual([]);
    });

    it('keeps a paper book whose assets and venues never appear on the live book', () => {
      const { positions } = data();
      const paper = positions.filter((p) => p.book === 'paper');
      const live = positions.filter((p) => p.book === 'live');
      expect(paper.length).toBeGreaterThan(0);
      expect(paper.length + live.length).toBe(positions.length);
      const paperAssets = new Set(paper.map((p) => p.asset));
      const paperVenues = new Set(paper.map((p) => p.venue));
      expect(paperAssets.has('PEPE')).toBe(true);
      expect(paperVenues.has('Hyperliquid')).toBe(true);
      expect(live.filter((p) => paperAssets.has(p.asset) || paperVenues.has(p.venue))).toEqual([]);
    });

    it('has ≥ 30 investors in ≥ 2 share classes, each with legal name, e-mail, tax id and bank account', () => {
      const { investors, shareClasses } = data();
      expect(investors.length).toBeGreaterThanOrEqual(30);
      expect(new Set(investors.map((i) => i.investorId)).size).toBe(investors.length);
      const classes = new Set(shareClasses.map((c) => c.shareClassId));
      expect(new Set(investors.map((i) => i.shareClassId)).size).toBeGreaterThanOrEqual(2);
      for (const inv of investors) {
        expect(classes.has(inv.shareClassId)).toBe(true);
        expect(inv.legalName.trim().length).toBeGreaterThan(0);
        expect(inv.email).toContain('@');
        expect(inv.email).toMatch(EMAIL);
        expect(inv.taxId.length).toBeGreaterThan(0);
        expect(inv.bankAccount.length).toBeGreaterThan(0);
      }
    });

    it('has an expense description quoting an e-mail address (for redaction to catch)', () => {
      expect(data().expenses.some((e) => EMAIL.test(e.description))).toBe(true);
    });

    it('has position snapshots exactly for the runs that struck a NAV', () => {
      const { runs, positions } = data();
      const snapshotDates = new Set(positions.map((p) => p.navDate));
      const struck = new Set(runs.filter((r) => r.shadowNav !== null).map((r) => r.navDate));
      expect([...snapshotDates].sort()).toEqual([...struck].sort());
    });
  });

  describe('accounting identities', () => {
    it('every position: marketValue = quantity × price, rounded half-up to cents', () => {
      const wrong = data().positions.filter(
        (p) =>
          !dec(p.quantity).times(p.price).toDecimalPlaces(2, D.ROUND_HALF_UP).eq(p.marketValue) || !/^-?\d+\.\d\d$/.test(p.marketValue),
      );
      expect(wrong).toEqual([]);
    });

    it('every journal entry balances, and each line is on exactly one side', () => {
      const { ledger } = data();
      expect(ledger.length).toBeGreaterThan(0);
      const oneSided = ledger.filter(
        (l) => dec(l.debit).isZero() === dec(l.credit).isZero() || dec(l.debit).isNegative() || dec(l.credit).isNegative(),
      );
      expect(oneSided).toEqual([]);
      const unbalanced: string[] = [];
      for (const [entryId, lines] of Map.groupBy(ledger, (l) => l.entryId)) {
        if (!total(lines.map((l) => l.debit)).eq(total(lines.map((l) => l.credit)))) unbalanced.push(entryId);
        if (new Set(lines.map((l) => l.entryDate)).size !== 1) unbalanced.push(`${entryId} spans dates`);
      }
      expect(unbalanced).toEqual([]);
      // In date order (the store slices it by date), and on the chart of accounts.
      expect(ledger.filter((l, i) => i > 0 && l.entryDate < ledger[i - 1]!.entryDate)).toEqual([]);
      expect(ledger.filter((l) => !ACCOUNT_TYPE.has(l.accountCode))).toEqual([]);
    });

    it('NAV = Σ live market values − payables = ledger net assets, at every complete run', () => {
      const d = data();
      const balances = balancesByRunDate(d);
      const liveByDate = Map.groupBy(
        d.positions.filter((p) => p.book === 'live'),
        (p) => p.navDate,
      );
      const mismatches: string[] = [];
      let checked = 0;
      for (const run of d.runs) {
        if (run.shadowNav === null) continue;
        const b = balances.get(run.navDate)!;
        const payables = payablesOf(b);
        if (payables.isNegative()) mismatches.push(`${run.navDate}: payables ${money(payables)} < 0`);
        const fromPositions = total((liveByDate.get(run.navDate) ?? []).map((p) => p.marketValue)).minus(payables);
        const fromLedger = ledgerNetAssets(b);
        // A partial run's snapshot misses one venue: the identity holds over what it holds, and it falls short
        // of the full books the ledger keeps.
        if (money(fromPositions) !== run.shadowNav)
          mismatches.push(`${run.navDate} ${run.status}: positions ${money(fromPositions)} ≠ ${run.shadowNav}`);
        if (run.status === 'complete' && money(fromLedger) !== run.shadowNav)
          mismatches.push(`${run.navDate}: ledger ${money(fromLedger)} ≠ ${run.shadowNav}`);
        if (run.status === 'partial' && !fromLedger.gt(run.shadowNav)) mismatches.push(`${run.navDate}: partial NAV not below the books`);
        if (run.status === 'complete') checked++;
      }
      expect(mismatches).toEqual([]);
      expect(checked).toBe(d.runs.filter((r) => r.status === 'complete').length);
    });

    it('capital: Σ investors’ capital = NAV at every complete run, and every row rolls forward', () => {
      const d = data();
      const byDate = Map.groupBy(d.capital, (c) => c.navDate);
      const complete = d.runs.filter((r) => r.status === 'complete');
      expect([...byDate.keys()].sort()).toEqual(complete.map((r) => r.navDate));
      const mismatches: string[] = [];
      for (const run of complete) {
        const rows = byDate.get(run.navDate)!;
        if (new Set(rows.map((r) => r.investorId)).size !== rows.length) mismatches.push(`${run.navDate}: duplicate investor`);
        const sum = total(rows.map((r) => r.capital));
        if (money(sum) !== run.shadowNav) mismatches.push(`${run.navDate}: Σ capital ${money(sum)} ≠ ${run.shadowNav}`);
      }
      for (const r of d.capital) {
        const rolled = dec(r.contributions).minus(r.withdrawals).plus(r.pnlAllocation).minus(r.mgmtFee).minus(r.perfFee);
        if (!rolled.eq(r.capital)) mismatches.push(`${r.navDate} ${r.investorId}: ${money(rolled)} ≠ ${r.capital}`);
      }
      expect(mismatches).toEqual([]);
    });

    it("reconciliation: 'matched' iff |shadow − admin| / admin × 10,000 ≤ the fund's tolerance", () => {
      const d = data();
      const tolerance = dec(d.fund.reconToleranceBps);
      const both = d.runs.filter((r) => r.shadowNav !== null && r.adminNav !== null);
      expect(both.length).toBe(d.runs.filter((r) => r.shadowNav !== null).length);
      const wrong = both.filter((r) => {
        const admin = dec(r.adminNav!);
        const within = dec(r.shadowNav!).minus(admin).abs().div(admin).times(10_000).lte(tolerance);
        return within !== (r.reconStatus === 'matched');
      });
      expect(wrong).toEqual([]);
      // Both outcomes occur.
      expect(both.some((r) => r.reconStatus === 'matched')).toBe(true);
      expect(both.some((r) => r.reconStatus === 'break')).toBe(true);
    });

    it("a run's netFlows = the day's credits to 3000 − debits to 3100", () => {
      const d = data();
      const ledgerByDate = Map.groupBy(d.ledger, (l) => l.entryDate);
      const flowsOf = (lines: readonly LedgerLineRow[]) =>
        total(lines.map((l) => (l.accountCode === '3000' ? dec(l.credit) : l.accountCode === '3100' ? dec(l.debit).neg() : dec(0))));
      const wrong = d.runs.filter((r) => money(flowsOf(ledgerByDate.get(r.navDate) ?? [])) !== r.netFlows);
      expect(wrong).toEqual([]);
      // Inception: the whole first NAV was subscribed that day; later, money comes in and goes out.
      expect(d.runs[0]!.netFlows).toBe(d.runs[0]!.shadowNav);
      expect(d.runs.slice(1).some((r) => dec(r.netFlows).isPositive() && !dec(r.netFlows).isZero())).toBe(true);
      expect(d.ledger.some((l) => l.accountCode === '3100' && !dec(l.debit).isZero())).toBe(true);
    });
  });

  describe('embedded store', () => {
    it('serves live positions only and the ledger summed per account, asset and venue, without memos', async () => {
      const d = data();
      const store = embeddedStore([spec]);
      const index = await store.index(spec.fundId);
      expect(index).not.toBeNull();
      // The last year's runs, from the latest usable run before a year and a day before the latest usable
      // one; every run through a read from the first run's date.
      const latestUsable = d.runs.filter(isUsable).at(-1)!;
      expect(index!.runsFrom).toBe(addDays(latestUsable.navDate, -INDEX_RUN_DAYS));
      const start = d.runs.filter((r) => isUsable(r) && r.navDate < index!.runsFrom!).at(-1)!;
      expect(index!.runs).toEqual(d.runs.filter((r) => r.navDate >= start.navDate));
      expect(index!.runs.length).toBeLessThan(d.runs.length);
      expect(index!.firstRunDate).toBe(d.runs[0]!.navDate);
      expect((await store.read(spec.fundId, { runs: { from: d.runs[0]!.navDate } })).runs).toEqual(d.runs);
      expect(await store.index('no-such-fund')).toBeNull();

      const last = d.runs.at(-1)!.navDate;
      const result = await store.read(spec.fundId, {
        positions: { navDates: d.runs.map((r) => r.navDate) },
        ledger: { after: null, through: last },
      });
      expect(result.positions.length).toBe(d.positions.filter((p) => p.book === 'live').length);
      expect(result.positions.filter((p: PositionRow) => p.book !== 'live')).toEqual([]);
      const keys = new Set(d.ledger.map((l) => JSON.stringify([l.accountCode, l.asset, l.venue])));
      expect(result.ledger.length).toBe(keys.size);
      expect(result.ledger.length).toBeLessThan(d.ledger.length);
      expect(result.ledger.filter((l) => 'memo' in l)).toEqual([]);
      for (const l of result.ledger) expect(Object.keys(l).sort()).toEqual([...ROW_FIELDS.ledger].sort());
      // The trust-boundary guard accepts what the store returns.
      expect(() => guardRows('positions', result.positions)).not.toThrow();
      expect(() => guardRows('ledger', result.ledger)).not.toThrow();
    });
  });
});
