/**
 * Investor pseudonyms kept per isolate: `investorRefs` (lib/redaction.ts) signs one HMAC per investor, and a
 * capital-accounts answer of a 500-investor fund asks for all of them on every request. Each pseudonym is
 * made once per key and kept as a plain string shared by the isolate's requests (never a pending promise).
 */
import { investorRefs } from '../redaction.ts';

/** Pseudonyms kept at most per key (a fund of 500 investors needs 500; about 100 bytes each). */
const KEPT_REFS = 20_000;

/** Pseudonyms already made: by key (the secret, or '' for the public default), then `<fundId>\u0000<investorId>`. */
const made = new Map<string, Map<string, string>>();

/**
 * The pseudonyms of `investorIds`, as `investorRefs` makes them (`inv_<16 hex>`), each signed once per isolate.
 * @param secret the deployment's `INVESTOR_REF_KEY` (absent: the public default, embedded data only)
 * @returns a map from each investor id to its pseudonym
 */
export async function keptInvestorRefs(fundId: string, investorIds: readonly string[], secret?: string): Promise<Map<string, string>> {
  const keyed = secret ?? '';
  let refs = made.get(keyed);
  if (!refs) {
    if (made.size >= 16) made.clear(); // one secret per deployment (and the public default); bounded anyway
    refs = new Map();
    made.set(keyed, refs);
  }
  const out = new Map<string, string>();
  const missing: string[] = [];
  for (const id of investorIds) {
    const ref = refs.get(`${fundId}\u0000${id}`);
    if (ref === undefined) missing.push(id);
    else out.set(id, ref);
  }
  if (missing.length === 0) return out;
  const signed = await investorRefs(fundId, missing, secret);
  if (refs.size + signed.size > KEPT_REFS) refs.clear();
  for (const [id, ref] of signed) {
    refs.set(`${fundId}\u0000${id}`, ref);
    out.set(id, ref);
  }
  return out;
}
