/**
 * Pools of names, entities and bank countries that investors are drawn from.
 */
import type { Rand } from './random.ts';

/** First names of individual investors. */
export const FIRST = [
  'Margaret',
  'Tomas',
  'Priya',
  'Daniel',
  'Aiko',
  'Henrik',
  'Lucia',
  'Samuel',
  'Noor',
  'Felix',
  'Ingrid',
  'Mateo',
  'Chiara',
  'Oluwaseun',
  'Elena',
  'Rafael',
  'Hannah',
  'Kenji',
  'Amara',
  'Victor',
  'Sofia',
  'Julian',
  'Yara',
  'Anders',
];
/** Surnames of individual investors. */
export const LAST = [
  'Okafor',
  'Lindqvist',
  'Raman',
  'Whitcombe',
  'Tanaka',
  'Brandt',
  'Moreau',
  'Achterberg',
  'Haddad',
  'Castellano',
  'Novak',
  'Fitzgerald',
  'Oyelaran',
  'Vasquez',
  'Kowalczyk',
  'Ashworth',
  'Delacroix',
  'Imamura',
  'Petrov',
  'Sandoval',
];
/** Words that make an entity investor's name (two of them, then an {@link ENTITY_B} suffix). */
export const ENTITY_A = [
  'Alder',
  'Birchwood',
  'Cobalt',
  'Driftstone',
  'Evergreen',
  'Foxhollow',
  'Granite',
  'Harbourview',
  'Ironbark',
  'Juniper',
  'Kestrel',
  'Larkspur',
  'Moorland',
  'Northgate',
  'Oakridge',
  'Pinecrest',
];
/** Suffixes of an entity investor's name. */
export const ENTITY_B = ['Capital LP', 'Family Office', 'Foundation', 'Endowment Trust', 'Pension Plan', 'Partners LLC', 'Holdings Ltd'];
/** Month names, January first, for expense descriptions. */
export const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
/** Country codes of investors' bank accounts (IBAN prefixes). */
export const IBAN_COUNTRIES = ['GB', 'DE', 'CH', 'NL', 'LU', 'FR', 'IE'];

/** `n` random decimal digits. */
export const digits = (r: Rand, n: number) => Array.from({ length: n }, () => Math.floor(r() * 10)).join('');
/** `n` random capital letters A–Z. */
export const letters = (r: Rand, n: number) => Array.from({ length: n }, () => String.fromCharCode(65 + Math.floor(r() * 26))).join('');
