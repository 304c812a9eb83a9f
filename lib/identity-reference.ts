/**
 * The reference identity scan (docs/fund-data.md#how-identity-values-are-matched): every word of the text
 * sliced and folded (lib/identity-words.ts), then stepped through the automaton (lib/identity-set.ts), as
 * the scan was first written. The service scans with lib/identity-scan.ts, which reads ASCII words without
 * making strings of them; the property tests hold it to this one, whose simpler reading is the definition.
 */
import { type IdentitySet, step } from './identity-set.ts';
import { forEachWord, scannableText, wordAt, wordsOf } from './identity-words.ts';

/** A word of a text as the reference reads it: `text[start, end)`, folded. */
export interface ReferenceWord {
  start: number;
  end: number;
  word: string;
}

/** The words of `text` that are not empty once folded, in order, with where each is. */
export function referenceWords(text: string): ReferenceWord[] {
  const out: ReferenceWord[] = [];
  forEachWord(text, (start, end, ascii) => {
    const word = wordAt(text, start, end, ascii);
    if (word !== '') out.push({ start, end, word });
  });
  return out;
}

/**
 * Where identity values are in a sequence of words: the spans `[first, last]` (word indexes, inclusive),
 * merged where they overlap, in order. Linear: one step of the automaton per word, plus failure links, of
 * which a word pays for at most as many as it added to the depth (so at most two look-ups a word in all).
 */
export function referenceSpans(words: readonly string[], set: IdentitySet): [number, number][] {
  const spans: [number, number][] = [];
  let node = 0;
  for (let j = 0; j < words.length; j++) {
    const word = words[j]!;
    let to = step(set, node, word);
    while (to === undefined && node !== 0) {
      node = set.fail[node]!;
      to = step(set, node, word);
    }
    node = to ?? 0;
    const length = set.longest[node]!;
    if (length === 0) continue;
    let first = j - length + 1;
    while (spans.length > 0 && spans.at(-1)![1] >= first) first = Math.min(first, spans.pop()![0]);
    spans.push([first, j]);
  }
  return spans;
}

/**
 * True when `text` (JSON text: escapes are read as separators) contains any value of `set`, by whole words,
 * in any case and with or without accents: the reference of `findIdentities` (lib/identity-scan.ts).
 */
export function findIdentitiesReference(text: string, set: IdentitySet): boolean {
  if (set.values === 0) return false;
  return referenceSpans(wordsOf(scannableText(text)), set).length > 0;
}

/**
 * Free text (an expense's description or category) with every identity value of `set` replaced by
 * `[redacted]`, matched as {@link findIdentitiesReference} matches them (the words and what separates them
 * go): the reference of `maskIdentities` (lib/identity-scan.ts).
 */
export function maskIdentitiesReference(text: string, set: IdentitySet): string {
  if (set.values === 0) return text;
  const starts: number[] = [];
  const stops: number[] = [];
  const words: string[] = [];
  for (const w of referenceWords(text)) {
    starts.push(w.start);
    stops.push(w.end);
    words.push(w.word);
  }
  const spans = referenceSpans(words, set);
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const [a, b] of spans) {
    out += `${text.slice(at, starts[a])}[redacted]`;
    at = stops[b]!;
  }
  return out + text.slice(at);
}
