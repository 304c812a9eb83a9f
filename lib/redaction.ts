/**
 * Fail-closed redaction of fund data (docs/fund-data.md): the one step every fund-data response passes, REST and
 * MCP alike, and the pseudonyms investors leave as.
 *
 * {@link redact} proves a response clean or sends none of it:
 * 1. the body must parse with the resource's allow-list schema: strict objects all the way down (an unknown
 *    field is a failure), no passthrough, no defaults that could stand in for a missing value (checked and
 *    written in one pass where the schema allows, lib/allow-list.ts);
 * 2. the serialized bytes that would be sent (JSON escapes read as spaces) are scanned for e-mail addresses,
 *    tax-id shapes (US SSN and EIN), IBAN-shaped bank accounts and `svc_dk_` key strings, and for every
 *    identity value of the fund (every investor's legal name, e-mail, tax id, bank account and internal id,
 *    compiled once per identity set by {@link identitySet}), by whole words in any case and with or without
 *    accents, each character of a script written without spaces (Chinese, Japanese, Korean, Thai, ...) a word
 *    of its own, in one pass (lib/identity-match.ts).
 * Any failure throws {@link RedactionFailedError}: 500 `redaction_failed`, a fixed detail and no data.
 * Free text (expense descriptions and categories) goes through {@link maskFreeText} first, which masks
 * identity values, those shapes and account numbers as `[redacted]`; the scan still runs over the result.
 */
import type * as z from 'zod';
import { RedactionFailedError } from './errors.ts';
import { hex } from './digest.ts';
import { allowListWriter, NotAllowed } from './allow-list.ts';
import {
  findIdentitiesInScannable,
  identitySet,
  maskIdentities,
  NO_IDENTITIES,
  scannableText,
  type IdentitySet,
} from './identity-match.ts';

export {
  findIdentities,
  identitySet,
  maskIdentities,
  MIN_IDENTITY_CHARS,
  MIN_IDENTITY_DIGITS,
  MIN_SPACELESS_CHARS,
  NO_IDENTITIES,
  scannableText,
  SPACELESS_CHARACTER,
  WORD_CHARACTER,
  type IdentitySet,
} from './identity-match.ts';

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
/**
 * A character each of {@link FORBIDDEN_SHAPES} cannot match without (null: none is looked for first): a text
 * without it is not searched with that pattern, which is what it would find anyway (an answer's JSON has no
 * `@` unless something is wrong, and a pattern's pass over 300 KB costs a millisecond or more).
 */
const SHAPE_NEEDS: readonly (string | null)[] = ['@', '-', '-', null, '_'];

/** True when `text` matches any of {@link FORBIDDEN_SHAPES}. */
function hasForbiddenShape(text: string): boolean {
  return FORBIDDEN_SHAPES.some((re, i) => (SHAPE_NEEDS[i] === null || text.includes(SHAPE_NEEDS[i]!)) && re.test(text));
}

/**
 * Free text (an expense's description or category) as it may leave: every identity value of the fund
 * ({@link maskIdentities}), every forbidden shape and every account number ({@link maskAccountNumbers})
 * replaced by `[redacted]` (docs/fund-data.md#free-text).
 * @param identities the fund's identity values (none: only the shapes and account numbers are masked)
 */
export function maskFreeText(text: string, identities: IdentitySet = NO_IDENTITIES): string {
  // Identity values before the shapes and account numbers (a lower-case IBAN goes whole, not only its
  // digits), and again after: a name glued to a number (`Okafor12345678`) is a word of its own only once the
  // number is masked, and would then fail the answer's scan closed instead of being masked.
  const shapesMasked = MASKABLE.reduce((out, re) => out.replace(re, '[redacted]'), maskIdentities(text, identities));
  return maskIdentities(maskAccountNumbers(shapesMasked), identities);
}

/**
 * A run of digits, ASCII or full-width (`１２３４`, as Japanese and Chinese text writes them), each pair of
 * neighbours separated by at most one space or hyphen, either width (greedy: a whole run).
 */
const DIGIT_RUN = /[0-9\uFF10-\uFF19](?:[ \u3000\-\uFF0D]?[0-9\uFF10-\uFF19])*/g;
/** A date written as one chunk of a run: `YYYY-MM-DD`, `DD-MM-YYYY` or `YYYYMMDD` (19xx and 20xx). */
const DATE_CHUNK = /^(?:\d{4}-\d{2}-\d{2}|\d{2}-\d{2}-\d{4}|(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]))$/;
/** An amount grouped in thousands by spaces: `12 500 000`. */
const GROUPED_AMOUNT = /^\d{1,3}(?: \d{3})+$/;
/** The patterns of {@link maskAccountNumbers} (for the tests that prove them linear). */
export const ACCOUNT_NUMBER_PATTERNS: readonly RegExp[] = [DIGIT_RUN, DATE_CHUNK, GROUPED_AMOUNT];
/** The fewest digits an account number has (docs/fund-data.md#account-numbers-in-free-text). */
export const MIN_ACCOUNT_DIGITS = 8;

/**
 * Free text with every account number replaced by `[redacted]`. An account number is a run of at least
 * {@link MIN_ACCOUNT_DIGITS} digits, ASCII or full-width, with at most one space or hyphen between two digits
 * (`12345678`, `1234 5678 9012`, `12-345678-90`, `１２３４５６７８`), that is not a date (`2026-03-31`,
 * `31-03-2026` or `20260331`, each standing alone in the run, which cuts the run there), not followed by a
 * decimal part (`12345678.90`, `12345678,90`: an amount) and not grouped in thousands (`12 500 000`); full
 * width is read as ASCII for these tests (NFKC, one character for one). Linear: one pass over the digit runs.
 */
export function maskAccountNumbers(text: string): string {
  return text.replace(DIGIT_RUN, (run: string, offset: number) => {
    if (run.length < MIN_ACCOUNT_DIGITS) return run;
    const plain = run.normalize('NFKC');
    const decimalFollows = /^[.,]\d/.test(text.slice(offset + run.length, offset + run.length + 2).normalize('NFKC'));
    let out = '';
    let done = 0; // how much of the run is in `out`
    let pending = -1; // where the chunks not yet decided start
    const put = (from: number, to: number, masked: boolean) => {
      out += run.slice(done, from) + (masked ? '[redacted]' : run.slice(from, to));
      done = to;
    };
    const flush = (to: number, last: boolean) => {
      if (pending < 0) return;
      const part = plain.slice(pending, to);
      const digits = part.replace(/\D/g, '').length;
      put(pending, to, digits >= MIN_ACCOUNT_DIGITS && !(last && decimalFollows) && !GROUPED_AMOUNT.test(part));
      pending = -1;
    };
    let at = 0;
    for (const chunk of plain.split(' ')) {
      const end = at + chunk.length;
      if (DATE_CHUNK.test(chunk)) {
        flush(at - 1, false);
        put(at, end, false);
      } else if (pending < 0) pending = at;
      at = end + 1;
    }
    flush(run.length, true);
    return out;
  });
}

/**
 * Proves a fund-data body clean and serializes it.
 * @param schema the resource's allow-list (strict) schema
 * @param body what the analytics built
 * @param identities the fund's identity values ({@link identitySet}; or the values themselves), none of which
 *   may appear in the output
 * @returns the JSON text to send, exactly the bytes that were scanned
 * @throws {RedactionFailedError} when the body fails the allow-list or the scan finds anything
 */
export function redact(schema: z.ZodType, body: unknown, identities: IdentitySet | Iterable<string>): string {
  const text = allowListed(schema, body);
  const scanned = scannableText(text);
  if (hasForbiddenShape(scanned)) throw new RedactionFailedError('forbidden_shape');
  const set = isIdentitySet(identities) ? identities : identitySet(identities);
  if (findIdentitiesInScannable(scanned, set)) throw new RedactionFailedError('identity_value');
  return text;
}

/**
 * `body` as JSON text once its allow-list accepts it: written by the schema's one-pass writer
 * (lib/allow-list.ts), or, for a schema it cannot write, serialized from what zod's parse returns.
 * @throws {RedactionFailedError} `allow_list` when the schema does not accept the body
 */
function allowListed(schema: z.ZodType, body: unknown): string {
  const writer = allowListWriter(schema);
  if (writer === null) {
    const parsed = schema.safeParse(body, { reportInput: false });
    if (!parsed.success) throw new RedactionFailedError('allow_list');
    return JSON.stringify(parsed.data);
  }
  try {
    return writer(body);
  } catch (err) {
    if (err instanceof NotAllowed) throw new RedactionFailedError('allow_list');
    throw err;
  }
}

function isIdentitySet(x: IdentitySet | Iterable<string>): x is IdentitySet {
  return Array.isArray((x as IdentitySet).children);
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
