/**
 * The identity sets of funds, as the redaction scans every answer against them
 * (docs/fund-data.md#redaction-fail-closed): every investor's legal name, e-mail, tax id, bank account and
 * internal id, compiled once ({@link identitySet}; loaded instead when the store holds the set compiled from
 * the same investors, as the importer stores it: lib/identity-set-form.ts) and kept in the isolate by the
 * version the store gives the set (a digest of the investors' rows).
 *
 * Every call asks the store for the current version (`FundStore.identities`), which sends the investors only
 * when the caller holds no set of that version; the database store reads the version, and the investors when
 * the isolate holds no set of it, with the fund's index, in the same statement. So an investor row corrected
 * without a new NAV run is scanned for at once, and a set is loaded once per isolate and version, not once
 * per request.
 *
 * What is kept is plain data (the compiled set, its version), never a pending promise: workerd ties I/O to
 * the request that started it, so concurrent first requests each load and compile the set, and the last one
 * kept wins.
 */
import { identitySet, type IdentitySet } from '../redaction.ts';
import { identitySetText, loadIdentitySet } from '../identity-set-form.ts';
import { RedactionFailedError } from '../errors.ts';
import type { InvestorRow } from './rows.ts';
import type { FundStore } from './store.ts';

/**
 * Identity sets kept per isolate, the least recently used dropped first: a deployment's fund, the demo fund
 * and room for a version or two while investor rows change.
 */
export const IDENTITY_SETS_KEPT = 4;

/**
 * Identity values (five per investor) kept per isolate over all kept sets: 20,000 investors, about 26 MiB
 * (a set of 5,000 investors holds about 6.5 MiB), well under an isolate's 128 MB. The least recently used
 * sets are dropped until the rest fit; the set a request has just loaded is always kept, whatever its size.
 */
export const IDENTITY_VALUES_KEPT = 100_000;

/** A fund's compiled identity set, and its investors' internal ids to check the ids a read names against. */
export interface FundIdentitySet {
  /** The version the store gave this set. */
  readonly version: string;
  /** The values, compiled for the scan and the masking of free text. */
  readonly set: IdentitySet;
  /** Every investor's internal id. */
  readonly investorIds: ReadonlySet<string>;
}

const kept = new Map<string, FundIdentitySet>();

/** The identity values of an investor, in the order the scan takes them. */
export function identityValues(i: InvestorRow): string[] {
  return [i.legalName, i.email, i.taxId, i.bankAccount, i.investorId];
}

/**
 * The identity set of `investors` in stored form (lib/identity-set-form.ts's text: a SHA-256 line and a JSON
 * document, about 500 bytes per investor), compiled from exactly the values, in exactly the order, that
 * {@link fundIdentities} compiles when a store hands it no set: what the importer stores beside a fund's
 * investors, the build puts in an embedded fund's asset and the startup warm-up loads.
 */
export function storedIdentitySet(investors: readonly InvestorRow[]): Promise<string> {
  return identitySetText(investors.flatMap(identityValues));
}

/**
 * A fund's identity set: a kept one when the store says its version is current, else loaded and compiled.
 * Sets are kept by version, which names their content: two stores or funds with the same investors share one.
 * @throws {RedactionFailedError} when the store's answer fails the store-row guard (through `guardedStore`)
 * @throws the store's errors (503 for the database)
 */
export async function fundIdentities(store: FundStore, fundId: string): Promise<FundIdentitySet> {
  let got = await store.identities(fundId, keptIdentityVersions());
  const have = kept.get(got.version);
  if (have && got.investors === null) {
    kept.delete(got.version);
    kept.set(got.version, have);
    return have;
  }
  // Held when asked, but since dropped by another request: ask for the rows.
  if (got.investors === null) got = await store.identities(fundId);
  if (got.investors === null) throw new RedactionFailedError('store_row');
  const investorIds = new Set(got.investors.map((i) => i.investorId));
  const set = (got.compiled && (await loadedSet(got.compiled))) || identitySet(got.investors.flatMap(identityValues));
  const compiled: FundIdentitySet = { version: got.version, set, investorIds };
  kept.delete(got.version);
  kept.set(got.version, compiled);
  let values = 0;
  for (const k of kept.values()) values += k.set.values;
  for (const [version, k] of kept) {
    if (version === compiled.version || (kept.size <= IDENTITY_SETS_KEPT && values <= IDENTITY_VALUES_KEPT)) break;
    kept.delete(version);
    values -= k.set.values;
  }
  return compiled;
}

/**
 * The set a store holds compiled (lib/identity-set-form.ts), or null when it cannot be loaded (another
 * format, damaged): the caller then compiles the investors, as it does when the store holds none.
 */
async function loadedSet(text: string): Promise<IdentitySet | null> {
  try {
    return await loadIdentitySet(text);
  } catch {
    return null;
  }
}

/** The versions of the identity sets the isolate keeps now, so a store sends a set's investors only when none is held. */
export function keptIdentityVersions(): string[] {
  return [...kept.keys()];
}

/** How many identity sets and values the isolate keeps now (for tests and benchmarks). */
export function keptIdentitySets(): { sets: number; values: number } {
  let values = 0;
  for (const k of kept.values()) values += k.set.values;
  return { sets: kept.size, values };
}

/**
 * Checks the investors a read names (a capital read's investors and capital rows) against the identity set
 * the answer is scanned with: each must be in it. A read carries no identity value but the investor's
 * internal id (the set holds the rest, read with the index); an investor written between the index's
 * statement and the read would otherwise be named by an id the scan does not look for.
 * @throws {RedactionFailedError} `identity_value` when one is not
 */
export function checkInvestorsScanned(identities: FundIdentitySet, rows: readonly { readonly investorId: string }[]): void {
  for (const row of rows) if (!identities.investorIds.has(row.investorId)) throw new RedactionFailedError('identity_value');
}

/** Forgets every kept set (for tests and benchmarks that measure the loading). */
export function clearIdentitySets(): void {
  kept.clear();
}
