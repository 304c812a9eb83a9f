/**
 * How the redaction finds a fund's identity values in text (docs/fund-data.md#how-identity-values-are-matched):
 * the words of a text, as the scan reads and compares them, and the identity set compiled into an
 * Aho-Corasick automaton over those words, so that a text is scanned in one pass whatever the number and the
 * length of the values. Used by lib/redaction.ts, which exports what the rest of the service needs.
 */

/**
 * A character of a word of the scan: a letter, a combining mark, a digit (any script) or an invisible
 * character (`\p{Cf}`: a soft hyphen, a zero-width space or joiner, a bidi mark; `\p{DI}`, default-ignorable:
 * also the Hangul fillers, which are letters, and the unassigned code points reserved as invisible), which
 * shows nothing on screen and so must neither split a word nor hide it (it is dropped as the word is compared,
 * {@link foldWord}). Words are runs of them; everything else (spaces, line breaks, punctuation, a JSON escape
 * read as a space) separates words.
 */
export const WORD_CHARACTER: RegExp = /^[\p{L}\p{M}\p{N}\p{Cf}\p{DI}]$/u;
/** A word character that joins the word before it: a combining mark or an invisible character. */
const JOINER_CHARACTER = /^[\p{M}\p{Cf}\p{DI}]$/u;
/**
 * A character of a script written without spaces between words (Han, Hiragana, Katakana, Hangul, Thai, Lao,
 * Khmer, Myanmar, by script extension, so the kana length mark `ー` counts): each is a word of its own, with
 * the marks that follow it, so a name is found as a run of them inside a sentence.
 */
export const SPACELESS_CHARACTER: RegExp =
  /^[\p{scx=Han}\p{scx=Hira}\p{scx=Kana}\p{scx=Hang}\p{scx=Thai}\p{scx=Laoo}\p{scx=Khmr}\p{scx=Mymr}]$/u;

/** What a character is to the scan. */
const SEPARATOR = 0;
const LETTER = 1;
const SPACELESS = 2;
const JOINER = 3;

/**
 * A Hangul vowel or final consonant as a letter of its own (conjoining jamo): a syllable decomposed (NFD, as
 * macOS file names write Korean) is its initial consonant followed by these, which join it as marks do.
 */
const HANGUL_VOWEL_OR_FINAL = /^[\u1161-\u11FF\uD7B0-\uD7FF]$/;

/**
 * Apostrophes and primes that Unicode files as modifier letters (`ʹ ʺ ʻ ʼ ʽ ʾ ʿ ˈ`: the Ukrainian apostrophe,
 * the Hawaiian ʻokina): they separate words as `'` does, so `Марʼяна` reads as `Мар'яна` and `Kaʻiulani` as
 * `Ka'iulani`.
 */
const APOSTROPHE_LETTER = /^[\u02B9-\u02BF\u02C8]$/;

function classify(cp: number): number {
  const ch = String.fromCodePoint(cp);
  if (!WORD_CHARACTER.test(ch) || APOSTROPHE_LETTER.test(ch)) return SEPARATOR;
  if (JOINER_CHARACTER.test(ch) || HANGUL_VOWEL_OR_FINAL.test(ch)) return JOINER;
  return SPACELESS_CHARACTER.test(ch) ? SPACELESS : LETTER;
}

/**
 * The class of each code point of the Basic Multilingual Plane plus one, filled as they are met (0: not yet):
 * a table look-up per character rather than three pattern tests. Plain data, the same in every request.
 */
const BMP_CLASS = new Uint8Array(0x10000);
for (let c = 0; c < 128; c++) BMP_CLASS[c] = classify(c) + 1;

function classOf(cp: number): number {
  if (cp > 0xffff) return classify(cp);
  let k = BMP_CLASS[cp]!;
  if (k === 0) BMP_CLASS[cp] = k = classify(cp) + 1;
  return k - 1;
}

/**
 * Calls `found(start, end, ascii, spaceless)` for each word of `text`, in order: a run of
 * {@link WORD_CHARACTER}s, except that a character of a script written without spaces
 * ({@link SPACELESS_CHARACTER}) is a word of its own with the marks and format characters that follow it;
 * `ascii` says whether the word is all ASCII, `spaceless` whether it is such a character. One pass, a table
 * look-up per character.
 */
function forEachWord(text: string, found: (start: number, end: number, ascii: boolean, spaceless: boolean) => void): void {
  let start = -1;
  let ascii = true;
  let spaceless = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const cp = c < 128 ? c : text.codePointAt(i)!;
    const k = c < 128 ? BMP_CLASS[c]! - 1 : classOf(cp);
    if (start >= 0 && (k === SEPARATOR || (k !== JOINER && (spaceless || k === SPACELESS)))) {
      found(start, i, ascii, spaceless);
      start = -1;
    }
    if (k !== SEPARATOR && start < 0) {
      start = i;
      ascii = true;
      spaceless = k === SPACELESS;
    }
    if (c >= 128) ascii = false;
    if (cp > 0xffff) i++;
  }
  if (start >= 0) found(start, text.length, ascii, spaceless);
}

/**
 * Combining marks, dropped from a word once decomposed (NFD): `é` reads as `e`, `Å` as `a`; invisible
 * characters (format and default-ignorable), dropped wherever they are; and the Arabic tatweel, which only
 * stretches the letters it joins (`محــمد` shows `محمد`).
 */
const MARKS = /[\p{M}\p{Cf}\p{DI}\u0640]/gu;
/** Each letter of `from` read as the Latin letter at the same place in `to`. */
const lookalikes = (from: string, to: string) => Object.fromEntries([...from].map((c, i) => [c, to[i]!]));
/**
 * Lower-case letters read as other letters: those whose case folding (Unicode CaseFolding.txt, with the
 * Turkic dotless i) is not themselves, `ß` as `ss` (its upper case is `SS`), final `ς` as `σ`, `ı` as `i` (its
 * upper case is `I`); and the Latin letters with a stroke or a ligature, which have no accent for NFKD to
 * take off, as the letters they are written as where a keyboard lacks them (`ø` as `o`, `ł` as `l`, `æ` as
 * `ae`); and the Cyrillic and Greek letters drawn as a Latin one, in either case (homoglyphs: Cyrillic `а`,
 * `М`, Greek `Ο`), as that letter, so that `Mаrgaret` with a Cyrillic `а`, which a screen shows as the name,
 * reads as it (a Cyrillic or Greek name reads the same way stored and answered, so it is still found).
 */
const FOLDED_AS: Readonly<Record<string, string>> = {
  ...{ ß: 'ss', ς: 'σ', ı: 'i', ø: 'o', ł: 'l', đ: 'd', ð: 'd', ħ: 'h', ŧ: 't', æ: 'ae', œ: 'oe', þ: 'th' },
  ...lookalikes('авекмнорстухіјѕһԁԛԝӏү', 'abekmhopctyxijshdqwly'), // Cyrillic
  ...lookalikes('αβεζηικμνορτυχ', 'abezhikmnoptyx'), // Greek
};
/** Those letters, and a decimal digit of another script than ASCII (Arabic-Indic `٠١٢`, Devanagari `०१२`, ...). */
const FOLDED_OR_DIGIT = /[ßςıøłđðħŧæœþавекмнорстухіјѕһԁԛԝӏүαβεζηικμνορτυχ]|[^\P{Nd}0-9]/gu;
/** The ASCII digit of each decimal digit of another script, as met: plain data. */
const DIGIT_OF = new Map<string, string>();
const ND = /^\p{Nd}$/u;

/**
 * The ASCII digit a decimal digit of any script stands for. Unicode encodes each script's digits as a run of
 * ten, 0 to 9, so the value is the distance from the start of the run of digits it is in, modulo 10.
 */
function asciiDigit(d: string): string {
  const cp = d.codePointAt(0)!;
  let zero = cp;
  if (!DIGIT_OF.has(d)) while (cp - zero < 100 && ND.test(String.fromCodePoint(zero - 1))) zero--;
  return DIGIT_OF.get(d) ?? DIGIT_OF.set(d, String((cp - zero) % 10)).get(d)!;
}

/**
 * A word as the scan compares it: in lower case and, when it is not all ASCII, decomposed with its
 * compatibility forms (NFKD), case folded, its combining marks and invisible characters dropped and its
 * digits read as ASCII, so that accents are ignored, either Unicode form of a letter matches, full-width
 * `ＯＫＡＦＯＲ`, half-width `ﾀﾅｶ`, a ligature `ﬁ` and mathematical `𝐎𝐤𝐚𝐟𝐨𝐫` read as the letters they show,
 * `STRAUSS` as `Strauß`, `IŞIK` as `Işık`, `Mar\u00ADgaret` reads as `margaret` and `٠٧٨` as `078`; a word of
 * marks alone reads as no word ('').
 */
function foldWord(word: string, ascii: boolean): string {
  const lower = word.toLowerCase();
  if (ascii) return lower;
  // Lowered again once decomposed: mathematical letters have no case of their own but decompose to ASCII.
  return lower
    .normalize('NFKD')
    .toLowerCase()
    .replace(MARKS, '')
    .replace(FOLDED_OR_DIGIT, (c) => FOLDED_AS[c] ?? asciiDigit(c));
}

/** Each character of the Basic Multilingual Plane that is a word of its own, folded, as met: plain data. */
const FOLDED_CHARACTER: (string | undefined)[] = [];

/** The word `text[a, b)` folded ({@link foldWord}); a lone character of a spaceless script from a table. */
function wordAt(text: string, a: number, b: number, ascii: boolean): string {
  if (b - a !== 1 || ascii) return foldWord(text.slice(a, b), ascii);
  const c = text.charCodeAt(a);
  let folded = FOLDED_CHARACTER[c];
  if (folded === undefined) FOLDED_CHARACTER[c] = folded = foldWord(text[a]!, false);
  return folded;
}

/** The words of `text` as the scan compares them ({@link foldWord}), in order; with `spaceless`, which are. */
function wordsOf(text: string, spaceless?: boolean[]): string[] {
  const words: string[] = [];
  forEachWord(text, (a, b, ascii, single) => {
    const word = wordAt(text, a, b, ascii);
    if (word === '') return;
    words.push(word);
    spaceless?.push(single);
  });
  return words;
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
 * The shortest identity value the scan looks for, in letters and digits (its words joined); the shortest one
 * made of digits only; and the shortest one written wholly in a script without spaces, in characters (a
 * Chinese or Korean name of two). Shorter values cannot be told from ordinary words and figures (an internal
 * id `17` is in every other amount), so they are not looked for (docs/fund-data.md#how-identity-values-are-matched).
 */
export const MIN_IDENTITY_CHARS = 4;
export const MIN_IDENTITY_DIGITS = 6;
export const MIN_SPACELESS_CHARS = 2;

/**
 * A fund's identity values compiled for the scan: an Aho-Corasick automaton (Aho and Corasick, "Efficient
 * string matching", CACM 18(6), 1975) whose symbols are words (as {@link foldWord} reads them): a trie of the
 * values' words, with each node's failure link and the longest value it ends. Plain data (maps and arrays of
 * strings and numbers), built once per identity set and shared by every request of the isolate.
 */
export interface IdentitySet {
  /** The next words of the nodes with more than one (node 0, the root, always), and the nodes they lead to. */
  readonly children: readonly (ReadonlyMap<string, number> | undefined)[];
  /** The one next word of each other node that has one (most nodes), and the node it leads to. */
  readonly onlyWord: readonly (string | undefined)[];
  readonly onlyTo: readonly number[];
  /** Each node's failure link: the node of the longest proper suffix of its words that is in the trie. */
  readonly fail: Int32Array;
  /** The words of the longest value that ends at each node, its own or through its failure links (0: none). */
  readonly longest: Int32Array;
  /** How many values were compiled (for the bench and tests). */
  readonly values: number;
}

/** A character that is neither a space nor of a word (an apostrophe, a hyphen): a value's parts may join. */
const NOT_SPACE_OR_WORD = /[^\s\p{L}\p{M}\p{N}]|[\u02B9-\u02BF\u02C8]/u;

/** The most words a value may have to be looked for with any of its neighbouring words written together. */
const MAX_COMPOSED_WORDS = 4;

/** A value's words with some neighbours written together: each grouping but all apart and all together. */
function compositions(words: readonly string[]): string[][] {
  const out: string[][] = [];
  for (let glue = 1; glue < 2 ** (words.length - 1) - 1; glue++) {
    const groups = [words[0]!];
    for (let i = 1; i < words.length; i++) groups.push(glue & (1 << (i - 1)) ? groups.pop()! + words[i] : words[i]!);
    out.push(groups);
  }
  return out;
}

type Trie = Pick<IdentitySet, 'children' | 'onlyWord' | 'onlyTo'>;

/** The node `word` leads to from `node`, if any. */
function step(set: Trie, node: number, word: string): number | undefined {
  const map = set.children[node];
  if (map) return map.get(word);
  return set.onlyWord[node] === word ? set.onlyTo[node] : undefined;
}

/**
 * Compiles identity values for {@link findIdentities}. Each value is looked for as its sequence of words,
 * whatever separates them in the text, and, unless it has a character of a script written without spaces,
 * as its words written together (`MargaretOkafor`, `078659703`), and, of up to {@link MAX_COMPOSED_WORDS}
 * words, with any of its neighbouring words written together (`MaryAnn Smith`, `Sean OBrien` for
 * `Sean O'Brien`), a longer one with its space-separated parts each written together (`Jeanpierre Dupont de
 * la Tour`), always by whole words. Left out: a value
 * below {@link MIN_IDENTITY_CHARS} letters and digits, or digits only below {@link MIN_IDENTITY_DIGITS}, or,
 * written wholly in scripts without spaces, below {@link MIN_SPACELESS_CHARS} characters. A value's words are
 * the same whether it is read as stored or as the JSON text of an answer writes it.
 */
export function identitySet(values: Iterable<string>): IdentitySet {
  const children: (Map<string, number> | undefined)[] = [new Map()];
  const onlyWord: (string | undefined)[] = [undefined];
  const onlyTo: number[] = [0];
  const depth: number[] = [0];
  const ends: boolean[] = [false];
  const trie: Trie = { children, onlyWord, onlyTo };
  let count = 0;
  const add = (words: readonly string[]) => {
    let node = 0;
    for (const word of words) {
      let to = step(trie, node, word);
      if (to === undefined) {
        to = ends.length;
        ends.push(false);
        depth.push(depth[node]! + 1);
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
  };
  for (const value of values) {
    const spaceless: boolean[] = [];
    const words = wordsOf(value, spaceless);
    const joined = words.join('');
    const tooShort =
      spaceless.length > 0 && spaceless.every(Boolean)
        ? words.length < MIN_SPACELESS_CHARS
        : joined.length < MIN_IDENTITY_CHARS || (joined.length < MIN_IDENTITY_DIGITS && /^\d+$/.test(joined));
    if (tooShort) continue;
    add(words);
    if (words.length > 1 && !spaceless.includes(true)) {
      add([joined]);
      // A name (spaces in it) of up to 4 words with any neighbouring words written together (`MaryAnn Smith`).
      if (words.length <= MAX_COMPOSED_WORDS && /\s/.test(value)) for (const groups of compositions(words)) add(groups);
      // The parts of a longer name joined by an apostrophe or a hyphen, written together (`O'Brien` as `OBrien`).
      const long = words.length > MAX_COMPOSED_WORDS && NOT_SPACE_OR_WORD.test(value);
      const parts = long ? value.split(/\s+/).map((part) => wordsOf(part).join('')) : [];
      if (parts.length > 1 && parts.length < words.length && !parts.includes('')) add(parts);
    }
    count++;
  }
  // Failure links breadth first: a node's link is found from its parent's, each word paying at most once.
  const fail = new Int32Array(ends.length);
  const longest = new Int32Array(ends.length);
  const queue = new Int32Array(ends.length);
  let queued = 1;
  const link = (node: number, word: string, to: number) => {
    let target: number | undefined;
    for (let f = fail[node]!; node !== 0; f = fail[f]!) {
      target = step(trie, f, word);
      if (target !== undefined || f === 0) break;
    }
    fail[to] = target ?? 0;
    longest[to] = ends[to] ? depth[to]! : longest[fail[to]!]!;
    queue[queued++] = to;
  };
  for (let q = 0; q < queued; q++) {
    const node = queue[q]!;
    const map = children[node];
    if (map) for (const [word, to] of map) link(node, word, to);
    else if (onlyWord[node] !== undefined) link(node, onlyWord[node], onlyTo[node]!);
  }
  return { children, onlyWord, onlyTo, fail, longest, values: count };
}

/** The empty identity set (nothing to look for). */
export const NO_IDENTITIES: IdentitySet = identitySet([]);

/**
 * Where identity values are in a sequence of words: the spans `[first, last]` (word indexes, inclusive),
 * merged where they overlap, in order. Linear: one step of the automaton per word, plus failure links, of
 * which a word pays for at most as many as it added to the depth (so at most two look-ups a word in all).
 */
function spansOf(words: readonly string[], set: IdentitySet): [number, number][] {
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
 * in any case and with or without accents.
 */
export function findIdentities(text: string, set: IdentitySet): boolean {
  if (set.values === 0) return false;
  return spansOf(wordsOf(scannableText(text)), set).length > 0;
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
    const word = wordAt(text, a, b, ascii);
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
