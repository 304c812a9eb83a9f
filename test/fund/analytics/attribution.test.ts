/**
 * The pure fund analytics (`lib/fund/analytics/*.ts`), on the demo fund's rows as the embedded store serves
 * them and on small hand-made inputs whose figures are worked out in the comments:
 * - P&L attribution: for every usable run of the demo fund, components sum exactly to totalPnl with a nil
 *   residual, including spans over failed, partial and break runs; a hand example to the cent.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { dec, sum as total, toMoney as money } from '../../../lib/decimal.ts';
import { pnlAttribution, pnlAttributionInCents, pnlAttributionInDecimals } from '../../../lib/fund/analytics/attribution.ts';
import { addDays, isUsable, previousUsableRun } from '../../../lib/fund/analytics/runs.ts';
import { callFundTool } from '../../../lib/fund/definition.ts';
import { pnlAttributionTool } from '../../../lib/fund/tools/pnl-attribution.ts';
import type { AccountRow } from '../../../lib/fund/rows.ts';
import { FUND, USD, line, loadDemoFund, position, runRow, runs, store } from './support.ts';

beforeAll(loadDemoFund);

// ---------------------------------------------------------------------------------------------------------

describe('P&L attribution', () => {
  it('ties for every usable run of the demo fund, against the usable run before it (through the endpoint)', async () => {
    const failures: string[] = [];
    let covered = 0;
    let overGaps = 0;
    for (const run of runs.filter(isUsable)) {
      const previous = previousUsableRun(runs, run.navDate);
      if (!previous) continue;
      covered++;
      if (addDays(previous.navDate, 1) !== run.navDate) overGaps++;
      // Through the endpoint's own path (store read, analytics, redaction), as a client receives it.
      const a = JSON.parse(await callFundTool(pnlAttributionTool, { store, fundId: FUND }, {}, { date: run.navDate })) as ReturnType<
        typeof pnlAttribution
      >;
      const fail = (what: string) => failures.push(`${run.navDate} (from ${previous.navDate}): ${what}`);
      const assetTotal = total(a.byAsset.map((r) => r.total));
      if (a.openingNav !== previous.shadowNav || a.closingNav !== run.shadowNav) fail('opening/closing NAV');
      if (a.date !== run.navDate || a.previousDate !== previous.navDate) fail('dates');
      if (a.residual !== '0.00') fail(`residual ${a.residual}`);
      if (money(assetTotal.plus(a.fees).plus(a.expenses).plus(a.residual)) !== a.totalPnl) fail('components ≠ totalPnl');
      if (money(dec(a.closingNav).minus(a.openingNav).minus(a.flows)) !== a.totalPnl) fail('totalPnl ≠ ΔNAV − flows');
      if (!total(a.bySourceType.map((r) => r.total)).eq(assetTotal) || !total(a.byVenue.map((r) => r.total)).eq(assetTotal))
        fail('lists differ');
      for (const r of [...a.byAsset, ...a.bySourceType, ...a.byVenue]) {
        if (!dec(r.priceEffect).plus(r.quantityEffect).eq(r.total)) fail(`price + quantity ≠ total in ${JSON.stringify(r)}`);
      }
      const flows = total(runs.filter((r) => r.navDate > previous.navDate && r.navDate <= run.navDate).map((r) => r.netFlows));
      if (a.flows !== money(flows)) fail(`flows ${a.flows} ≠ ${money(flows)}`);
      if (a.byAsset.some((r) => ['USD', 'USDC', 'USDT'].includes(r.asset))) fail('cash attributed');
      if (dec(a.expenses).gt(0)) fail(`expenses ${a.expenses} > 0`); // operating expenses only accrue
    }
    expect(failures).toEqual([]);
    expect(covered).toBe(runs.filter(isUsable).length - 1);
    // Spans over failed, partial and break runs were covered.
    expect(overGaps).toBeGreaterThanOrEqual(3);
  });

  /**
   * Hand example (accounts by role, with codes of its own so that only the roles can be read):
   *   BTC at Coinbase (exchange):  q0 = 2, p0 = 100 → q1 = 3, p1 = 110; bought 1 at 105 (debit 105.00 to an
   *     asset account carrying BTC / Coinbase; the cash leg carries USD / Coinbase, which is cash, not P&L)
   *     MV0 = 200.00, MV1 = 330.00, total = 330 − 200 − 105 = 25.00,
   *     priceEffect = 2 × (110 − 100) = 20.00, quantityEffect = 25 − 20 = 5.00
   *   ETH at Anchorage (custodian): q = 10, p 10 → 9.50: MV 100.00 → 95.00, total = −5.00 = priceEffect, qty 0.00
   *   management fee 3.00 (fee_expense), administration 2.00 (operating_expense),
   *   subscription 50.00 (capital_contributions), redemption 20.00 (capital_withdrawals) → flows 30.00
   *   opening NAV = 200 + 100 + 700 cash = 1,000.00; closing = 330 + 95 + 595 + 30 bank − 5 payables = 1,045.00
   *   totalPnl = 1,045 − 1,000 − 30 = 15.00 = 25 − 5 − 3 − 2, residual 0.00
   */
  const HAND_ACCOUNTS: AccountRow[] = [
    { code: 'INV', name: 'Investments', type: 'asset', role: 'other' },
    { code: 'CASH', name: 'Cash', type: 'asset', role: 'other' },
    { code: 'PAY', name: 'Payables', type: 'liability', role: 'other' },
    { code: 'MGMT', name: 'Management fee', type: 'expense', role: 'fee_expense' },
    { code: 'ADMIN', name: 'Administration', type: 'expense', role: 'operating_expense' },
    { code: 'SUBS', name: 'Subscriptions', type: 'equity', role: 'capital_contributions' },
    { code: 'REDS', name: 'Redemptions', type: 'equity', role: 'capital_withdrawals' },
  ];
  const previous = runRow('2026-01-01', '1000.00');
  const opening = [
    position({ navDate: '2026-01-01', asset: 'BTC', venue: 'Coinbase', quantity: '2', price: '100', marketValue: '200.00' }),
    position({
      navDate: '2026-01-01',
      asset: 'ETH',
      venue: 'Anchorage',
      sourceType: 'custodian',
      quantity: '10',
      price: '10',
      marketValue: '100.00',
    }),
    position({ navDate: '2026-01-01', asset: 'USD', assetClass: 'fiat', venue: 'Coinbase', marketValue: '700.00' }),
  ];
  const closing = [
    position({ asset: 'BTC', venue: 'Coinbase', quantity: '3', price: '110', marketValue: '330.00' }),
    position({ asset: 'ETH', venue: 'Anchorage', sourceType: 'custodian', quantity: '10', price: '9.50', marketValue: '95.00' }),
    position({ asset: 'USD', assetClass: 'fiat', venue: 'Coinbase', marketValue: '595.00' }),
    position({ asset: 'USD', assetClass: 'fiat', venue: 'Bank', sourceType: 'bank', marketValue: '30.00' }),
  ];
  const handLedger = [
    line('JE1', 'INV', '105.00', 'BTC', 'Coinbase'),
    line('JE1', 'CASH', '-105.00', 'USD', 'Coinbase'),
    line('JE2', 'MGMT', '3.00'),
    line('JE2', 'PAY', '-3.00'),
    line('JE3', 'ADMIN', '2.00'),
    line('JE3', 'PAY', '-2.00'),
    line('JE4', 'CASH', '50.00', 'USD', 'Bank'),
    line('JE4', 'SUBS', '-50.00'),
    line('JE5', 'REDS', '20.00'),
    line('JE5', 'CASH', '-20.00', 'USD', 'Bank'),
  ];

  it('a hand example, to the cent', () => {
    const a = pnlAttribution({
      run: runRow('2026-01-02', '1045.00'),
      previous,
      opening,
      closing,
      accounts: HAND_ACCOUNTS,
      ledger: handLedger,
      currency: USD,
    });
    expect(a).toEqual({
      date: '2026-01-02',
      previousDate: '2026-01-01',
      currency: USD,
      openingNav: '1000.00',
      closingNav: '1045.00',
      totalPnl: '15.00',
      byAsset: [
        { asset: 'BTC', priceEffect: '20.00', quantityEffect: '5.00', total: '25.00' },
        { asset: 'ETH', priceEffect: '-5.00', quantityEffect: '0.00', total: '-5.00' },
      ],
      bySourceType: [
        { key: 'exchange', priceEffect: '20.00', quantityEffect: '5.00', total: '25.00' },
        { key: 'custodian', priceEffect: '-5.00', quantityEffect: '0.00', total: '-5.00' },
      ],
      byVenue: [
        { key: 'Coinbase', priceEffect: '20.00', quantityEffect: '5.00', total: '25.00' },
        { key: 'Anchorage', priceEffect: '-5.00', quantityEffect: '0.00', total: '-5.00' },
      ],
      fees: '-3.00',
      expenses: '-2.00',
      flows: '30.00',
      residual: '0.00',
    });
  });

  /**
   * The same span with a SOL position at Kraken closed between the runs (q0 = 5 at 20 = 100.00, sold for
   * 105.00: credit 105.00 to INV carrying SOL / Kraken) and a closing NAV 0.50 higher than the books explain:
   *   SOL total = 0 − 100 − (−105) = 5.00, all quantity effect (no closing price)
   *   closing NAV 1,045.50 + 105 Kraken cash proceeds = 1,150.50, opening 1,000 + 100 SOL = 1,100.00
   *   totalPnl = 1,150.50 − 1,100.00 − 30 = 20.50; explained 25 − 5 + 5 − 3 − 2 = 20.00; residual 0.50
   */
  it('a position closed between the runs is all quantity effect; what the books leave unexplained is the residual', () => {
    const a = pnlAttribution({
      run: runRow('2026-01-02', '1150.50'),
      previous: runRow('2026-01-01', '1100.00'),
      opening: [
        ...opening,
        position({ navDate: '2026-01-01', asset: 'SOL', venue: 'Kraken', quantity: '5', price: '20', marketValue: '100.00' }),
      ],
      closing: [...closing, position({ asset: 'USD', assetClass: 'fiat', venue: 'Kraken', marketValue: '105.00' })],
      accounts: HAND_ACCOUNTS,
      ledger: [...handLedger, line('JE6', 'INV', '-105.00', 'SOL', 'Kraken'), line('JE6', 'CASH', '105.00', 'USD', 'Kraken')],
      currency: USD,
    });
    expect(a.byAsset).toEqual([
      { asset: 'BTC', priceEffect: '20.00', quantityEffect: '5.00', total: '25.00' },
      { asset: 'SOL', priceEffect: '0.00', quantityEffect: '5.00', total: '5.00' },
      { asset: 'ETH', priceEffect: '-5.00', quantityEffect: '0.00', total: '-5.00' },
    ]);
    expect(a.byVenue.map((r) => [r.key, r.total])).toEqual([
      ['Coinbase', '25.00'],
      ['Kraken', '5.00'],
      ['Anchorage', '-5.00'],
    ]);
    expect([a.totalPnl, a.fees, a.expenses, a.flows, a.residual]).toEqual(['20.50', '-3.00', '-2.00', '30.00', '0.50']);
  });

  /**
   * The price effect is rounded half-up (away from zero) to cents, and the quantity effect takes the rest:
   *   long  q0 = 0.5,  p 100.01 → 100.02: MV 50.005 → 50.01 both days, total 0.00;
   *         priceEffect = 0.5 × 0.01 = 0.005 → 0.01, quantityEffect = −0.01
   *   short q0 = −0.5, same prices: MV −50.01 both days, total 0.00; priceEffect −0.005 → −0.01, quantity 0.01
   */
  it('rounds the price effect half-up to cents', () => {
    const at = (navDate: string, asset: string, assetClass: string, quantity: string, price: string, marketValue: string) =>
      position({ navDate, asset, assetClass, quantity, price, marketValue });
    const a = pnlAttribution({
      run: runRow('2026-01-02', '1000.00'),
      previous: runRow('2026-01-01', '1000.00'),
      opening: [
        at('2026-01-01', 'LINK', 'crypto', '0.5', '100.01', '50.01'),
        at('2026-01-01', 'LINK-PERP', 'perpetual', '-0.5', '100.01', '-50.01'),
      ],
      closing: [
        at('2026-01-02', 'LINK', 'crypto', '0.5', '100.02', '50.01'),
        at('2026-01-02', 'LINK-PERP', 'perpetual', '-0.5', '100.02', '-50.01'),
      ],
      accounts: HAND_ACCOUNTS,
      ledger: [],
      currency: USD,
    });
    expect(a.byAsset).toEqual([
      { asset: 'LINK', priceEffect: '0.01', quantityEffect: '-0.01', total: '0.00' },
      { asset: 'LINK-PERP', priceEffect: '-0.01', quantityEffect: '0.01', total: '0.00' },
    ]);
    expect(a.bySourceType).toEqual([{ key: 'exchange', priceEffect: '0.00', quantityEffect: '0.00', total: '0.00' }]);
    expect([a.totalPnl, a.residual]).toEqual(['0.00', '0.00']);
  });

  describe('in integer cents', () => {
    const moneyOf = (c: bigint) => {
      const abs = c < 0n ? -c : c;
      return `${c < 0n ? '-' : ''}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
    };
    /** Money texts: mostly cents a fund holds, some past 2^53 cents, and some that are not two-decimal texts. */
    const amount = fc.oneof(
      { weight: 100, arbitrary: fc.bigInt({ min: -5_000_000_000n, max: 5_000_000_000n }).map(moneyOf) },
      { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n }).map(moneyOf) },
      { weight: 1, arbitrary: fc.constantFrom('0.00', '-0.00', '12.5', '1000', moneyOf(2n ** 53n - 1n)) },
    );
    const decimalText = fc.oneof(
      fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }).map((n) => String(n / 1000)),
      fc.constantFrom('0', '0.5', '-0.5'),
    );
    const held = fc.record({
      asset: fc.constantFrom('BTC', 'ETH', 'SOL', 'USD'),
      assetClass: fc.constantFrom('crypto', 'perpetual', 'fiat'),
      sourceType: fc.constantFrom('exchange', 'custodian'),
      venue: fc.constantFrom('A', 'B'),
      quantity: decimalText,
      price: decimalText,
      marketValue: amount,
    });
    const entry = fc.record({
      account: fc.constantFrom('INV', 'MGMT', 'ADMIN', 'SUBS', 'REDS'),
      amount,
      asset: fc.option(fc.constantFrom('BTC', 'ETH', 'SOL'), { nil: null }),
      venue: fc.constantFrom('A', 'B'),
    });
    const span = fc.record({
      openingNav: fc.option(amount, { nil: null }),
      closingNav: fc.option(amount, { nil: null }),
      opening: fc.array(held, { maxLength: 8 }),
      closing: fc.array(held, { maxLength: 8 }),
      ledger: fc.array(entry, { maxLength: 12 }),
    });
    type Span = typeof span extends fc.Arbitrary<infer T> ? T : never;
    const inputOf = (s: Span) => ({
      run: runRow('2026-01-02', s.closingNav),
      previous: runRow('2026-01-01', s.openingNav),
      opening: s.opening.map((p) => position({ ...p, navDate: '2026-01-01' })),
      closing: s.closing.map((p) => position(p)),
      accounts: HAND_ACCOUNTS,
      ledger: s.ledger.map((l, i) => line(`JE${i}`, l.account, l.amount, l.asset, l.asset === null ? null : l.venue)),
      currency: USD,
    });

    it('gives the decimal.js answer, character for character, on random spans (or leaves them to it)', () => {
      let answered = 0;
      fc.assert(
        fc.property(span, (s) => {
          const input = inputOf(s);
          const reference = pnlAttributionInDecimals(input);
          const fast = pnlAttributionInCents(input);
          if (fast !== null) {
            answered++;
            expect(JSON.stringify(fast)).toBe(JSON.stringify(reference));
          }
          expect(JSON.stringify(pnlAttribution(input))).toBe(JSON.stringify(reference));
        }),
        { numRuns: 1000 },
      );
      // Most spans have only cents a fund holds: the cents path answers them.
      expect(answered).toBeGreaterThan(500);
    });

    it('leaves amounts past 2^53 cents and texts that are not cents to decimal.js', () => {
      const base = { openingNav: '100.00', closingNav: '110.00', opening: [], closing: [], ledger: [] };
      expect(pnlAttributionInCents(inputOf(base))).not.toBeNull();
      expect(pnlAttributionInCents(inputOf({ ...base, closingNav: moneyOf(2n ** 53n) }))).toBeNull();
      expect(pnlAttributionInCents(inputOf({ ...base, closingNav: '110.5' }))).toBeNull();
      expect(pnlAttribution(inputOf({ ...base, closingNav: '110.5' })).totalPnl).toBe('10.50');
    });
  });
});
