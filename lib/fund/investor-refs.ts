/**
 * Investor pseudonyms kept per isolate: `investorRefs` (lib/redaction.ts) signs one HMAC per investor, and a
 * capital-accounts answer of a 500-investor fund asks for all of them on every request. Each pseudonym is
 * made once per key and kept as a plain string shared by the isolate's requests (never a pending promise).
 */
import { investorRefs } from '../redaction.ts';

/** Pseudonyms kept at most per key (a fund of 500 investors needs 500; about 100 bytes each). */
const KEPT_REFS = 20_000;

/**
 * Pseudonyms already made: by key (the secret, or '' for the public default), then fund id, then investor
 * id (maps of maps: a request looks its investors up by the ids it read, with no key string made per
 * investor), with how many each key holds.
 */
const made = new Map<string, { funds: Map<string, Map<string, string>>; count: number }>();

/**
 * The pseudonyms of `investorIds`, as `investorRefs` makes them (`inv_<16 hex>`), each signed once per isolate.
 * @param secret the deployment's `INVESTOR_REF_KEY` (absent: the public default, embedded data only)
 * @returns a map from each investor id to its pseudonym
 */
export async function keptInvestorRefs(fundId: string, investorIds: readonly string[], secret?: string): Promise<Map<string, string>> {
  const keyed = secret ?? '';
  let kept = made.get(keyed);
  if (!kept) {
    if (made.size >= 16) made.clear(); // one secret per deployment (and the public default); bounded anyway
    kept = { funds: new Map(), count: 0 };
    made.set(keyed, kept);
  }
  const refs = kept.funds.get(fundId);
  const out = new Map<string, string>();
  const missing: string[] = [];
  for (const id of investorIds) {
    const ref = refs?.get(id);
    if (ref === undefined) missing.push(id);
    else out.set(id, ref);
  }
  if (missing.length === 0) return out;
  const signed = await investorRefs(fundId, missing, secret);
  if (kept.count + signed.size > KEPT_REFS) {
    kept.funds.clear();
    kept.count = 0;
  }
  // Looked up again: another request may have cleared or filled the key's maps while this one signed.
  let fund = kept.funds.get(fundId);
  if (!fund) {
    fund = new Map<string, string>();
    kept.funds.set(fundId, fund);
  }
  for (const [id, ref] of signed) {
    if (!fund.has(id)) kept.count++;
    fund.set(id, ref);
    out.set(id, ref);
  }
  return out;
}
