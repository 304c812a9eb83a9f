/**
 * Pools of names, entities and bank countries that investors are drawn from.
 */
import type { Rand } from './random.ts';

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
export const ENTITY_B = ['Capital LP', 'Family Office', 'Foundation', 'Endowment Trust', 'Pension Plan', 'Partners LLC', 'Holdings Ltd'];
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
export const IBAN_COUNTRIES = ['GB', 'DE', 'CH', 'NL', 'LU', 'FR', 'IE'];

export const digits = (r: Rand, n: number) => Array.from({ length: n }, () => Math.floor(r() * 10)).join('');
export const letters = (r: Rand, n: number) => Array.from({ length: n }, () => String.fromCharCode(65 + Math.floor(r() * 26))).join('');
