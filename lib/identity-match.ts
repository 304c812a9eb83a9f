/**
 * How the redaction finds a fund's identity values in text (docs/fund-data.md#how-identity-values-are-matched),
 * by concern: the words of a text, as the scan reads and compares them (lib/identity-words.ts); the identity
 * set compiled into an Aho-Corasick automaton over those words (lib/identity-set.ts), so that a text is
 * scanned in one pass whatever the number and the length of the values; the scan itself, which reads ASCII
 * words without making strings of them (lib/identity-scan.ts); and the reference scan the property tests
 * hold it to (lib/identity-reference.ts). Used by lib/redaction.ts, which exports what the rest of the
 * service needs.
 */
export { findIdentities, findIdentitiesInScannable, maskIdentities } from './identity-scan.ts';
export {
  identitySet,
  MIN_IDENTITY_CHARS,
  MIN_IDENTITY_DIGITS,
  MIN_SPACELESS_CHARS,
  NO_IDENTITIES,
  type IdentitySet,
} from './identity-set.ts';
export { scannableText, SPACELESS_CHARACTER, WORD_CHARACTER } from './identity-words.ts';
