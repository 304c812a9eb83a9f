/**
 * P&L attribution between a usable NAV run and the usable run before it (docs/fund-data.md#nav-runs-and-which-one-an-endpoint-reads).
 *
 * Per live non-cash position (asset at a venue), with q and p its quantity and price at the opening (0) and
 * closing (1) runs, MV its market value and C the net purchases between the runs at cost (the position's
 * trade lines in the ledger, see {@link LedgerLineRow}):
 *   total = MV1 − MV0 − C                      (P&L of the position; cash movements are not P&L)
 *   priceEffect = q0 × (p1 − p0), to cents     (the opening holding repriced)
 *   quantityEffect = total − priceEffect       (P&L of what was traded between the runs: execution vs close)
 * A position opened between the runs has no price effect; one closed is priced at p0 (all quantity effect).
 * Fees and expenses are the fee and operating expense accounts' postings in (previous, date], as negative
 * P&L; flows are net capital contributions less withdrawals in the same span (credit − debit).
 *   totalPnl = closingNav − openingNav − flows
 *   totalPnl = Σ byAsset.total + fees + expenses + residual
 * `residual` is what positions, ledger and NAV leave unexplained: 0.00 when the books tie (as they do for the
 * synthetic funds); a non-zero residual flags a data problem rather than hiding it. Every list sums exactly:
 * Σ byAsset.total = Σ bySourceType.total = Σ byVenue.total. Source: CFA Program Level III, performance
 * attribution (holdings-based decomposition into price and quantity effects).
 *
 * Computed in integer cents when every amount is a two-decimal money text and every sum stays a safe
 * integer (`pnlAttributionInCents`: exact, as the trial balance and the holdings are, docs/arithmetic.md),
 * else in decimal.js (`pnlAttributionInDecimals`, the reference); the two give the same answer. Only the
 * price effect, a quantity times a price change, is a product of decimals: decimal.js computes it on
 * either path.
 */
import { D, addCents, centsOf, dec, moneyOfCents, sum, toMoney, type Dec } from '../../decimal.ts';
import type { AccountRow, LedgerLineRow, LedgerSumRow, NavRunRow, PositionRow } from '../rows.ts';
import { CASH_CLASSES } from './holdings.ts';
import { navOf } from './runs.ts';

/** One attribution row (by asset, by source type or by venue). */
export interface AttributionRow {
  priceEffect: string;
  quantityEffect: string;
  total: string;
}

interface Effects {
  price: Dec;
  quantity: Dec;
  total: Dec;
}

/** Key of a position: asset and venue. */
const keyOf = (asset: string, venue: string) => `${asset}\u0000${venue}`;

/** The non-cash positions at either run, by asset and venue, with their opening and closing rows. */
function pairPositions(opening: readonly PositionRow[], closing: readonly PositionRow[]) {
  const positions = new Map<string, { open?: PositionRow; close?: PositionRow }>();
  for (const p of opening) if (!CASH_CLASSES.has(p.assetClass)) positions.set(keyOf(p.asset, p.venue), { open: p });
  for (const p of closing) {
    if (CASH_CLASSES.has(p.assetClass)) continue;
    const entry = positions.get(keyOf(p.asset, p.venue)) ?? {};
    entry.close = p;
    positions.set(keyOf(p.asset, p.venue), entry);
  }
  return positions;
}

/**
 * The ledger between the runs, by role: fees and operating expenses (as costs, positive), investor flows
 * (contributions less withdrawals), and net purchases at cost of each paired position.
 */
function readLedger(ledger: readonly LedgerSumRow[], accounts: readonly AccountRow[], positions: ReadonlyMap<string, unknown>) {
  const roles = new Map(accounts.map((a) => [a.code, a.role]));
  const purchases = new Map<string, Dec>();
  let fees = new D(0);
  let expenses = new D(0);
  let flows = new D(0);
  for (const line of ledger) {
    const net = dec(line.debit).minus(line.credit);
    const role = roles.get(line.accountCode);
    if (role === 'fee_expense') fees = fees.minus(net);
    else if (role === 'operating_expense') expenses = expenses.minus(net);
    else if (role === 'capital_contributions' || role === 'capital_withdrawals') flows = flows.minus(net);
    else if (line.asset !== null && line.venue !== null) {
      const key = keyOf(line.asset, line.venue);
      if (positions.has(key)) purchases.set(key, (purchases.get(key) ?? new D(0)).plus(net));
    }
  }
  return { purchases, fees, expenses, flows };
}

/**
 * Each position's effects (total = ΔMV − net purchases; price effect = opening quantity × price change;
 * quantity effect = the rest), summed by asset, source type and venue.
 */
function positionEffects(positions: ReturnType<typeof pairPositions>, purchases: ReadonlyMap<string, Dec>) {
  const byAsset = new Map<string, Effects>();
  const bySourceType = new Map<string, Effects>();
  const byVenue = new Map<string, Effects>();
  const add = (map: Map<string, Effects>, key: string, e: Effects) => {
    const prior = map.get(key);
    map.set(
      key,
      prior ? { price: prior.price.plus(e.price), quantity: prior.quantity.plus(e.quantity), total: prior.total.plus(e.total) } : e,
    );
  };
  for (const [key, { open, close }] of positions) {
    const any = (close ?? open)!;
    const mv0 = dec(open?.marketValue ?? '0');
    const mv1 = dec(close?.marketValue ?? '0');
    const total = mv1.minus(mv0).minus(purchases.get(key) ?? 0);
    const price =
      open && close ? dec(open.quantity).times(dec(close.price).minus(open.price)).toDecimalPlaces(2, D.ROUND_HALF_UP) : new D(0);
    const effects = { price, quantity: total.minus(price), total };
    add(byAsset, any.asset, effects);
    add(bySourceType, any.sourceType, effects);
    add(byVenue, any.venue, effects);
  }
  return { byAsset, bySourceType, byVenue };
}

/** Answer rows of one grouping, largest total first (ties by key). */
const effectRows = (map: Map<string, Effects>) =>
  [...map]
    .sort(([ka, a], [kb, b]) => b.total.cmp(a.total) || (ka < kb ? -1 : 1))
    .map(([key, e]): { key: string } & AttributionRow => ({
      key,
      priceEffect: toMoney(e.price),
      quantityEffect: toMoney(e.quantity),
      total: toMoney(e.total),
    }));

/** What an attribution reads: the two runs, their live positions, the ledger between them and the accounts. */
export interface AttributionInput {
  run: NavRunRow;
  previous: NavRunRow;
  /** Live positions at `previous`. */
  opening: readonly PositionRow[];
  /** Live positions at `run`. */
  closing: readonly PositionRow[];
  accounts: readonly AccountRow[];
  /**
   * The ledger dated after `previous.navDate` through `run.navDate`: its lines ({@link LedgerLineRow}), or
   * their sums per account, asset and venue, as a store reads them; both give the same answer.
   */
  ledger: readonly LedgerSumRow[];
  currency: string;
}

/**
 * Attribution of the P&L from `previous` to `run`: positions paired, the ledger read by role, each
 * position's effects grouped; totalPnl = closing NAV − opening NAV − flows, and the residual is what
 * positions, fees and expenses leave unexplained. In integer cents where it can be, else in decimal.js
 * (see the module comment): the same answer.
 */
export function pnlAttribution(input: AttributionInput): Attribution {
  return pnlAttributionInCents(input) ?? pnlAttributionInDecimals(input);
}

/** An attribution, money as decimal strings (2 dp). */
export type Attribution = ReturnType<typeof pnlAttributionInDecimals>;

/** {@link pnlAttribution} in decimal.js throughout: the reference. */
export function pnlAttributionInDecimals(input: AttributionInput) {
  const { run, previous } = input;
  const positions = pairPositions(input.opening, input.closing);
  const { purchases, fees, expenses, flows } = readLedger(input.ledger, input.accounts, positions);
  const { byAsset, bySourceType, byVenue } = positionEffects(positions, purchases);
  const openingNav = navOf(previous);
  const closingNav = navOf(run);
  const totalPnl = closingNav.minus(openingNav).minus(flows);
  const explained = sum([...byAsset.values()].map((e) => e.total))
    .plus(fees)
    .plus(expenses);
  return {
    date: run.navDate,
    previousDate: previous.navDate,
    currency: input.currency,
    openingNav: toMoney(openingNav),
    closingNav: toMoney(closingNav),
    totalPnl: toMoney(totalPnl),
    byAsset: effectRows(byAsset).map(({ key, ...e }) => ({ asset: key, ...e })),
    bySourceType: effectRows(bySourceType),
    byVenue: effectRows(byVenue),
    fees: toMoney(fees),
    expenses: toMoney(expenses),
    flows: toMoney(flows),
    residual: toMoney(totalPnl.minus(explained)),
  };
}

/** Thrown inside the cents path when an amount is not a money text of safe cents, or a sum leaves them. */
const NOT_CENTS = Symbol('not cents');

/** Cents of a money text; throws {@link NOT_CENTS} for another shape or past 2^53 cents. */
function cents(text: string): number {
  const value = centsOf(text);
  if (value === null) throw NOT_CENTS;
  return value;
}

/** a + b in cents; throws {@link NOT_CENTS} when the sum is no longer a safe integer. */
function plus(a: number, b: number): number {
  const total = addCents(a, b);
  if (total === null) throw NOT_CENTS;
  return total;
}

interface CentsEffects {
  price: number;
  quantity: number;
  total: number;
}

/**
 * {@link pnlAttribution} in integer cents: the same steps as {@link pnlAttributionInDecimals}, each sum exact.
 * @returns the attribution, or null when an amount is not a two-decimal money text or a sum would pass 2^53
 *   cents (the decimal path answers then)
 */
export function pnlAttributionInCents(input: AttributionInput): Attribution | null {
  try {
    return attributeInCents(input);
  } catch (err) {
    if (err === NOT_CENTS) return null;
    throw err;
  }
}

function attributeInCents(input: AttributionInput): Attribution {
  const { run, previous } = input;
  const positions = pairPositions(input.opening, input.closing);
  const roles = new Map(input.accounts.map((a) => [a.code, a.role]));
  const purchases = new Map<string, number>();
  let fees = 0;
  let expenses = 0;
  let flows = 0;
  for (const line of input.ledger) {
    const net = plus(cents(line.debit), -cents(line.credit));
    const role = roles.get(line.accountCode);
    if (role === 'fee_expense') fees = plus(fees, -net);
    else if (role === 'operating_expense') expenses = plus(expenses, -net);
    else if (role === 'capital_contributions' || role === 'capital_withdrawals') flows = plus(flows, -net);
    else if (line.asset !== null && line.venue !== null) {
      const key = keyOf(line.asset, line.venue);
      if (positions.has(key)) purchases.set(key, plus(purchases.get(key) ?? 0, net));
    }
  }
  const groups = {
    byAsset: new Map<string, CentsEffects>(),
    bySourceType: new Map<string, CentsEffects>(),
    byVenue: new Map<string, CentsEffects>(),
  };
  const add = (map: Map<string, CentsEffects>, key: string, e: CentsEffects) => {
    const prior = map.get(key);
    map.set(
      key,
      prior ? { price: plus(prior.price, e.price), quantity: plus(prior.quantity, e.quantity), total: plus(prior.total, e.total) } : e,
    );
  };
  let explained = 0;
  for (const [key, { open, close }] of positions) {
    const any = (close ?? open)!;
    const mv0 = open ? cents(open.marketValue) : 0;
    const mv1 = close ? cents(close.marketValue) : 0;
    const total = plus(plus(mv1, -mv0), -(purchases.get(key) ?? 0));
    // The one product of decimals: quantity × price change, rounded half-up to cents by decimal.js.
    const price =
      open && close ? cents(toMoney(dec(open.quantity).times(dec(close.price).minus(open.price)).toDecimalPlaces(2, D.ROUND_HALF_UP))) : 0;
    const effects = { price, quantity: plus(total, -price), total };
    add(groups.byAsset, any.asset, effects);
    add(groups.bySourceType, any.sourceType, effects);
    add(groups.byVenue, any.venue, effects);
    explained = plus(explained, total);
  }
  const rows = (map: Map<string, CentsEffects>) =>
    [...map]
      .sort(([ka, a], [kb, b]) => b.total - a.total || (ka < kb ? -1 : 1))
      .map(([key, e]) => ({
        key,
        priceEffect: moneyOfCents(e.price),
        quantityEffect: moneyOfCents(e.quantity),
        total: moneyOfCents(e.total),
      }));
  const openingNav = previous.shadowNav === null ? 0 : cents(previous.shadowNav);
  const closingNav = run.shadowNav === null ? 0 : cents(run.shadowNav);
  const totalPnl = plus(plus(closingNav, -openingNav), -flows);
  explained = plus(plus(explained, fees), expenses);
  return {
    date: run.navDate,
    previousDate: previous.navDate,
    currency: input.currency,
    openingNav: moneyOfCents(openingNav),
    closingNav: moneyOfCents(closingNav),
    totalPnl: moneyOfCents(totalPnl),
    byAsset: rows(groups.byAsset).map(({ key, ...e }) => ({ asset: key, ...e })),
    bySourceType: rows(groups.bySourceType),
    byVenue: rows(groups.byVenue),
    fees: moneyOfCents(fees),
    expenses: moneyOfCents(expenses),
    flows: moneyOfCents(flows),
    residual: moneyOfCents(plus(totalPnl, -explained)),
  };
}
