/**
 * The synthetic fund as the Worker holds it (`simulateFund`: compact results, rows made on demand) against
 * the whole dataset (`generateFund`), and the exact integer helpers of the generator against BigInt:
 * - the datasets of both bundled specs are pinned by SHA-256, so any change to a generated row fails here,
 *   and the fund decoded from its build-time asset (public/_fund/, scripts/build-fund.ts) makes the same dataset;
 * - every row the lazy accessors make equals the dataset's rows for that date, price window or investor, and
 *   the accounts' sums through a date equal the dataset's lines summed in BigInt;
 * - `scaledProduct` and `prorate` equal their BigInt definitions on random inputs (fast-check).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEMO_FUND, SAMPLE_FUND, SyntheticFund, generateFund, prorate, scaledProduct, simulateFund } from '../../lib/fund/synthetic.ts';
import { capitalAssetPath, decodeCapital, decodeFund, fundAssetPath } from '../../lib/fund/synthetic/codec.ts';
import { FUND_ASSET_FINGERPRINTS } from '../../lib/generated/fund-assets.ts';

/** SHA-256 of `JSON.stringify(generateFund(spec))`, as generated before the simulation kept its rows compact. */
const PINNED: Record<string, string> = {
  'demo-fund': '501f75a10d0547cd367abc5f232483a6ebb693c37b3fd3c3ca50d79336243dbe',
  'sample-fund': 'f42f8f73547fedcf8316ff6f509066738ed22493e1ccb2f2b1188bd32a08ce35',
};

describe.each([DEMO_FUND, SAMPLE_FUND].map((spec) => [spec.fundId, spec] as const))('synthetic fund %s, made lazily', (id, spec) => {
  const dataset = generateFund(spec);

  it('generates the pinned dataset, byte for byte', () => {
    expect(createHash('sha256').update(JSON.stringify(dataset)).digest('hex')).toBe(PINNED[id]);
  });

  it('decodes from its built assets to the pinned dataset, byte for byte', () => {
    const read = (path: string) => {
      const bytes = readFileSync(`public${path}`);
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    };
    const fingerprint = FUND_ASSET_FINGERPRINTS[id]!;
    const fund = new SyntheticFund(decodeFund(read(fundAssetPath(id)), spec, fingerprint));
    fund.addCapital(decodeCapital(read(capitalAssetPath(id)), spec, fingerprint, fund.calendar));
    expect(createHash('sha256').update(JSON.stringify(fund.dataset())).digest('hex')).toBe(PINNED[id]);
  });

  it('makes, per date, exactly the rows of the dataset', () => {
    const fund = simulateFund(spec);
    expect(fund.head.runs).toEqual(dataset.runs);
    expect(fund.head.investors).toEqual(dataset.investors);
    expect(fund.head.expenses).toEqual(dataset.expenses);
    const positions = Map.groupBy(dataset.positions, (p) => p.navDate);
    const capital = Map.groupBy(dataset.capital, (c) => c.navDate);
    for (const run of dataset.runs) {
      expect(fund.positionsOn(run.navDate)).toEqual(positions.get(run.navDate) ?? []);
      expect(fund.capitalOn(run.navDate)).toEqual(capital.get(run.navDate) ?? []);
    }
    expect(fund.ledger()).toEqual(dataset.ledger);
  });

  it("sums any span of the ledger (after, through] per account, asset and venue as the dataset's lines sum", () => {
    const fund = simulateFund(spec);
    const dates = [...new Set(dataset.ledger.map((l) => l.entryDate))];
    const text = (c: bigint) => `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;
    // Code-unit order, no asset or venue (null) last: PostgreSQL's ORDER BY of "C"-collated columns.
    const order = (x: string | null, y: string | null) => (x === y ? 0 : x === null ? 1 : y === null ? -1 : x < y ? -1 : 1);
    fc.assert(
      fc.property(fc.option(fc.nat(dates.length + 1)), fc.nat(dates.length + 1), (i, j) => {
        // Dates of the ledger, one before (an unposted day), and past the end.
        const at = (k: number) => (k === 0 ? '2000-01-01' : (dates[k - 1] ?? '9999-12-31'));
        const after = i === null ? null : at(i);
        const through = at(j);
        const sums = new Map<string, { accountCode: string; asset: string | null; venue: string | null; d: bigint; c: bigint }>();
        for (const l of dataset.ledger) {
          if ((after !== null && l.entryDate <= after) || l.entryDate > through) continue;
          const key = JSON.stringify([l.accountCode, l.asset, l.venue]);
          const s = sums.get(key) ?? { accountCode: l.accountCode, asset: l.asset, venue: l.venue, d: 0n, c: 0n };
          s.d += BigInt(l.debit.replace('.', ''));
          s.c += BigInt(l.credit.replace('.', ''));
          sums.set(key, s);
        }
        const want = [...sums.values()]
          .sort((x, y) => order(x.accountCode, y.accountCode) || order(x.asset, y.asset) || order(x.venue, y.venue))
          .map(({ accountCode, asset, venue, d, c }) => ({ accountCode, asset, venue, debit: text(d), credit: text(c) }));
        expect(fund.ledgerSumsBetween(after, through)).toEqual(want);
      }),
      { numRuns: 60 },
    );
    const day = fund.ledgerSumsBetween(dates[3]!, dates[4]!);
    expect(day.length).toBeGreaterThan(0);
    expect(day.some((s) => s.asset === null) && day.some((s) => s.asset !== null)).toBe(true);
  });

  it("sums each account's lines through any date as the dataset's lines sum (debits, credits), by code", () => {
    const fund = simulateFund(spec);
    const dates = [...new Set(dataset.ledger.map((l) => l.entryDate))];
    fc.assert(
      fc.property(fc.nat(dates.length + 1), (j) => {
        const through = j === 0 ? '2000-01-01' : (dates[j - 1] ?? '9999-12-31');
        const sums = new Map<string, [bigint, bigint]>();
        for (const l of dataset.ledger) {
          if (l.entryDate > through) continue;
          const s = sums.get(l.accountCode) ?? [0n, 0n];
          sums.set(l.accountCode, [s[0] + BigInt(l.debit.replace('.', '')), s[1] + BigInt(l.credit.replace('.', ''))]);
        }
        const text = (c: bigint) => `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;
        const want = [...sums]
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([accountCode, [d, c]]) => ({ accountCode, debit: text(d), credit: text(c) }));
        expect(fund.balancesThrough(through)).toEqual(want);
      }),
      { numRuns: 40 },
    );
    expect(fund.balancesThrough(spec.endDate).length).toBeGreaterThan(5);
  });

  it('makes any price window of any asset exactly as the dataset has it', () => {
    const fund = simulateFund(spec);
    const prices = Map.groupBy(dataset.prices, (p) => p.asset);
    const assets = [...prices.keys()];
    const dates = prices.get(assets[0]!)!.map((p) => p.priceDate);
    fc.assert(
      fc.property(fc.constantFrom(...assets), fc.nat(dates.length + 3), fc.nat(dates.length + 3), (asset, i, j) => {
        const [from, through] = [dates[Math.min(i, j)] ?? '9999-12-31', dates[Math.max(i, j)] ?? '9999-12-31'];
        const want = prices.get(asset)!.filter((p) => p.priceDate >= from && p.priceDate <= through);
        expect(fund.pricesOf(asset, from, through)).toEqual(want);
      }),
      { numRuns: 200 },
    );
    expect(fund.pricesOf('NOPE', dates[0]!, dates.at(-1)!)).toEqual([]);
  });
});

/** round(a × b / 10^e) half away from zero, in BigInt. */
function scaledProductBig(a: number, b: number, e: number): number {
  const n = BigInt(a) * BigInt(b);
  const d = 10n ** BigInt(e);
  const abs = n < 0n ? -n : n;
  const q = (abs + d / 2n) / d;
  return Number(n < 0n ? -q : q);
}

describe('exact integer helpers', () => {
  it('scaledProduct equals BigInt arithmetic, including products beyond 2^53 and exact halves', () => {
    const int = fc.oneof(
      fc.integer({ min: -1e6, max: 1e6 }),
      fc.maxSafeInteger().map((x) => Math.trunc(x / 2 ** 12)),
      fc.integer().map((x) => x * 10 ** 6),
    );
    fc.assert(
      fc.property(int, fc.integer({ min: 1, max: 1e14 }), fc.integer({ min: 0, max: 14 }), (a, b, e) => {
        const want = scaledProductBig(a, b, e);
        if (!Number.isSafeInteger(want)) return;
        expect(scaledProduct(a, b, e)).toBe(want);
      }),
      { numRuns: 3000 },
    );
    expect(scaledProduct(5, 1, 1)).toBe(1); // 0.5 → 1
    expect(scaledProduct(-5, 1, 1)).toBe(-1); // −0.5 → −1
    expect(scaledProduct(-4, 1, 1)).toBe(0); // −0.4 → 0, never −0
    expect(Object.is(scaledProduct(-4, 1, 1), -0)).toBe(false);
    expect(scaledProduct(49_999_999, 6_125_000_000_000, 10)).toBe(scaledProductBig(49_999_999, 6_125_000_000_000, 10));
  });

  it('prorate splits exactly, by the largest remainder, as its BigInt definition', () => {
    const reference = (total: number, weights: number[]): number[] => {
      const sum = BigInt(weights.reduce((s, w) => s + w, 0));
      if (total === 0 || sum === 0n) return weights.map(() => 0);
      const abs = BigInt(Math.abs(total));
      const parts = weights.map((w) => (abs * BigInt(w)) / sum);
      const rem = weights.map((w, i) => [(abs * BigInt(w)) % sum, i] as const);
      let left = Number(abs - parts.reduce((s, p) => s + p, 0n));
      rem.sort((p, q) => (q[0] > p[0] ? 1 : q[0] < p[0] ? -1 : p[1] - q[1]));
      for (let k = 0; left > 0; k++, left--) parts[rem[k]![1]]! += 1n;
      return parts.map((p) => (total < 0 ? -Number(p) : Number(p)));
    };
    fc.assert(
      fc.property(
        fc.integer({ min: -1e12, max: 1e12 }),
        fc.array(fc.integer({ min: 0, max: 1e12 }), { minLength: 1, maxLength: 40 }),
        (total, weights) => {
          const parts = prorate(total, weights);
          expect(parts).toEqual(reference(total, weights));
          if (weights.some((w) => w > 0)) expect(parts.reduce((s, p) => s + p, 0)).toBe(total);
        },
      ),
      { numRuns: 2000 },
    );
    // Near the bounds of the exact double path (2^50) and past them (BigInt).
    const big = fc.integer({ min: 0, max: Math.floor(2 ** 50 / 40) });
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: -(2 ** 50) + 1, max: 2 ** 50 - 1 }), fc.maxSafeInteger()),
        fc.array(fc.oneof(big, fc.integer({ min: 0, max: 2 ** 52 })), { minLength: 1, maxLength: 40 }),
        (total, weights) => {
          if (!Number.isSafeInteger(weights.reduce((s, w) => s + w, 0))) return;
          expect(prorate(total, weights)).toEqual(reference(total, weights));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
