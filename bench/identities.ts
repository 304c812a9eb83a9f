/**
 * Inputs of the identity-scan cases of the cpu section (bench/cpu.ts): a fund's identity set of `n`
 * investors, named as the synthetic funds name them (a first and last name, or an entity), each with an
 * e-mail, a tax id, an IBAN and an internal id; a store that is the embedded demo fund with those
 * investors as its identities, so a tool call scans its answer against all of them; and the daily NAV runs
 * of a fund of a large real fund's size (bench/import-fund.ts: 5 years, 1,826 runs), whose
 * `get_nav_history?days=3660` answer is about 287 KB of JSON.
 */
import { embeddedStore } from '../lib/fund/embedded-store.ts';
import { addDays } from '../lib/fund/analytics/runs.ts';
import type { InvestorRow, NavRunRow } from '../lib/fund/rows.ts';
import { guardedStore, type FundStore } from '../lib/fund/store.ts';
import { DEMO_FUND } from '../lib/fund/synthetic.ts';
import { ENTITY_A, ENTITY_B, FIRST, LAST } from '../lib/fund/synthetic/names.ts';
import { prng } from './inputs.ts';

/** `n` investors with distinct internal ids, e-mails, tax ids and bank accounts (names may repeat). */
export function identityInvestors(n: number, seed = 17): InvestorRow[] {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  return Array.from({ length: n }, (_, i) => {
    const entity = rnd() < 0.45;
    const legalName = entity ? `${pick(ENTITY_A)} ${pick(ENTITY_A)} ${pick(ENTITY_B)}` : `${pick(FIRST)} ${pick(LAST)}`;
    return {
      investorId: `INV-${String(i + 1).padStart(5, '0')}`,
      shareClassId: 'A',
      legalName,
      email: `${legalName.toLowerCase().replace(/[^a-z]+/g, '.')}${i}@example.net`,
      taxId: `${String(100 + (i % 800))}-${String(10 + (i % 89))}-${String(1000 + i).slice(-4)}`,
      bankAccount: `GB${String(10 + (i % 89))}BANK${String(10_000_000_000_000 + i * 7919)}`,
    };
  });
}

/** The embedded demo fund whose identity set is `investors` (its own reads unchanged). */
export function storeWithIdentities(investors: InvestorRow[]): FundStore {
  const inner = embeddedStore([DEMO_FUND]);
  const version = `bench:${investors.length}`;
  return guardedStore({
    index: (fundId) => inner.index(fundId),
    read: (fundId, request) => inner.read(fundId, request),
    identities: async (_fundId, known) => ({ version, investors: known?.includes(version) ? null : investors }),
  });
}

/**
 * `n` daily NAV runs ending 2026-10-31, NAVs near 250 million with cents, about 2 % failed (no NAV struck)
 * and the rest matched or, past 5 bps, a break: what `navHistory` reads for the large fund.
 */
export function largeNavRuns(n = 1826, seed = 5): NavRunRow[] {
  const rnd = prng(seed);
  const money = (c: number) => `${Math.trunc(c / 100)}.${String(c % 100).padStart(2, '0')}`;
  let nav = 25_000_000_000;
  return Array.from({ length: n }, (_, i): NavRunRow => {
    nav += Math.round((rnd() - 0.48) * 100_000_000);
    const admin = nav + Math.round((rnd() - 0.5) * 2_000_000);
    const failed = rnd() < 0.02;
    return {
      navDate: addDays('2026-10-31', i - n + 1),
      status: failed ? 'failed' : 'complete',
      shadowNav: failed ? null : money(nav),
      adminNav: failed ? null : money(admin),
      reconStatus: failed ? null : Math.abs(admin - nav) * 10_000 <= 5 * nav ? 'matched' : 'break',
      netFlows: '0.00',
    };
  });
}
