/**
 * Exposure analysis: row-level long/short/gross/net, per-asset concentration (HHI, effective N, top 5),
 * venue and class groups, and the CSV input rules.
 *
 * HHI = Σ wᵢ² (sum of squared shares), U.S. DOJ/FTC Horizontal Merger Guidelines (2023) §2.3;
 * effective N = 1 / HHI. For n assets with non-zero exposure 1/n ≤ HHI ≤ 1 (Cauchy–Schwarz).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  analyseExposure,
  concentration,
  exposureAnalysisInput,
  exposureAnalysisOutput,
  parsePositions,
} from '../../lib/calculators/exposure-analysis.ts';
import { PayloadTooLargeError, ValidationError } from '../../lib/errors.ts';
import { dec, sum } from '../../lib/decimal.ts';
import { thrown } from '../support/thrown.ts';

const run = (body: Record<string, unknown>) => analyseExposure(exposureAnalysisInput().parse(body));

/** Exact sum of JSON numbers that are whole cents (avoids float noise in the comparison). */
const dsum = (xs: number[]) => sum(xs.map((x) => dec(x)));

describe('exposure analysis: worked example', () => {
  // BTC is held on two venues (one asset, two rows); ETH is short on one venue and long on another, so its
  // asset exposure (−200k) is smaller than its row gross (400k).
  const csv = [
    'Asset,Value,Venue,Class',
    'BTC,500000,Binance,Crypto',
    'BTC,300000,Coinbase,Crypto',
    'ETH,-300000,Binance,Crypto',
    'ETH,100000,Kraken,Crypto',
    'AAPL,"1,000,000.00",IBKR,Equity',
    'TSLA,(400000),IBKR,Equity',
    'GLD,200000,IBKR,Commodity',
    'XRP,100000,Kraken,Crypto',
  ].join('\n');
  const r = run({ positionsCsv: csv, navUsd: 2_000_000 });

  it('sums rows into long, short, gross and net', () => {
    // long  = 500k + 300k + 100k + 1,000k + 200k + 100k = 2,200,000
    // short = |−300k| + |−400k|                          =   700,000
    // gross = 2,200,000 + 700,000 = 2,900,000; net = 2,200,000 − 700,000 = 1,500,000
    expect(r.longUsd).toBe(2_200_000);
    expect(r.shortUsd).toBe(700_000);
    expect(r.grossUsd).toBe(2_900_000);
    expect(r.netUsd).toBe(1_500_000);
    expect(r.positionCount).toBe(8);
    expect(r.assetCount).toBe(6);
  });

  it('expresses each leg in percent of NAV', () => {
    // NAV 2,000,000: 2.2M → 110 %, 0.7M → 35 %, 2.9M → 145 %, 1.5M → 75 %
    expect([r.longPctNav, r.shortPctNav, r.grossPctNav, r.netPctNav]).toEqual([110, 35, 145, 75]);
  });

  it('weights assets by |exposure summed across venues| over Σ|asset exposures|', () => {
    // Asset exposures: AAPL 1,000k, BTC 500k + 300k = 800k, TSLA −400k, ETH −300k + 100k = −200k, GLD 200k, XRP 100k.
    // Σ|e| = 1000 + 800 + 400 + 200 + 200 + 100 = 2,700k (not the row gross 2,900k: ETH's legs net).
    // Weights: 10/27, 8/27, 4/27, 2/27, 2/27, 1/27.
    const c = concentration(parsePositions(csv, 'positionsCsv'));
    expect(c.assets.map((a) => [a.asset, a.exposure.toNumber()])).toEqual([
      ['AAPL', 1_000_000],
      ['BTC', 800_000],
      ['TSLA', -400_000],
      ['ETH', -200_000], // ties on weight 2/27 break by name: ETH before GLD
      ['GLD', 200_000],
      ['XRP', 100_000],
    ]);
    const expected = [10, 8, 4, 2, 2, 1].map((k) => dec(k).div(27));
    for (const [i, a] of c.assets.entries()) expect(a.weight.minus(expected[i]!).abs().lt('1e-35')).toBe(true);
  });

  it('reports the largest position with its weight and percent of NAV', () => {
    // AAPL: 1,000,000 / 2,700,000 = 0.370370… → 0.370370; 1,000,000 / 2,000,000 = 50 % of NAV
    expect(r.largestPosition).toEqual({ asset: 'AAPL', valueUsd: 1_000_000, weightOfGross: 0.37037, pctNav: 50 });
  });

  it('computes top-5 share, HHI and effective N', () => {
    // top 5 = (10 + 8 + 4 + 2 + 2) / 27 = 26/27 = 0.9629629… → 0.962963
    expect(r.top5ShareOfGross).toBe(0.962963);
    // HHI = (10² + 8² + 4² + 2² + 2² + 1²) / 27² = 189 / 729 = 7/27 = 0.259259259… → 0.259259
    expect(r.hhi).toBe(0.259259);
    // effective N = 27/7 = 3.857142… → 3.8571
    expect(r.effectiveN).toBe(3.8571);
  });

  it('groups by venue, largest gross first, with exact legs and shares of row gross', () => {
    // IBKR:     AAPL +1,000k, TSLA −400k, GLD +200k → long 1,200k short 400k gross 1,600k net 800k; 16/29 = 0.551724…
    // Binance:  BTC +500k, ETH −300k                → long 500k short 300k gross 800k net 200k;     8/29 = 0.275862…
    // Coinbase: BTC +300k                           → gross 300k;                                   3/29 = 0.103448…
    // Kraken:   ETH +100k, XRP +100k                → gross 200k;                                   2/29 = 0.068965517… → 0.068966
    expect(r.byVenue).toEqual([
      { key: 'IBKR', longUsd: 1_200_000, shortUsd: 400_000, grossUsd: 1_600_000, netUsd: 800_000, shareOfGross: 0.551724 },
      { key: 'Binance', longUsd: 500_000, shortUsd: 300_000, grossUsd: 800_000, netUsd: 200_000, shareOfGross: 0.275862 },
      { key: 'Coinbase', longUsd: 300_000, shortUsd: 0, grossUsd: 300_000, netUsd: 300_000, shareOfGross: 0.103448 },
      { key: 'Kraken', longUsd: 200_000, shortUsd: 0, grossUsd: 200_000, netUsd: 200_000, shareOfGross: 0.068966 },
    ]);
  });

  it('groups by class', () => {
    // Equity:    +1,000k, −400k                   → long 1,000k short 400k gross 1,400k net 600k; 14/29 = 0.4827586… → 0.482759
    // Crypto:    +500k, +300k, −300k, +100k, +100k → long 1,000k short 300k gross 1,300k net 700k; 13/29 = 0.4482758… → 0.448276
    // Commodity: +200k                            → gross 200k;                                  2/29 → 0.068966
    expect(r.byClass).toEqual([
      { key: 'Equity', longUsd: 1_000_000, shortUsd: 400_000, grossUsd: 1_400_000, netUsd: 600_000, shareOfGross: 0.482759 },
      { key: 'Crypto', longUsd: 1_000_000, shortUsd: 300_000, grossUsd: 1_300_000, netUsd: 700_000, shareOfGross: 0.448276 },
      { key: 'Commodity', longUsd: 200_000, shortUsd: 0, grossUsd: 200_000, netUsd: 200_000, shareOfGross: 0.068966 },
    ]);
  });

  it('matches the output schema', () => {
    expect(() => exposureAnalysisOutput().parse(r)).not.toThrow();
  });

  it('leaves every *PctNav null without a NAV, and changes nothing else', () => {
    const noNav = run({ positionsCsv: csv });
    expect(noNav.longPctNav).toBeNull();
    expect(noNav.shortPctNav).toBeNull();
    expect(noNav.grossPctNav).toBeNull();
    expect(noNav.netPctNav).toBeNull();
    expect(noNav.largestPosition?.pctNav).toBeNull();
    expect({
      ...noNav,
      longPctNav: 110,
      shortPctNav: 35,
      grossPctNav: 145,
      netPctNav: 75,
      largestPosition: { ...noNav.largestPosition!, pctNav: 50 },
    }).toEqual(r);
  });
});

describe('exposure analysis: small cases', () => {
  it('a net-short largest position keeps its sign in valueUsd and pctNav', () => {
    // A −300, B 100: Σ|e| = 400; A weight 0.75; pctNav = −300 / 1,000 = −30 %
    const r = run({ positionsCsv: 'Asset,Value\nA,-300\nB,100', navUsd: 1000 });
    expect(r.largestPosition).toEqual({ asset: 'A', valueUsd: -300, weightOfGross: 0.75, pctNav: -30 });
    // HHI = 0.75² + 0.25² = 0.625, effective N = 1.6
    expect(r.hhi).toBe(0.625);
    expect(r.effectiveN).toBe(1.6);
    expect(r.byVenue).toEqual([{ key: 'unspecified', longUsd: 100, shortUsd: 300, grossUsd: 400, netUsd: -200, shareOfGross: 1 }]);
  });

  it('merges asset names case-insensitively under the first spelling seen', () => {
    const c = concentration(parsePositions('Asset,Value\nbtc,100\nBTC,50\nEth,50', 'f'));
    expect(c.assets.map((a) => [a.asset, a.exposure.toNumber()])).toEqual([
      ['btc', 150],
      ['Eth', 50],
    ]);
    // 0.75² + 0.25² = 0.625
    expect(c.hhi!.toNumber()).toBe(0.625);
  });

  it('a single asset has HHI 1 and effective N 1', () => {
    const r = run({ positionsCsv: 'Asset,Value\nA,-42.10' });
    expect([r.hhi, r.effectiveN, r.top5ShareOfGross, r.largestPosition?.weightOfGross]).toEqual([1, 1, 1, 1]);
  });

  it('n equal positions have HHI 1/n and effective N n', () => {
    // 8 assets of 125 each: HHI = 8 × (1/8)² = 0.125; top 5 = 5/8 = 0.625
    const rows = Array.from({ length: 8 }, (_, i) => `A${i},125`).join('\n');
    const r = run({ positionsCsv: `Asset,Value\n${rows}` });
    expect(r.hhi).toBe(0.125);
    expect(r.effectiveN).toBe(8);
    expect(r.top5ShareOfGross).toBe(0.625);
  });

  it('positions that net to zero per asset have exposure but no concentration', () => {
    // Row gross 200, but every asset's net exposure is 0: weights undefined → null measures, no largest.
    const r = run({ positionsCsv: 'Asset,Value,Venue\nA,100,X\nA,-100,Y', navUsd: 1000 });
    expect([r.longUsd, r.shortUsd, r.grossUsd, r.netUsd]).toEqual([100, 100, 200, 0]);
    expect(r.hhi).toBeNull();
    expect(r.effectiveN).toBeNull();
    expect(r.largestPosition).toBeNull();
    expect(r.top5ShareOfGross).toBe(0);
  });

  it('rounds money to cents half-up', () => {
    // 0.005 + 0.005 = 0.01 long; 0.125 → 0.13 per group
    const r = run({ positionsCsv: 'Asset,Value,Venue\nA,0.005,X\nB,0.005,Y\nC,-0.125,Z' });
    expect(r.longUsd).toBe(0.01);
    expect(r.shortUsd).toBe(0.13);
    expect(r.byVenue.find((g) => g.key === 'Z')!.shortUsd).toBe(0.13);
    expect(r.byVenue.find((g) => g.key === 'X')!.longUsd).toBe(0.01);
  });
});

describe('exposure analysis: empty input', () => {
  const zero = {
    longUsd: 0,
    shortUsd: 0,
    grossUsd: 0,
    netUsd: 0,
    positionCount: 0,
    assetCount: 0,
    largestPosition: null,
    top5ShareOfGross: 0,
    hhi: null,
    effectiveN: null,
    byVenue: [],
    byClass: [],
  };

  it.each([
    ['no body', {}],
    ['empty CSV', { positionsCsv: '' }],
    ['header only', { positionsCsv: 'Asset,Value,Venue,Class\n' }],
    ['header only, no newline', { positionsCsv: 'Asset,Value' }],
  ])('%s gives a zero result', (_, body) => {
    expect(run(body)).toEqual({ ...zero, longPctNav: null, shortPctNav: null, grossPctNav: null, netPctNav: null });
    expect(run({ ...body, navUsd: 1_000 })).toEqual({ ...zero, longPctNav: 0, shortPctNav: 0, grossPctNav: 0, netPctNav: 0 });
  });
});

describe('exposure analysis: CSV quirks', () => {
  it('accepts a BOM, CRLF, quoted thousands, odd header case and spacing, $ and accounting negatives', () => {
    const csv = '\uFEFFasset, VALUE ,venue,CLASS\r\nAAA,"1,234.50",X,Eq\r\nBBB,(500),X,Eq\r\nCCC,$100,,\r\n';
    const r = run({ positionsCsv: csv });
    // long = 1,234.50 + 100 = 1,334.50; short = 500; gross = 1,834.50; net = 834.50
    expect([r.longUsd, r.shortUsd, r.grossUsd, r.netUsd]).toEqual([1334.5, 500, 1834.5, 834.5]);
    expect(r.positionCount).toBe(3);
    // Blank Venue and Class fall into "unspecified".
    expect(r.byVenue.map((g) => [g.key, g.grossUsd])).toEqual([
      ['X', 1734.5],
      ['unspecified', 100],
    ]);
    expect(r.byClass.map((g) => g.key)).toEqual(['Eq', 'unspecified']);
  });

  it('Venue and Class columns are optional', () => {
    const r = run({ positionsCsv: 'Value,Asset\n10,A\n' });
    expect(r.byVenue).toEqual([{ key: 'unspecified', longUsd: 10, shortUsd: 0, grossUsd: 10, netUsd: 10, shareOfGross: 1 }]);
    expect(r.byClass[0]!.key).toBe('unspecified');
  });

  it('a missing Value column is a ValidationError at /positionsCsv (the edge adds /body or /arguments)', () => {
    const err = thrown(() => run({ positionsCsv: 'Asset,Venue\nBTC,Binance\n' })) as ValidationError;
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.status).toBe(400);
    expect(err.errors).toEqual([{ pointer: '/positionsCsv', detail: 'header lacks the column Value' }]);
  });

  it('a Value that is not a number is a ValidationError naming the line but not the cell', () => {
    const err = thrown(() => run({ positionsCsv: 'Asset,Value\nBTC,100\nETH,12abc34secret\n' })) as ValidationError;
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.errors).toEqual([{ pointer: '/positionsCsv', detail: 'line 3: Value is not a number within ±1e15' }]);
    expect(JSON.stringify(err.errors)).not.toContain('12abc34secret');
    expect(err.detail).not.toContain('12abc34secret');
    expect(err.message).not.toContain('12abc34secret');
  });

  it('a blank Asset is a ValidationError', () => {
    const err = thrown(() => run({ positionsCsv: 'Asset,Value\n,100\n' })) as ValidationError;
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.errors).toEqual([{ pointer: '/positionsCsv', detail: 'line 2: Asset is blank' }]);
  });

  it('accepts exactly 10,000 rows and rejects 10,001 with 413', () => {
    const ok = run({ positionsCsv: `Asset,Value\n${'A,1\n'.repeat(10_000)}` });
    expect(ok.positionCount).toBe(10_000);
    expect(ok.longUsd).toBe(10_000);
    const err = thrown(() => run({ positionsCsv: `Asset,Value\n${'A,1\n'.repeat(10_001)}` })) as PayloadTooLargeError;
    expect(err).toBeInstanceOf(PayloadTooLargeError);
    expect(err.status).toBe(413);
    expect(err.errors?.[0]?.pointer).toBe('/positionsCsv');
  });

  it('a NAV of zero or below leaves every *PctNav null (docs/calculators.md), like a null NAV', () => {
    const csv = 'Asset,Value\nA,300\nB,-100';
    for (const navUsd of [0, -1]) {
      const r = run({ positionsCsv: csv, navUsd });
      expect([r.longPctNav, r.shortPctNav, r.grossPctNav, r.netPctNav, r.largestPosition!.pctNav]).toEqual([null, null, null, null, null]);
      expect(r.grossUsd).toBe(400);
    }
    expect(exposureAnalysisInput().safeParse({ extra: 1 }).success).toBe(false);
  });

  it('groups venues and classes case-insensitively, keeping the first spelling', () => {
    const r = run({ positionsCsv: 'Asset,Value,Venue,Class\nA,100,Coinbase,Crypto\nB,50,coinbase,CRYPTO' });
    expect(r.byVenue).toEqual([{ key: 'Coinbase', longUsd: 150, shortUsd: 0, grossUsd: 150, netUsd: 150, shareOfGross: 1 }]);
    expect(r.byClass.map((g) => g.key)).toEqual(['Crypto']);
  });
});

describe('exposure analysis: properties', () => {
  const ASSETS = ['AAA', 'aaa', 'BBB', 'CCC', 'DDD', 'EEE', 'FFF', 'GGG'];
  const position = fc.record({
    asset: fc.constantFrom(...ASSETS),
    cents: fc.integer({ min: -100_000_000, max: 100_000_000 }),
    venue: fc.constantFrom('V1', 'V2', 'V3', ''),
    cls: fc.constantFrom('Equity', 'Crypto', ''),
  });
  const toCsv = (ps: { asset: string; cents: number; venue: string; cls: string }[]) =>
    ['Asset,Value,Venue,Class', ...ps.map((p) => `${p.asset},${(p.cents / 100).toFixed(2)},${p.venue},${p.cls}`)].join('\n');
  const positions = fc.array(position, { minLength: 1, maxLength: 40 });

  it('gross = long + short and net = long − short, exactly; groups add up to the totals', () => {
    fc.assert(
      fc.property(positions, (ps) => {
        const r = run({ positionsCsv: toCsv(ps) });
        // Independent oracle in integer cents.
        const long = ps.filter((p) => p.cents > 0).reduce((a, p) => a + p.cents, 0);
        const short = ps.filter((p) => p.cents < 0).reduce((a, p) => a - p.cents, 0);
        expect(dec(r.longUsd).times(100).toNumber()).toBe(long);
        expect(dec(r.shortUsd).times(100).toNumber()).toBe(short);
        expect(dec(r.grossUsd).eq(dec(r.longUsd).plus(r.shortUsd))).toBe(true);
        expect(dec(r.netUsd).eq(dec(r.longUsd).minus(r.shortUsd))).toBe(true);
        for (const groups of [r.byVenue, r.byClass]) {
          expect(dsum(groups.map((g) => g.longUsd)).eq(dec(r.longUsd))).toBe(true);
          expect(dsum(groups.map((g) => g.shortUsd)).eq(dec(r.shortUsd))).toBe(true);
          expect(dsum(groups.map((g) => g.grossUsd)).eq(dec(r.grossUsd))).toBe(true);
          for (const g of groups) expect(dec(g.grossUsd).eq(dec(g.longUsd).plus(g.shortUsd))).toBe(true);
          // Shares of gross: each rounded to 6 dp, so the sum is 1 within half a unit per group.
          if (r.grossUsd > 0)
            expect(Math.abs(groups.reduce((a, g) => a + g.shareOfGross, 0) - 1)).toBeLessThanOrEqual(groups.length * 5e-7 + 1e-12);
          // Sorted by gross, largest first.
          for (let i = 1; i < groups.length; i++) expect(groups[i - 1]!.grossUsd).toBeGreaterThanOrEqual(groups[i]!.grossUsd);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('asset weights sum to 1 and 1/n ≤ HHI ≤ 1; effective N = 1/HHI', () => {
    fc.assert(
      fc.property(positions, (ps) => {
        const c = concentration(parsePositions(toCsv(ps), 'positionsCsv'));
        // Independent oracle: per-asset exposure in integer cents, asset names case-insensitive.
        const byAsset = new Map<string, number>();
        for (const p of ps) byAsset.set(p.asset.toUpperCase(), (byAsset.get(p.asset.toUpperCase()) ?? 0) + p.cents);
        const nonZero = [...byAsset.values()].filter((e) => e !== 0);
        expect(c.assets).toHaveLength(byAsset.size);
        if (nonZero.length === 0) {
          expect(c.hhi).toBeNull();
          expect(c.effectiveN).toBeNull();
          return;
        }
        // Weights are 40-significant-digit quotients: their sum is 1 to within rounding of the last digit.
        expect(
          sum(c.assets.map((a) => a.weight))
            .minus(1)
            .abs()
            .lte('1e-35'),
        ).toBe(true);
        const n = nonZero.length;
        const hhi = c.hhi!;
        expect(hhi.gte(dec(1).div(n).minus('1e-35'))).toBe(true);
        expect(hhi.lte(dec(1).plus('1e-35'))).toBe(true);
        // HHI = Σ e² / (Σ|e|)², computed independently in exact integers.
        const s = nonZero.reduce((a, e) => a + BigInt(Math.abs(e)), 0n);
        const sq = nonZero.reduce((a, e) => a + BigInt(e) * BigInt(e), 0n);
        expect(
          hhi
            .minus(dec(sq.toString()).div(dec((s * s).toString())))
            .abs()
            .lte('1e-30'),
        ).toBe(true);
        expect(c.effectiveN!.times(hhi).minus(1).abs().lte('1e-30')).toBe(true);
        // Sorted by weight, largest first.
        for (let i = 1; i < c.assets.length; i++) expect(c.assets[i - 1]!.weight.gte(c.assets[i]!.weight)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('rounded outputs respect the same bounds', () => {
    fc.assert(
      fc.property(positions, fc.integer({ min: 1, max: 1e9 }), (ps, nav) => {
        const r = run({ positionsCsv: toCsv(ps), navUsd: nav });
        if (r.hhi === null) return;
        const n = new Set(ps.map((p) => p.asset.toUpperCase())).size;
        expect(r.hhi).toBeGreaterThanOrEqual(1 / n - 5e-7);
        expect(r.hhi).toBeLessThanOrEqual(1);
        expect(r.effectiveN!).toBeGreaterThanOrEqual(1);
        expect(r.effectiveN!).toBeLessThanOrEqual(n + 5e-5);
        expect(r.top5ShareOfGross).toBeLessThanOrEqual(1);
        expect(r.top5ShareOfGross).toBeGreaterThanOrEqual(r.largestPosition!.weightOfGross);
        expect(r.largestPosition!.weightOfGross).toBeGreaterThanOrEqual(1 / n - 5e-7);
        expect(r.grossPctNav!).toBeCloseTo((r.grossUsd / nav) * 100, 3);
      }),
      { numRuns: 100 },
    );
  });
});
