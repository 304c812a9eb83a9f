/**
 * The exposure analysis's integer-cent path (lib/calculators/exposure-analysis.ts) against its decimal.js
 * reference, and the quote-free CSV fast path of lib/csv.ts against csv-parse: random inputs, exact
 * equality (every figure, its sign and order), and the cases each must hand back (ties, more decimals, a
 * gross past $100 billion, quoted or ragged CSV).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { analyseExposure, analyseExposureInDecimals, exposureAnalysisInput } from '../../lib/calculators/exposure-analysis.ts';
import { MAX_CSV_ROWS, parseAmountCell, simpleRecords } from '../../lib/csv.ts';
import { dec } from '../../lib/decimal.ts';

/** Both paths on one body; errors compared by name and detail. */
function both(body: Record<string, unknown>) {
  const input = exposureAnalysisInput().parse(body);
  const outcome = (f: () => unknown) => {
    try {
      return { ok: f() };
    } catch (err) {
      return { error: `${(err as Error).name}: ${JSON.stringify((err as { errors?: unknown }).errors ?? (err as Error).message)}` };
    }
  };
  return { fast: outcome(() => analyseExposure(input)), reference: outcome(() => analyseExposureInDecimals(input)) };
}

const ASSETS = ['BTC', 'btc', 'ETH', 'Eth', 'SOL', 'AAPL', 'X'];
const amount = fc.oneof(
  fc.integer({ min: -10_000_000_00, max: 10_000_000_00 }).map((c) => (c / 100).toFixed(2)),
  fc.integer({ min: -1000, max: 1000 }).map(String),
  fc.constantFrom('0', '-0.00', '.5', '-.05', '+7', '(1,234.50)', '$99.99', '1000000000000000', '0.125', '3.3333'),
  fc.integer({ min: 1, max: 9 }).map((d) => `${d}00000000000.00`), // near and past the $100 billion gross bound
);
const row = fc.record({
  asset: fc.constantFrom(...ASSETS),
  value: amount,
  venue: fc.constantFrom('Binance', 'binance', 'Kraken', ''),
  cls: fc.constantFrom('Crypto', 'crypto', 'Equity', ''),
});
const csvOf = (rows: { asset: string; value: string; venue: string; cls: string }[]) =>
  ['Asset,Value,Venue,Class', ...rows.map((r) => `${r.asset},"${r.value}",${r.venue},${r.cls}`)].join('\n');
const nav = fc.oneof(fc.constant(null), fc.constant(0), fc.double({ min: 1e-6, max: 1e15, noNaN: true }), fc.integer({ min: 1, max: 1e9 }));

describe('exposure analysis in integer cents', () => {
  it('equals the decimal.js computation on random positions (every figure, sign and order)', () => {
    fc.assert(
      fc.property(fc.array(row, { minLength: 0, maxLength: 30 }), nav, (rows, navUsd) => {
        const { fast, reference } = both({ positionsCsv: csvOf(rows), navUsd });
        expect(fast).toStrictEqual(reference);
      }),
      { numRuns: 400 },
    );
  });

  it('equals it where HHI, effective N or the top-5 sum is an exact rounding tie, or a weight is', () => {
    // Exposures 1, 1, 2 (cents): HHI = 6/16 = 0.375, effective N = 2.6666…; 1 and 7: weights 0.125 and 0.875.
    for (const values of [
      ['0.01', '0.01', '0.02'],
      ['0.01', '19.99'],
      ['1', '7'],
      ['1', '1', '1', '1', '1', '1', '1', '1'],
      ['3', '-1'],
      ['0.01', '-0.01'],
    ]) {
      const rows = values.map((value, i) => ({ asset: `A${i}`, value, venue: 'V', cls: 'C' }));
      const { fast, reference } = both({ positionsCsv: csvOf(rows), navUsd: 3 });
      expect(fast).toStrictEqual(reference);
    }
  });

  it('keeps the published example byte-identical', () => {
    const body = {
      positionsCsv: 'Asset,Value,Venue,Class\nBTC,4000000,Coinbase,Crypto\nETH,-1500000,Binance,Crypto\nAAPL,2500000,IBKR,Equity',
      navUsd: 10_000_000,
    };
    const { fast, reference } = both(body);
    expect(JSON.stringify(fast)).toBe(JSON.stringify(reference));
  });
});

describe('quote-free CSV fast path', () => {
  const options = { bom: true, trim: true, skip_empty_lines: true, relax_column_count: false, info: true, to: MAX_CSV_ROWS + 2 } as const;
  const reference = (text: string) => {
    try {
      return (parse(text, options) as unknown as { record: string[]; info: { lines: number } }[]).map(({ record, info }) => ({
        record,
        lines: info.lines,
      }));
    } catch {
      return 'error';
    }
  };

  it('gives csv-parse’s records and line numbers whenever it answers (random texts)', () => {
    const text = fc.string({
      unit: fc.constantFrom('a', 'B', '1', ',', ',', ' ', '\n', '\n', '\r', '"', '\t', '\uFEFF', '.', '\u00A0'),
      maxLength: 60,
    });
    let answered = 0;
    fc.assert(
      fc.property(text, (t) => {
        const fast = simpleRecords(t);
        if (fast === null) return;
        answered++;
        expect(fast.map(({ record, info }) => ({ record, lines: info.lines }))).toStrictEqual(reference(t));
      }),
      { numRuns: 3000 },
    );
    expect(answered).toBeGreaterThan(300);
  });

  it('answers the common shapes and hands back the rest', () => {
    expect(simpleRecords('\uFEFFa, b\n\n1,2\n')).toStrictEqual([
      { record: ['a', 'b'], info: { lines: 1 } },
      { record: ['1', '2'], info: { lines: 3 } },
    ]);
    for (const t of ['a,b\n"1",2', 'a,b\r\n1,2', 'a,b\n1', 'a,b\n  \n1,2', 'a\tb', 'a\n1\uFEFF']) expect(simpleRecords(t)).toBeNull();
    expect(simpleRecords(['a', ...Array.from({ length: MAX_CSV_ROWS + 1 }, () => '1')].join('\n'))).toBeNull();
    expect(simpleRecords(['a', ...Array.from({ length: MAX_CSV_ROWS }, () => '1')].join('\n'))).toHaveLength(MAX_CSV_ROWS + 1);
  });
});

describe('parseAmountCell bound without decimal.js', () => {
  it('refuses exactly the magnitudes above 1e15 (random decimal texts against decimal.js)', () => {
    const text = fc
      .tuple(
        fc.constantFrom('', '-', '+'),
        fc.constantFrom('', '0', '00'),
        fc.oneof(fc.bigInt({ min: 0n, max: 2n * 10n ** 15n }), fc.constantFrom(10n ** 15n, 10n ** 15n - 1n, 10n ** 15n + 1n)),
        fc.constantFrom('', '.0', '.00', '.01', '.5', '.000001'),
      )
      .map(([sign, zeros, whole, frac]) => `${sign}${zeros}${whole}${frac}`);
    fc.assert(
      fc.property(text, (t) => {
        const expected = dec(t).abs().gt(1e15) ? null : t;
        expect(parseAmountCell(t)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});
