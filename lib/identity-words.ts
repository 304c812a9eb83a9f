/**
 * The words of a text as the identity scan reads and compares them (docs/fund-data.md#how-identity-values-are-matched):
 * what a character is to the scan, where words start and end, and how a word is folded (case, accents,
 * compatibility forms, digits of every script) before it is compared. Used by lib/identity-set.ts, which
 * compiles the values' words, and lib/identity-scan.ts, which reads an answer's.
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

/**
 * What a character is to the scan ({@link classOf}): a separator, a letter or digit, a character of a script
 * written without spaces ({@link SPACELESS_CHARACTER}), or a character that joins the word before it.
 */
export const SEPARATOR = 0;
export const LETTER = 1;
export const SPACELESS = 2;
export const JOINER = 3;

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

/**
 * Each ASCII character as a word's character compares it ({@link foldWord} of an all-ASCII word: lower case),
 * or 0 when it separates words (ASCII has no letter of a script without spaces and no joiner): the table
 * the scan reads an ASCII word's characters through, with no string made for the word.
 */
export const ASCII_FOLDED: Uint8Array = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if (classify(c) === SEPARATOR) continue;
  if (classify(c) !== LETTER) throw new Error('an ASCII character that is a joiner or spaceless');
  ASCII_FOLDED[c] = String.fromCharCode(c).toLowerCase().charCodeAt(0);
}

/** The class of code point `cp` ({@link SEPARATOR}, {@link LETTER}, {@link SPACELESS} or {@link JOINER}). */
export function classOf(cp: number): number {
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
export function forEachWord(text: string, found: (start: number, end: number, ascii: boolean, spaceless: boolean) => void): void {
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
export function wordAt(text: string, a: number, b: number, ascii: boolean): string {
  if (b - a !== 1 || ascii) return foldWord(text.slice(a, b), ascii);
  const c = text.charCodeAt(a);
  let folded = FOLDED_CHARACTER[c];
  if (folded === undefined) FOLDED_CHARACTER[c] = folded = foldWord(text[a]!, false);
  return folded;
}

/** The words of `text` as the scan compares them ({@link foldWord}), in order; with `spaceless`, which are. */
export function wordsOf(text: string, spaceless?: boolean[]): string[] {
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
  // Most answers have no escape at all: a search for a backslash is much cheaper than the pattern's pass.
  return json.includes('\\') ? json.replace(/\\(?:u[0-9a-fA-F]{4}|.)/g, ' ') : json;
}
