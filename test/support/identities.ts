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

/** The values of an investor, in the order the store lists them. */
export const valuesOf = (i: Identity): string[] => [i.legalName, i.email, i.taxId, i.bankAccount, i.investorId];

/**
 * A description and a category naming `a` (its name in capitals, then in quotes with tabs between its words)
 * and `b` (its name over two lines, its e-mail in capitals, its bank account, internal id and tax id, and its
 * name written as one word); `a`'s name should carry accents, as stored. What they become once masked:
 * {@link MASKED_DESCRIPTION} and {@link MASKED_CATEGORY}.
 */
export function freeTextNaming(a: Identity, b: Identity): { description: string; category: string } {
  return {
    description:
      `Legal review "side letter" for ${a.legalName.toUpperCase()}; wire from ${b.legalName.split(' ').join('\r\n')} ` +
      `(${b.email.toUpperCase()}, ${b.bankAccount}) to "${a.legalName.replaceAll(' ', '\t')}", ` +
      `ref ${b.investorId.toLowerCase()}, per ${b.taxId}`,
    category: `legal: ${b.legalName.replaceAll(' ', '')}`,
  };
}

export const MASKED_DESCRIPTION =
  'Legal review "side letter" for [redacted]; wire from [redacted] ([redacted], [redacted]) to "[redacted]", ref [redacted], per [redacted]';
export const MASKED_CATEGORY = 'legal: [redacted]';

/** Lower case, JSON escapes and every run of characters other than letters, marks and digits as one space. */
function words(text: string): string {
  return ` ${text
    .replace(/\\(?:u[0-9a-fA-F]{4}|.)/g, ' ')
    .toLowerCase()
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter((w) => w !== '')
    .join(' ')} `;
}

/**
 * Asserts that `text` (an answer's JSON) holds no identity value of `investors`: neither verbatim in any case
 * nor as its words in sequence whatever separates them. Values under 4 letters and digits are not looked for.
 */
export function expectNoIdentity(text: string, investors: readonly Identity[]): void {
  const lower = text.toLowerCase();
  const inWords = words(text);
  for (const value of investors.flatMap(valuesOf)) {
    const w = words(value);
    if (w.replaceAll(' ', '').length < 4) continue;
    expect(lower, value).not.toContain(value.toLowerCase());
    expect(inWords, value).not.toContain(w);
  }
}
