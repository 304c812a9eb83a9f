/**
 * Investors' identity values in free text, for the identity-scan tests of both stores and of the Worker
 * (docs/fund-data.md#redaction-fail-closed): the text that names them in every way the scan must catch, and a check,
 * written apart from the scan, that an answer holds none of them.
 */
import { expect } from 'vitest';

/** An investor's identity values. */
export interface Identity {
  investorId: string;
  legalName: string;
  email: string;
  taxId: string;
  bankAccount: string;
}

/** An investor with an accented name, as stored (NFC), that the identity-scan tests add to a fund. */
export const ZOE: Identity & { shareClassId: string } = {
  investorId: 'INV-9001',
  shareClassId: 'A',
  legalName: 'Zoë Ångström-Øvergård',
  email: 'zoe.angstrom@example.org',
  taxId: '941-27-5531',
  bankAccount: 'NO9386011117947',
};

/**
 * Investors whose names are written in scripts with no spaces between words, as the identity-scan tests add
 * them to a fund: a Chinese name of 3 characters and a Japanese one stored with a space between the family
 * and the given name (a sentence of either script writes them without one).
 */
export const WANG: Identity & { shareClassId: string } = {
  investorId: 'INV-9002',
  shareClassId: 'A',
  legalName: '王小明',
  email: 'wang.xiaoming@example.cn',
  taxId: '512-44-0917',
  bankAccount: 'DE44500105175407324931',
};
export const YAMADA: Identity & { shareClassId: string } = {
  investorId: 'INV-9003',
  shareClassId: 'A',
  legalName: '山田 太郎',
  email: 'taro.yamada@example.jp',
  taxId: '733-18-6620',
  bankAccount: 'FR7630006000011234567890189',
};

/** The values of an investor, in the order the store lists them. */
export const valuesOf = (i: Identity): string[] => [i.legalName, i.email, i.taxId, i.bankAccount, i.investorId];

/**
 * A description and a category naming `a` (its name in capitals, then in quotes with tabs between its words)
 * and `b` (its name over two lines, its e-mail in capitals, its bank account, internal id and tax id, and its
 * name written as one word), then {@link WANG} and {@link YAMADA} inside sentences of their scripts, with no
 * space around or within their names, and an account number in full-width digits; `a`'s name should carry
 * accents, as stored. What they become once masked: {@link MASKED_DESCRIPTION} and {@link MASKED_CATEGORY}.
 */
export function freeTextNaming(a: Identity, b: Identity): { description: string; category: string } {
  return {
    description:
      `Legal review "side letter" for ${a.legalName.toUpperCase()}; wire from ${b.legalName.split(' ').join('\r\n')} ` +
      `(${b.email.toUpperCase()}, ${b.bankAccount}) to "${a.legalName.replaceAll(' ', '\t')}", ` +
      `ref ${b.investorId.toLowerCase()}, per ${b.taxId}; 付款给${WANG.legalName}先生，${YAMADA.legalName.replace(' ', '')}様への送金、` +
      '口座１２３４５６７８ (２０２６－０３－３１)',
    category: `legal: ${b.legalName.replaceAll(' ', '')} ${YAMADA.legalName.replace(' ', '\u200B')}様`,
  };
}

export const MASKED_DESCRIPTION =
  'Legal review "side letter" for [redacted]; wire from [redacted] ([redacted], [redacted]) to "[redacted]", ref [redacted], per [redacted]; ' +
  '付款给[redacted]先生，[redacted]様への送金、口座[redacted] (２０２６－０３－３１)';
export const MASKED_CATEGORY = 'legal: [redacted] [redacted]様';

/** Lower case, JSON escapes and every run of characters other than letters, marks and digits as one space. */
function words(text: string): string {
  return ` ${text
    .replace(/\\(?:u[0-9a-fA-F]{4}|.)/g, ' ')
    .toLowerCase()
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter((w) => w !== '')
    .join(' ')} `;
}

/** A value in a script written without spaces (Han, kana, Hangul, Thai, Lao, Khmer, Myanmar). */
const SPACELESS = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}]/u;

/**
 * Asserts that `text` (an answer's JSON) holds no identity value of `investors`: neither verbatim in any case
 * nor as its words in sequence whatever separates them, nor, for a value in a script written without spaces,
 * its letters with nothing between them. Values under 4 letters and digits (2 in those scripts) are not
 * looked for.
 */
export function expectNoIdentity(text: string, investors: readonly Identity[]): void {
  const lower = text.toLowerCase();
  const inWords = words(text);
  for (const value of investors.flatMap(valuesOf)) {
    const w = words(value);
    const spaceless = SPACELESS.test(value);
    if (w.replaceAll(' ', '').length < (spaceless ? 2 : 4)) continue;
    expect(lower, value).not.toContain(value.toLowerCase());
    expect(inWords, value).not.toContain(w);
    if (spaceless) expect(inWords.replaceAll(' ', ''), value).not.toContain(w.replaceAll(' ', ''));
  }
}
