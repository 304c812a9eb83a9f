/**
 * The identity scan's fast path (lib/identity-scan.ts: ASCII words hashed as read and looked up without a
 * string made for them) against the reference scan it replaced (lib/identity-reference.ts: every word
 * sliced and folded). Proves, as fast-check properties over text of ASCII, JSON, accents, marks, invisible
 * characters, scripts without spaces, surrogate pairs and lone surrogates, and over identity sets drawn from
 * the same characters and from the text itself, that:
 * - the fast path reads exactly the reference's words, at the same places, each the set's own word or,
 *   for an ASCII word the set does not have, none;
 * - `findIdentities` and `maskIdentities` give exactly the reference's answers;
 * - `redact`, which searches a text with a forbidden shape's pattern only when the text has a character the
 *   pattern needs, refuses exactly the texts one of the patterns matches;
 * and, by example, that digit-only values (account numbers, tax ids) are found inside a NAV-history-shaped
 * answer of figures and dates, and that a word beyond ASCII glued to ASCII letters is one word.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as z from 'zod';
import { RedactionFailedError } from '../lib/errors.ts';
import { FORBIDDEN_SHAPES, redact, scannableText } from '../lib/redaction.ts';
import { findIdentitiesReference, maskIdentitiesReference, referenceWords } from '../lib/identity-reference.ts';
import { findIdentities, maskIdentities, scanWords } from '../lib/identity-scan.ts';
import { identitySet, type IdentitySet } from '../lib/identity-set.ts';

/** Characters that exercise every branch of the word reading: ASCII, then each kind beyond it. */
const SPECIAL = [
  'é',
  'É',
  'Å',
  'ß',
  'ı',
  'İ',
  'ø',
  'æ',
  'а',
  'М',
  'Ο',
  'ς', // letters folded to others (accents, case, homoglyphs)
  '\u0301',
  '\u00AD',
  '\u200B',
  '\u200D',
  '\u0640',
  'ʼ',
  'ʻ', // marks, invisible characters, tatweel, apostrophe letters
  '王',
  '小',
  '明',
  '山',
  'ー',
  '한',
  '\u1161',
  'ก', // scripts without spaces, a kana length mark, a Hangul vowel
  'Ａ',
  '１',
  'ﬁ',
  '٠',
  '٧',
  '०',
  '𝐎',
  '𝐤',
  '😀', // compatibility forms, digits of other scripts, surrogate pairs
  '\uD800',
  '\uDC00',
  '\u2028',
  '\u3000',
  '\\',
  '"', // lone surrogates, separators beyond ASCII, JSON escapes
];
const ASCII = 'abcXYZ0123456789 -_.,:;"\'@{}[]\n\t\\/';
const character = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...ASCII) },
  { weight: 3, arbitrary: fc.constantFrom(...SPECIAL) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
);
const text = fc.array(character, { maxLength: 80 }).map((cs) => cs.join(''));
/** A short text whose words repeat often (few letters), so sets built from text share words with it. */
const wordy = fc
  .array(fc.oneof(fc.constantFrom('ab', 'Ab', 'ba', '12', '0012', 'ab12', 'é', 'Ab\u0301', '王', '小', ' ', '-', ' '), character), {
    maxLength: 40,
  })
  .map((cs) => cs.join(''));

/** A text and an identity set of values drawn from the same characters and from pieces of the text. */
const textAndSet = fc
  .tuple(wordy, text, fc.array(fc.oneof(wordy, text), { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 4 }))
  .map(([a, b, values, cuts]) => {
    const t = `${a}${b}`;
    const pieces = cuts.map((c, i) => t.slice(c % (t.length + 1), (c % (t.length + 1)) + 3 + 4 * i));
    return { text: t, values: [...values, ...pieces] };
  });

function fastWords(t: string, set: IdentitySet) {
  const out: { start: number; end: number; word: string | undefined }[] = [];
  scanWords(t, set, (start, end, word) => {
    out.push({ start, end, word });
    return false;
  });
  return out;
}

const isAscii = (s: string) => [...s].every((ch) => ch.charCodeAt(0) < 128);

describe('the fast path of the identity scan against the reference scan', () => {
  it('property: reads exactly the reference words, each the set’s own word or (ASCII and not the set’s) none', () => {
    fc.assert(
      fc.property(textAndSet, ({ text: t, values }) => {
        const set = identitySet(values);
        const ref = referenceWords(t);
        const fast = fastWords(t, set);
        expect(fast.map(({ start, end }) => [start, end])).toEqual(ref.map(({ start, end }) => [start, end]));
        fast.forEach((w, i) => {
          const r = ref[i]!;
          const unknownAscii = isAscii(t.slice(r.start, r.end)) && !set.asciiWords.includes(r.word);
          expect(w.word).toBe(unknownAscii ? undefined : r.word);
        });
      }),
      { numRuns: 2000 },
    );
  });

  it('property: findIdentities and maskIdentities answer exactly as the reference', () => {
    fc.assert(
      fc.property(textAndSet, ({ text: t, values }) => {
        const set = identitySet(values);
        expect(findIdentities(t, set)).toBe(findIdentitiesReference(t, set));
        expect(findIdentities(JSON.stringify({ t }), set)).toBe(findIdentitiesReference(JSON.stringify({ t }), set));
        expect(maskIdentities(t, set)).toBe(maskIdentitiesReference(t, set));
      }),
      { numRuns: 2000 },
    );
  });

  it('property: a value inserted into JSON figures and dates is found by both, whatever surrounds it', () => {
    const figures = fc.array(fc.tuple(fc.integer(), fc.nat(99), fc.boolean()), { maxLength: 30 });
    const value = fc.oneof(fc.stringMatching(/^\d{6,12}$/), fc.stringMatching(/^\d{2,3}-\d{2,7}(-\d{4})?$/), wordy);
    fc.assert(
      fc.property(figures, value, fc.nat(), (rows, v, at) => {
        const set = identitySet([v, 'Margaret Okafor']);
        const runs = rows.map(([a, b, ok]) => ({ navDate: '2026-10-31', shadowNav: `${a}.${String(b).padStart(2, '0')}`, ok }));
        const plain = JSON.stringify({ runs });
        const cut = at % (plain.length + 1);
        for (const t of [plain, `${plain.slice(0, cut)} ${v} ${plain.slice(cut)}`]) {
          expect(findIdentities(t, set)).toBe(findIdentitiesReference(t, set));
          expect(maskIdentities(t, set)).toBe(maskIdentitiesReference(t, set));
        }
        if (set.values === 2) expect(findIdentities(`${plain} ${JSON.stringify(v)}`, set)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('finds digit-only values among the figures of a NAV history, and only whole ones', () => {
    const set = identitySet(['078659703', '941-27-5531', 'GB00BANK000010000000000', 'INV-00001']);
    const row = (nav: string) => `{"navDate":"2026-10-31","status":"complete","shadowNav":"${nav}","differenceBps":0.37}`;
    const answer = (nav: string) => `{"currency":"USD","runs":[${row('250000000.45')},${row(nav)}]}`;
    expect(findIdentities(answer('2078659703.12'), set)).toBe(false);
    expect(findIdentities(answer('078659703.12'), set)).toBe(true);
    expect(findIdentities(answer('941.27'), set)).toBe(false);
    expect(findIdentities(answer('941-27-5531'), set)).toBe(true);
    expect(findIdentities(answer('9412755310'), set)).toBe(false);
    expect(findIdentities(answer('941275531'), set)).toBe(true); // the words written together
    expect(findIdentities(answer('gb00bank000010000000000'), set)).toBe(true);
    expect(findIdentities(answer('inv 00001'), set)).toBe(true);
    expect(findIdentities(answer('inv 000010'), set)).toBe(false);
  });

  it('reads an ASCII run that goes on beyond ASCII as one word, folded as the reference folds it', () => {
    const set = identitySet(['Zoe Angstrom', 'Mark Twain']);
    expect(findIdentities('{"n":"Zoë Ångström"}', set)).toBe(true);
    expect(findIdentities('{"n":"Zoë\u0301 Angstrom"}', set)).toBe(true); // a combining mark joins the word
    expect(findIdentities('{"n":"Mаrk Twain"}', set)).toBe(true); // Cyrillic а
    expect(findIdentities('{"n":"Mark王 Twain"}', set)).toBe(false); // a Han character is a word of its own
    expect(findIdentities('{"n":"Markx Twain"}', set)).toBe(false);
    expect(fastWords('ab王cd\u00ADef', set).map((w) => w.end)).toEqual([2, 3, 8]);
  });

  it('property: redact refuses a shape exactly when one of the patterns matches the scanned JSON', () => {
    const schema = z.strictObject({ t: z.string() });
    const shapeParts = fc.constantFrom('a@b.co', '123-45-6789', '12-3456789', 'GB29NWBK60161331926819', 'SVC_DK_x', '@', '-', '_');
    const t = fc.array(fc.oneof(shapeParts, text), { maxLength: 6 }).map((xs) => xs.join(' '));
    fc.assert(
      fc.property(t, (s) => {
        const scanned = scannableText(JSON.stringify({ t: s }));
        const expected = FORBIDDEN_SHAPES.some((re) => re.test(scanned));
        let refused = false;
        try {
          redact(schema, { t: s }, []);
        } catch (e) {
          expect(e).toBeInstanceOf(RedactionFailedError);
          refused = true;
        }
        expect(refused).toBe(expected);
      }),
      { numRuns: 1000 },
    );
  });
});
