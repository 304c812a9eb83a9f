/**
 * Fail-closed redaction of fund data (docs/fund-data.md): the one step every fund-data response passes, REST and
 * MCP alike, and the pseudonyms investors leave as.
 *
 * {@link redact} proves a response clean or sends none of it:
 * 1. the body must parse with the resource's allow-list schema: strict objects all the way down (an unknown
 *    field is a failure), no passthrough, no defaults that could stand in for a missing value;
 * 2. the serialized bytes that would be sent (JSON escapes read as spaces) are scanned for e-mail addresses, tax-id shapes (US SSN and
 *    EIN), IBAN-shaped bank accounts and `svc_dk_` key strings, and for every identity value the store
 *    returned while answering (investors' legal names, e-mails, tax ids, bank accounts and internal ids),
 *    case-insensitively.
 * Any failure throws {@link RedactionFailedError}: 500 `redaction_failed`, a fixed detail and no data.
 * Free text that may legitimately quote an address (expense descriptions) goes through {@link maskFreeText}
 * first; the scan still runs over the result.
 */
import type * as z from 'zod';
import { RedactionFailedError } from './errors.ts';
import { hex } from './digest.ts';

/** Shapes that never leave in a fund-data response. */
export const FORBIDDEN_SHAPES: readonly RegExp[] = [
  // e-mail address; the lookbehind starts a match only at the first character of a run of local-part
  // characters, so a long run with no `@` is read once rather than once from each of its characters
  /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/,
  /\b\d{3}-\d{2}-\d{4}\b/, // US social security number
  /\b\d{2}-\d{7}\b/, // US employer identification number
  /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b/, // IBAN (ISO 13616), compact or in groups of four
  /svc_dk_[0-9A-Za-z]*/i, // an API key, prefix and secret
];
const MASKABLE = FORBIDDEN_SHAPES.map((re) => new RegExp(re.source, `${re.flags}g`));

/** The text with every forbidden shape replaced by `[redacted]`. */
export function maskFreeText(text: string): string {
  return MASKABLE.reduce((out, re) => out.replace(re, '[redacted]'), text);
}

/**
 * JSON text with every escape sequence (`\n`, `\"`, `\u0001`, ...) turned into a space, so that what follows
 * a line break is scanned as the word it is (`\nMargaret` must not read as `nMargaret`). JSON.stringify
 * escapes only quotes, backslashes, control characters and lone surrogates, never letters or digits.
 */
export function scannableText(json: string): string {
  return json.replace(/\\(?:u[0-9a-fA-F]{4}|.)/g, ' ');
}

const TOKEN = /[^\p{L}\p{N}]+/u;

/**
 * True when `text` contains any of `values` (case-insensitive). Values are first matched by their words
 * against the text's word set, so thousands of values cost one pass over the text, not one each.
 */
export function containsAnyValue(text: string, values: Iterable<string>): boolean {
  const haystack = text.toLowerCase();
  let words: Set<string> | undefined;
  for (const value of values) {
    const needle = value.toLowerCase().trim();
    if (needle === '') continue;
    words ??= new Set(haystack.split(TOKEN));
    const parts = needle.split(TOKEN).filter((w) => w !== '');
    if (parts.every((w) => words!.has(w)) && haystack.includes(needle)) return true;
  }
  return false;
}

/**
 * Proves a fund-data body clean and serializes it.
 * @param schema the resource's allow-list (strict) schema
 * @param body what the analytics built
 * @param sensitive identity values the store returned while answering (never to appear in the output)
 * @returns the JSON text to send, exactly the bytes that were scanned
 * @throws {RedactionFailedError} when the body fails the allow-list or the scan finds anything
 */
export function redact(schema: z.ZodType, body: unknown, sensitive: Iterable<string>): string {
  const parsed = schema.safeParse(body, { reportInput: false });
  if (!parsed.success) throw new RedactionFailedError('allow_list');
  const text = JSON.stringify(parsed.data);
  const scanned = scannableText(text);
  const values = [...sensitive].map((v) => scannableText(JSON.stringify(v).slice(1, -1)));
  if (FORBIDDEN_SHAPES.some((re) => re.test(scanned))) throw new RedactionFailedError('forbidden_shape');
  if (containsAnyValue(scanned, values)) throw new RedactionFailedError('identity_value');
  return text;
}

/**
 * Key of investor pseudonyms without an `INVESTOR_REF_KEY` secret: public, so used only for the embedded
 * (synthetic) data; fund data from a database is refused without the secret (`fundSource` in lib/fund/source.ts).
 */
const DEFAULT_REF_KEY = 'fund-edge investorRef v1';
/**
 * HMAC keys by secret, once imported: plain `CryptoKey`s, never the promise that imports one (a request
 * awaits only what it started; concurrent first requests each import it).
 */
const refKeys = new Map<string, CryptoKey>();

/**
 * Stable pseudonyms `inv_<16 hex>` of investors: HMAC-SHA-256 (RFC 2104) over `<fundId>:<investorId>`, keyed by
 * the deployment's `INVESTOR_REF_KEY` secret; without one (embedded synthetic data only), a fixed public key,
 * which keeps refs stable but lets anyone who knows internal investor ids recompute them. The same investor
 * keeps the same ref across calls.
 */
export async function investorRefs(fundId: string, investorIds: readonly string[], secret?: string): Promise<Map<string, string>> {
  const keyText = secret || DEFAULT_REF_KEY;
  let k = refKeys.get(keyText);
  if (!k) {
    k = await crypto.subtle.importKey('raw', new TextEncoder().encode(keyText), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    if (refKeys.size >= 16) refKeys.clear(); // one secret per deployment (and the public default); bounded anyway
    refKeys.set(keyText, k);
  }
  const out = new Map<string, string>();
  await Promise.all(
    investorIds.map(async (id) => {
      const mac = await crypto.subtle.sign('HMAC', k, new TextEncoder().encode(`${fundId}:${id}`));
      out.set(id, `inv_${hex(new Uint8Array(mac).slice(0, 8))}`);
    }),
  );
  return out;
}
