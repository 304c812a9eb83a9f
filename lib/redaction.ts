/**
 * Fail-closed redaction of fund data (docs/fund-data.md): the one step every fund-data response passes, REST and
 * MCP alike, and the pseudonyms investors leave as.
 *
 * {@link redact} proves a response clean or sends none of it:
 * 1. the body must parse with the resource's allow-list schema: strict objects all the way down (an unknown
 *    field is a failure), no passthrough, no defaults that could stand in for a missing value;
 * 2. the serialized bytes that would be sent (JSON escapes read as spaces) are scanned for e-mail addresses,
 *    tax-id shapes (US SSN and EIN), IBAN-shaped bank accounts and `svc_dk_` key strings, and for every
 *    identity value of the fund (every investor's legal name, e-mail, tax id, bank account and internal id,
 *    compiled once per identity set by {@link identitySet}), by whole words in any case and with or without
 *    accents, in one pass.
 * Any failure throws {@link RedactionFailedError}: 500 `redaction_failed`, a fixed detail and no data.
 * Free text (expense descriptions and categories) goes through {@link maskFreeText} first, which masks
 * identity values, those shapes and account numbers as `[redacted]`; the scan still runs over the result.
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

/**
 * Free text (an expense's description or category) as it may leave: every identity value of the fund
 * ({@link maskIdentities}), every forbidden shape and every account number ({@link maskAccountNumbers})
 * replaced by `[redacted]` (docs/fund-data.md#free-text).
 * @param identities the fund's identity values (none: only the shapes and account numbers are masked)
 */
export function maskFreeText(text: string, identities: IdentitySet = NO_IDENTITIES): string {
  const masked = MASKABLE.reduce((out, re) => out.replace(re, '[redacted]'), maskIdentities(text, identities));
  return maskAccountNumbers(masked);
}

/** A run of digits, each pair of neighbours separated by at most one space or hyphen (greedy: a whole run). */
const DIGIT_RUN = /\d(?:[ -]?\d)*/g;
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
 * {@link MIN_ACCOUNT_DIGITS} digits, with at most one space or hyphen between two digits (`12345678`,
 * `1234 5678 9012`, `12-345678-90`), that is not a date (`2026-03-31`, `31-03-2026` or `20260331`, each
 * standing alone in the run, which cuts the run there), not followed by a decimal part (`12345678.90`,
 * `12345678,90`: an amount) and not grouped in thousands (`12 500 000`). Linear: one pass over the digit runs.
 */
export function maskAccountNumbers(text: string): string {
  return text.replace(DIGIT_RUN, (run: string, offset: number) => {
    if (run.length < MIN_ACCOUNT_DIGITS) return run;
    const decimalFollows = /^[.,]\d/.test(text.slice(offset + run.length, offset + run.length + 2));
    const out: string[] = [];
    let pending: string[] = [];
    const flush = (last: boolean) => {
      if (pending.length === 0) return;
      const part = pending.join(' ');
      const digits = part.replace(/\D/g, '').length;
      const account = digits >= MIN_ACCOUNT_DIGITS && !(last && decimalFollows) && !GROUPED_AMOUNT.test(part);
      out.push(account ? '[redacted]' : part);
      pending = [];
    };
    for (const chunk of run.split(' ')) {
      if (DATE_CHUNK.test(chunk)) {
        flush(false);
        out.push(chunk);
      } else pending.push(chunk);
    }
    flush(true);
    return out.join(' ');
  });
}

/**
 * JSON text with every escape sequence (`\n`, `\"`, `\u0001`, ...) turned into a space, so that what follows
 * a line break is scanned as the word it is (`\nMargaret` must not read as `nMargaret`). JSON.stringify
 * escapes only quotes, backslashes, control characters and lone surrogates, never letters or digits.
 */
export function scannableText(json: string): string {
  return json.replace(/\\(?:u[0-9a-fA-F]{4}|.)/g, ' ');
}

/**
 * A character of a word of the scan: a letter, a combining mark, a digit (any script) or an invisible format
 * character (`\p{Cf}`: a soft hyphen, a zero-width space or joiner, a bidi mark), which shows nothing on
 * screen and so must neither split a word nor hide it (it is dropped as the word is compared,
 * {@link foldWord}). Words are runs of them; everything else (spaces, line breaks, punctuation, a JSON escape
 * read as a space) separates words.
 */
export const WORD_CHARACTER: RegExp = /^[\p{L}\p{M}\p{N}\p{Cf}]$/u;
/** Which ASCII characters are word characters (1) or separators (0). */
const ASCII_WORD = Uint8Array.from({ length: 128 }, (_, c) => (WORD_CHARACTER.test(String.fromCharCode(c)) ? 1 : 0));

/**
 * Calls `found(start, end, ascii)` for each word of `text` (a run of {@link WORD_CHARACTER}s), in order, with
 * whether it is all ASCII: one pass, a table look-up per ASCII character and a test of the code point for
 * the others.
 */
function forEachWord(text: string, found: (start: number, end: number, ascii: boolean) => void): void {
  let start = -1;
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let word: boolean;
    let width = 1;
    if (c < 128) word = ASCII_WORD[c] === 1;
    else {
      const cp = text.codePointAt(i)!;
      width = cp > 0xffff ? 2 : 1;
      word = WORD_CHARACTER.test(String.fromCodePoint(cp));
    }
    if (word) {
      if (start < 0) {
        start = i;
        ascii = true;
      }
      if (c >= 128) ascii = false;
    } else if (start >= 0) {
      found(start, i, ascii);
      start = -1;
    }
    i += width - 1;
  }
  if (start >= 0) found(start, text.length, ascii);
}

/**
 * Combining marks, dropped from a word once decomposed (NFD): `é` reads as `e`, `Å` as `a`; and invisible
 * format characters, dropped wherever they are.
 */
const MARKS = /[\p{M}\p{Cf}]/gu;

/**
 * A word as the scan compares it: in lower case and, when it is not all ASCII, decomposed with its
 * compatibility forms (NFKD) and its combining marks and format characters dropped, so that accents are
 * ignored, either Unicode form of a letter matches, full-width `ＯＫＡＦＯＲ` and a ligature `ﬁ` read as the
 * letters they show, and `Mar\u00ADgaret` reads as `margaret`; a word of marks alone reads as no word ('').
 */
function foldWord(word: string, ascii: boolean): string {
  const lower = word.toLowerCase();
  return ascii ? lower : lower.normalize('NFKD').replace(MARKS, '');
}

/** The words of `text` as the scan compares them ({@link foldWord}), in order. */
function wordsOf(text: string): string[] {
  const words: string[] = [];
  forEachWord(text, (a, b, ascii) => {
    const word = foldWord(text.slice(a, b), ascii);
    if (word !== '') words.push(word);
  });
  return words;
}

/**
 * The shortest identity value the scan looks for, in letters and digits (its words joined); and the shortest
 * one made of digits only. Shorter values cannot be told from ordinary words and figures (an internal id
 * `17` is in every other amount), so they are not looked for (docs/fund-data.md#how-identity-values-are-matched).
 */
export const MIN_IDENTITY_CHARS = 4;
export const MIN_IDENTITY_DIGITS = 6;

/**
 * A fund's identity values compiled for the scan: a trie of their words (as {@link foldWord} reads them),
 * so that a text is scanned in one pass whatever the number of values. Plain data (maps, arrays and
 * numbers), built once per identity set and shared by every request of the isolate.
 */
export interface IdentitySet {
  /** The next words of the nodes with more than one (node 0, the root, always), and the nodes they lead to. */
  readonly children: readonly (ReadonlyMap<string, number> | undefined)[];
  /** The one next word of each other node that has one (most nodes), and the node it leads to. */
  readonly onlyWord: readonly (string | undefined)[];
  readonly onlyTo: readonly number[];
  /** Whether a value ends at each node. */
  readonly ends: readonly boolean[];
  /** The most words of any value: the scan's work per word of text is at most this many look-ups. */
  readonly maxWords: number;
  /** How many values were compiled (for the bench and tests). */
  readonly values: number;
}

/** The node `word` leads to from `node`, if any. */
function step(set: IdentitySet, node: number, word: string): number | undefined {
  const map = set.children[node];
  if (map) return map.get(word);
  return set.onlyWord[node] === word ? set.onlyTo[node] : undefined;
}

/**
 * Compiles identity values for {@link findIdentities}. Each value is looked for as its sequence of words,
 * whatever separates them in the text, and as its words written together (`MargaretOkafor`, `078659703`),
 * always by whole words; a value below {@link MIN_IDENTITY_CHARS} letters and digits, or digits only below
 * {@link MIN_IDENTITY_DIGITS}, is left out. A value's words are the same whether it is read as stored or as
 * the JSON text of an answer writes it (JSON escapes only characters that separate words).
 */
export function identitySet(values: Iterable<string>): IdentitySet {
  const children: (Map<string, number> | undefined)[] = [new Map()];
  const onlyWord: (string | undefined)[] = [undefined];
  const onlyTo: number[] = [0];
  const ends: boolean[] = [false];
  const set: IdentitySet = { children, onlyWord, onlyTo, ends, maxWords: 0, values: 0 };
  let maxWords = 0;
  let count = 0;
  const add = (words: readonly string[]) => {
    let node = 0;
    for (const word of words) {
      let to = step(set, node, word);
      if (to === undefined) {
        to = ends.length;
        ends.push(false);
        children.push(undefined);
        onlyWord.push(undefined);
        onlyTo.push(0);
        const map = children[node];
        if (map) map.set(word, to);
        else if (onlyWord[node] === undefined) {
          onlyWord[node] = word;
          onlyTo[node] = to;
        } else {
          // A second next word: the node's words move to a map of their own.
          children[node] = new Map([
            [onlyWord[node]!, onlyTo[node]!],
            [word, to],
          ]);
          onlyWord[node] = undefined;
        }
      }
      node = to;
    }
    ends[node] = true;
    maxWords = Math.max(maxWords, words.length);
  };
  for (const value of values) {
    const words = wordsOf(value);
    const joined = words.join('');
    if (joined.length < MIN_IDENTITY_CHARS || (joined.length < MIN_IDENTITY_DIGITS && /^\d+$/.test(joined))) continue;
    add(words);
    if (words.length > 1) add([joined]);
    count++;
  }
  return { ...set, maxWords, values: count };
}

/** The empty identity set (nothing to look for). */
export const NO_IDENTITIES: IdentitySet = identitySet([]);

/**
 * Where identity values are in a sequence of words: the spans `[first, last]` (word indexes, inclusive),
 * merged where they overlap, in order. Linear: at most `set.maxWords` look-ups per word.
 */
function spansOf(words: readonly string[], set: IdentitySet): [number, number][] {
  const spans: [number, number][] = [];
  for (let i = 0; i < words.length; i++) {
    let node = step(set, 0, words[i]!);
    let last = -1;
    for (let j = i; node !== undefined; ) {
      if (set.ends[node]) last = j;
      if (++j >= words.length || j - i >= set.maxWords) break;
      node = step(set, node, words[j]!);
    }
    if (last < 0) continue;
    const prev = spans.at(-1);
    if (prev && prev[1] >= i) prev[1] = Math.max(prev[1], last);
    else spans.push([i, last]);
  }
  return spans;
}

/**
 * True when `text` (JSON text: escapes are read as separators) contains any value of `set`, by whole words,
 * in any case and with or without accents.
 */
export function findIdentities(text: string, set: IdentitySet): boolean {
  if (set.values === 0) return false;
  return spansOf(wordsOf(scannableText(text)), set).length > 0;
}

/**
 * True when `text` contains any of `values` (case-insensitive, by whole words): {@link identitySet} and
 * {@link findIdentities} in one call, for a few values.
 */
export function containsAnyValue(text: string, values: Iterable<string>): boolean {
  return findIdentities(text, identitySet(values));
}

/**
 * Free text (an expense's description or category) with every identity value of `set` replaced by
 * `[redacted]`, matched as {@link findIdentities} matches them (the words and what separates them go).
 */
export function maskIdentities(text: string, set: IdentitySet): string {
  if (set.values === 0) return text;
  const starts: number[] = [];
  const stops: number[] = [];
  const words: string[] = [];
  forEachWord(text, (a, b, ascii) => {
    const word = foldWord(text.slice(a, b), ascii);
    if (word === '') return;
    starts.push(a);
    stops.push(b);
    words.push(word);
  });
  const spans = spansOf(words, set);
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const [a, b] of spans) {
    out += `${text.slice(at, starts[a])}[redacted]`;
    at = stops[b]!;
  }
  return out + text.slice(at);
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
  const parsed = schema.safeParse(body, { reportInput: false });
  if (!parsed.success) throw new RedactionFailedError('allow_list');
  const text = JSON.stringify(parsed.data);
  const scanned = scannableText(text);
  if (FORBIDDEN_SHAPES.some((re) => re.test(scanned))) throw new RedactionFailedError('forbidden_shape');
  const set = isIdentitySet(identities) ? identities : identitySet(identities);
  if (set.values > 0 && spansOf(wordsOf(scanned), set).length > 0) throw new RedactionFailedError('identity_value');
  return text;
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
