/**
 * The scan of a text for a fund's identity values (docs/fund-data.md#how-identity-values-are-matched): its
 * words, read as lib/identity-words.ts reads them, stepped through the automaton of lib/identity-set.ts.
 *
 * An answer's JSON is mostly ASCII (keys, dates, amounts), so an all-ASCII word is read through a table of
 * its characters' folded codes and hashed as it is read; it is looked up in the set's table of ASCII words by
 * that hash and compared in place, and a word the set does not have (most of them) resets the automaton
 * without a string ever being made for it. Any other word is sliced and folded as the reference reads it
 * (lib/identity-reference.ts, which the property tests hold this scan to, word for word and span for span).
 */
import { type IdentitySet, WORD_HASH_SEED, step, wordHash } from './identity-set.ts';
import { ASCII_FOLDED, JOINER, SEPARATOR, SPACELESS, classOf, scannableText, wordAt } from './identity-words.ts';

/**
 * Called by {@link scanWords} for each word of a text that is not empty once folded: `text[start, end)`, and
 * `word`, the set's own string for it when it is all ASCII and one of the set's words, undefined when it is
 * all ASCII and not one of them, or the word folded when it is not all ASCII. Returns true to stop the scan.
 */
export type WordVisitor = (start: number, end: number, word: string | undefined) => boolean;

/**
 * Calls `visit` for each word of `text` in order (the words of the reference's `forEachWord`, those folding to
 * nothing left out), until it returns true.
 * @returns true when `visit` stopped the scan
 */
export function scanWords(text: string, set: IdentitySet, visit: WordVisitor): boolean {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const start = i;
    let c = text.charCodeAt(i);
    let end: number;
    if (c < 128) {
      let f = ASCII_FOLDED[c]!;
      if (f === 0) {
        i++;
        continue;
      }
      // An ASCII run of word characters, hashed as read.
      let h = WORD_HASH_SEED;
      do {
        h = wordHash(h, f);
        if (++i === n) break;
        c = text.charCodeAt(i);
        f = c < 128 ? ASCII_FOLDED[c]! : 0;
      } while (f !== 0);
      if (i === n || c < 128 || endsAsciiWord(text, i)) {
        if (visit(start, i, asciiWord(text, start, i, h, set))) return true;
        continue;
      }
      // A letter, mark or invisible character beyond ASCII goes on with the word: read as the reference does.
      end = wordEnd(text, i, false);
    } else {
      const cp = text.codePointAt(i)!;
      const k = classOf(cp);
      const size = cp > 0xffff ? 2 : 1;
      if (k === SEPARATOR) {
        i += size;
        continue;
      }
      end = wordEnd(text, i + size, k === SPACELESS);
    }
    i = end;
    const word = wordAt(text, start, end, false);
    if (word !== '' && visit(start, end, word)) return true;
  }
  return false;
}

/** True when the character at `i` (not ASCII) ends a word of letters before it: a separator or a spaceless character. */
function endsAsciiWord(text: string, i: number): boolean {
  const k = classOf(text.codePointAt(i)!);
  return k === SEPARATOR || k === SPACELESS;
}

/**
 * Where the word that goes on at `j` ends: at the first separator, or the first character that is not a
 * joiner when the word is a spaceless character (`spaceless`) or that character is one.
 */
function wordEnd(text: string, j: number, spaceless: boolean): number {
  const n = text.length;
  while (j < n) {
    const c = text.charCodeAt(j);
    const cp = c < 128 ? c : text.codePointAt(j)!;
    const k = classOf(cp);
    if (k === SEPARATOR || (k !== JOINER && (spaceless || k === SPACELESS))) return j;
    j += cp > 0xffff ? 2 : 1;
  }
  return n;
}

/** The set's string for the all-ASCII word `text[a, b)` of hash `h`, or undefined when the set has no such word. */
function asciiWord(text: string, a: number, b: number, h: number, set: IdentitySet): string | undefined {
  const slots = set.asciiSlots;
  const mask = slots.length - 1;
  for (let slot = h & mask; slots[slot] !== 0; slot = (slot + 1) & mask) {
    if (set.asciiHashes[slot] !== h) continue;
    const word = set.asciiWords[slots[slot]! - 1]!;
    if (word.length !== b - a) continue;
    let j = 0;
    while (j < word.length && word.charCodeAt(j) === ASCII_FOLDED[text.charCodeAt(a + j)]) j++;
    if (j === word.length) return word;
  }
  return undefined;
}

/**
 * The node of the automaton after `word` from `node`: its next node, else its failure links' (each paid for
 * by a word that added to the depth), else the root; an unknown word (undefined) leads to the root.
 */
export function nextNode(set: IdentitySet, node: number, word: string | undefined): number {
  if (word === undefined) return 0;
  let to = step(set, node, word);
  while (to === undefined && node !== 0) {
    node = set.fail[node]!;
    to = step(set, node, word);
  }
  return to ?? 0;
}

/**
 * True when `scanned` (text as {@link scannableText} leaves it: JSON escapes already spaces) contains any
 * value of `set`, by whole words (lib/identity-words.ts). One pass, stopping at the first value.
 */
export function findIdentitiesInScannable(scanned: string, set: IdentitySet): boolean {
  if (set.values === 0) return false;
  let node = 0;
  return scanWords(scanned, set, (_start, _end, word) => {
    node = nextNode(set, node, word);
    return set.longest[node] !== 0;
  });
}

/**
 * True when `text` (JSON text: escapes are read as separators) contains any value of `set`, by whole words,
 * in any case and with or without accents.
 */
export function findIdentities(text: string, set: IdentitySet): boolean {
  if (set.values === 0) return false;
  return findIdentitiesInScannable(scannableText(text), set);
}

/**
 * Free text (an expense's description or category) with every identity value of `set` replaced by
 * `[redacted]`, matched as {@link findIdentities} matches them (the words and what separates them go).
 */
export function maskIdentities(text: string, set: IdentitySet): string {
  if (set.values === 0) return text;
  // Where each value ends, by word, and where its first word starts: spans merged where they overlap.
  const starts: number[] = [];
  const stops: number[] = [];
  const spans: [number, number][] = [];
  let node = 0;
  scanWords(text, set, (a, b, word) => {
    const j = starts.length;
    starts.push(a);
    stops.push(b);
    node = nextNode(set, node, word);
    const length = set.longest[node]!;
    if (length === 0) return false;
    let first = j - length + 1;
    while (spans.length > 0 && spans.at(-1)![1] >= first) first = Math.min(first, spans.pop()![0]);
    spans.push([first, j]);
    return false;
  });
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const [a, b] of spans) {
    out += `${text.slice(at, starts[a])}[redacted]`;
    at = stops[b]!;
  }
  return out + text.slice(at);
}
