/**
 * The simulation's state ({@link Simulation}), made once per fund by {@link startSimulation} and carried
 * through every step of simulate.ts and day.ts, and the operations the steps share on it: posting a journal
 * entry, moving cash, sizing a trade, admitting an investor. All amounts are integer cents; quantities are
 * integer lots of 10^-qdp. The random draws are made in a fixed order, so the same spec gives the same fund.
 */
import type { ExpenseRow, InvestorRow, NavRunRow, ShareClassRow } from '../rows.ts';
import { addDays } from '../analytics/runs.ts';
import { SHARE_CLASSES } from './accounts.ts';
import type { CapitalSnapshot, PriceSeries, Snapshot } from './lazy.ts';
import { ASSET, BANK, POSITIONS, type PositionSpec, isCash } from './market.ts';
import { ENTITY_A, ENTITY_B, FIRST, IBAN_COUNTRIES, LAST, digits, letters } from './names.ts';
import { type Rand, pick, prng } from './random.ts';
import { simulatePrices } from './prices.ts';
import type { SyntheticFundSpec } from './spec.ts';

/** `count` consecutive dates from `start` (`YYYY-MM-DD`, UTC), by integer civil-calendar arithmetic. */
export function dateRange(start: string, count: number): string[] {
  // Days since 1970-01-01 ↔ proleptic Gregorian date: H. Hinnant, "chrono-Compatible Low-Level Date Algorithms".
  const y0 = +start.slice(0, 4);
  const m0 = +start.slice(5, 7);
  const d0 = +start.slice(8, 10);
  const y = m0 <= 2 ? y0 - 1 : y0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m0 + (m0 > 2 ? -3 : 9)) + 2) / 5) + d0 - 1;
  const first = era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468;
  const out: string[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const z = first + i + 719_468;
    const e = Math.floor(z / 146_097);
    const doe = z - e * 146_097;
    const ye = Math.floor((doe - Math.floor(doe / 1_460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
    const dy = doe - (365 * ye + Math.floor(ye / 4) - Math.floor(ye / 100));
    const mp = Math.floor((5 * dy + 2) / 153);
    const day = dy - Math.floor((153 * mp + 2) / 5) + 1;
    const month = mp < 10 ? mp + 3 : mp - 9;
    const year = ye + e * 400 + (month <= 2 ? 1 : 0);
    out[i] = `${year}-${month < 10 ? '0' : ''}${month}-${day < 10 ? '0' : ''}${day}`;
  }
  return out;
}

/** An investor as the simulation keeps it. */
export interface Investor {
  row: InvestorRow;
  cls: ShareClassRow;
  /** Capital (net of accrued performance fee), cents. */
  capital: number;
  /** High-water mark in capital terms, cents. */
  hwm: number;
  /** Performance fee accrued this period and not yet crystallized, cents. */
  accrued: number;
  /** Day index the current crystallization period started. */
  periodStart: number;
  cum: { contributions: number; withdrawals: number; pnl: number; mgmt: number; perf: number };
}

/** A position as the simulation keeps it. */
export interface Holding {
  spec: PositionSpec;
  /** Quantity in lots of 10^-qdp (signed; cash positions: cents). */
  qu: number;
  mv: number;
}

/** One line of a journal entry: amount > 0 debit, < 0 credit. */
export interface EntryLine {
  account: string;
  asset?: string | null;
  venue?: string | null;
  amount: number;
}

/** The posted ledger by column (lazy.ts `Journal`, growing), its strings interned. */
export interface Ledger {
  entry: number[];
  date: number[];
  account: number[];
  asset: number[];
  venue: number[];
  memo: number[];
  amount: number[];
  strings: string[];
}

/** Everything the simulation knows, from the spec and its first draws to the runs struck so far. */
export interface Simulation {
  spec: SyntheticFundSpec;
  rand: Rand;
  /** Days simulated (NAV runs), from inception to `spec.endDate`. */
  n: number;
  inception: string;
  /** Price index of day 0 (prices start `spec.priceDays - n` days before inception). */
  offset: number;
  /** Every date from the first price to the day after the last run. */
  calendar: string[];
  series: Map<string, PriceSeries>;
  investors: Investor[];
  usedNames: Set<string>;
  ledger: Ledger;
  stringIds: Map<string, number>;
  entrySeq: number;
  /** Debit-positive running balances by account, as of the last day absorbed. */
  balances: Map<string, number>;
  holdings: Holding[];
  bank: Holding;
  /** Management fees accrued and not yet paid, cents. */
  mgmtPayable: number;
  /** Performance fees crystallized and not yet paid, cents. */
  crystallizedUnpaid: number;
  expenses: ExpenseRow[];
  accrualsOn: Map<string, ExpenseRow[]>;
  paymentsOn: Map<string, ExpenseRow[]>;
  /** Days whose run fails, is partial, or breaks reconciliation. */
  special: Map<number, 'failed' | 'partial' | 'break'>;
  runs: NavRunRow[];
  snapshots: Map<string, Snapshot>;
  capital: Map<string, CapitalSnapshot>;
}

/**
 * The state before the first step: the calendar, the price series (the first random draws), the holdings at
 * zero, and no ledger, investors or runs. The expense schedule and the special days come next (calendar.ts).
 */
export function startSimulation(spec: SyntheticFundSpec): Simulation {
  const rand = prng(spec.seed);
  const n = spec.runDays;
  const holdings: Holding[] = POSITIONS.map((position) => ({ spec: position, qu: 0, mv: 0 }));
  const sim: Simulation = {
    spec,
    rand,
    n,
    inception: addDays(spec.endDate, -(n - 1)),
    offset: spec.priceDays - n,
    calendar: dateRange(addDays(spec.endDate, -(spec.priceDays - 1)), spec.priceDays + 1),
    series: simulatePrices(rand, spec.priceDays),
    investors: [],
    usedNames: new Set(),
    ledger: { entry: [], date: [], account: [], asset: [], venue: [], memo: [], amount: [], strings: [] },
    stringIds: new Map(),
    entrySeq: 0,
    balances: new Map(),
    holdings,
    bank: liveCash(holdings, BANK),
    mgmtPayable: 0,
    crystallizedUnpaid: 0,
    expenses: [],
    accrualsOn: new Map(),
    paymentsOn: new Map(),
    special: new Map(),
    runs: [],
    snapshots: new Map(),
    capital: new Map(),
  };
  return sim;
}

/** The date of day `t` (0 = inception). */
export const dateOf = (sim: Simulation, t: number): string => sim.calendar[t + sim.offset]!;

/** The price of `asset` on day `day`, in units of 1e-8. */
export const priceUnits = (sim: Simulation, asset: string, day: number): number => sim.series.get(asset)!.units[day + sim.offset]!;

/** The live cash holding at `venue`. */
const liveCash = (holdings: readonly Holding[], venue: string): Holding =>
  holdings.find((h) => h.spec.book === 'live' && h.spec.venue === venue && isCash(h.spec.asset))!;

/** The live cash holding at `venue`. */
export const cashOf = (sim: Simulation, venue: string): Holding => liveCash(sim.holdings, venue);

/** Lots of `asset` worth `cents` at price units `price`. */
export const lotsFor = (asset: string, cents: number, price: number): number =>
  Math.round((cents * 10 ** (ASSET.get(asset)!.qdp + 6)) / price);

/** Adds `cents` to a cash holding (quantity and value). */
export function moveCash(h: Holding, cents: number): void {
  h.qu += cents;
  h.mv += cents;
}

/** The id of a ledger string (−1 for none), interned. */
function intern(sim: Simulation, s: string | null | undefined): number {
  if (s == null) return -1;
  let k = sim.stringIds.get(s);
  if (k === undefined) {
    k = sim.ledger.strings.push(s) - 1;
    sim.stringIds.set(s, k);
  }
  return k;
}

/**
 * Posts an entry on day `t`; lines of zero are left out.
 * @throws {Error} when the entry does not balance (a generator bug)
 */
export function post(sim: Simulation, t: number, memo: string, lines: EntryLine[]): void {
  const total = lines.reduce((s, l) => s + l.amount, 0);
  if (total !== 0) throw new Error('synthetic fund: unbalanced journal entry');
  if (lines.every((l) => l.amount === 0)) return;
  const entry = ++sim.entrySeq;
  const memoId = intern(sim, memo);
  const ledger = sim.ledger;
  for (const l of lines) {
    if (l.amount === 0) continue;
    ledger.entry.push(entry);
    ledger.date.push(t + sim.offset);
    ledger.account.push(intern(sim, l.account));
    ledger.asset.push(intern(sim, l.asset));
    ledger.venue.push(intern(sim, l.venue));
    ledger.memo.push(memoId);
    ledger.amount.push(l.amount);
  }
}

/** Adds the lines posted since line `from` to the running balances. */
export function absorb(sim: Simulation, from: number): void {
  const ledger = sim.ledger;
  for (let i = from; i < ledger.entry.length; i++) {
    const account = ledger.strings[ledger.account[i]!]!;
    sim.balances.set(account, (sim.balances.get(account) ?? 0) + ledger.amount[i]!);
  }
}

/** A new investor, joining on day `day` in share class `classId` (drawn when not given): a unique name, contact and bank details. */
export function newInvestor(sim: Simulation, day: number, classId?: string): Investor {
  const rand = sim.rand;
  let legalName = '';
  let email = '';
  let taxId = '';
  const entity = rand() < 0.45;
  do {
    if (entity) {
      legalName = `${pick(rand, ENTITY_A)} ${pick(rand, ENTITY_A)} ${pick(rand, ENTITY_B)}`;
    } else {
      legalName = `${pick(rand, FIRST)} ${pick(rand, LAST)}`;
    }
  } while (sim.usedNames.has(legalName) || /^(\w+) \1 /.test(legalName));
  sim.usedNames.add(legalName);
  if (entity) {
    const slug = legalName
      .toLowerCase()
      .replace(/[^a-z ]/g, '')
      .split(' ')
      .slice(0, 2)
      .join('');
    email = `investor.relations@${slug}.example.com`;
    taxId = `${digits(rand, 2)}-${digits(rand, 7)}`;
  } else {
    email = `${legalName.toLowerCase().replace(' ', '.')}@example.net`;
    taxId = `${String(100 + Math.floor(rand() * 560))}-${digits(rand, 2)}-${digits(rand, 4)}`;
  }
  const cls = classId ?? (rand() < 0.7 ? 'A' : rand() < 0.5 ? 'B' : 'I');
  const row: InvestorRow = {
    investorId: `INV-${String(sim.investors.length + 1).padStart(4, '0')}`,
    shareClassId: cls,
    legalName,
    email,
    taxId,
    bankAccount: `${pick(rand, IBAN_COUNTRIES)}${digits(rand, 2)}${letters(rand, 4)}${digits(rand, 14)}`,
  };
  const inv: Investor = {
    row,
    cls: SHARE_CLASSES.find((c) => c.shareClassId === cls)!,
    capital: 0,
    hwm: 0,
    accrued: 0,
    periodStart: day,
    cum: { contributions: 0, withdrawals: 0, pnl: 0, mgmt: 0, perf: 0 },
  };
  sim.investors.push(inv);
  return inv;
}
