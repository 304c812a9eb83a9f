/**
 * Inputs of the identity-scan cases of the cpu section (bench/cpu.ts): a fund's identity set of `n`
 * investors, named as the synthetic funds name them (a first and last name, or an entity), each with an
 * e-mail, a tax id, an IBAN and an internal id; and a store that is the embedded demo fund with those
 * investors as its identities, so a tool call scans its answer against all of them.
 */
import { embeddedStore } from '../lib/fund/embedded-store.ts';
import type { InvestorRow } from '../lib/fund/rows.ts';
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
