/**
 * The stored form of an identity set (lib/identity-set-form.ts): a loaded set is the compiled one, field for
 * field (so it finds and masks exactly what the compiled one does); a damaged text (its digest no longer its
 * document's), a foreign one, and a set compiled where a character of its values reads otherwise (another
 * engine's Unicode data) are refused; and the digest of the compiler's sources that names the format is the
 * digest of the sources as they are.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { IDENTITY_SET_FORMAT, IDENTITY_SET_SOURCES, engineReading, identitySetText, loadIdentitySet } from '../lib/identity-set-form.ts';
import { identitySet } from '../lib/identity-set.ts';
import { findIdentities, maskIdentities } from '../lib/identity-scan.ts';
import { sha256Hex } from '../lib/digest.ts';

const ROOT = join(import.meta.dirname, '..');

/** The digest {@link IDENTITY_SET_SOURCES} must hold: the three sources, the form's own digest left out. */
function sourcesDigest(): string {
  const hash = createHash('sha256');
  for (const file of ['lib/identity-words.ts', 'lib/identity-set.ts', 'lib/identity-set-form.ts']) {
    const text = readFileSync(join(ROOT, file), 'utf8').replace(/(IDENTITY_SET_SOURCES = )'[^']*'/, "$1''");
    hash.update(`${file}\n`).update(text);
  }
  return `sha256:${hash.digest('hex')}`;
}

/** Words of names, e-mails and ids, with accents, scripts without spaces, apostrophes and digits of other scripts. */
const piece = fc.constantFrom(
  'Margaret',
  'Okafor',
  "O'Brien",
  'Jean-Pierre',
  'Ünal',
  'ßtraße',
  '王小明',
  '김민준',
  'ﾀﾅｶ',
  '٠٧٨٦٥٩',
  'Mary Ann',
  'inv-00042',
  'GB29NWBK60161331926819',
  '078-05-1120',
  'de la Tour',
);
const value = fc.oneof(
  fc.array(piece, { minLength: 1, maxLength: 5 }).map((ps) => ps.join(' ')),
  fc.string({ unit: 'binary', maxLength: 24 }),
);
const values = fc.array(value, { maxLength: 40 });

describe('a stored identity set', () => {
  it('property: loads as exactly the set compiled from the same values, and finds and masks as it does', async () => {
    await fc.assert(
      fc.asyncProperty(values, fc.string({ unit: 'binary', maxLength: 60 }), async (vs, extra) => {
        const compiled = identitySet(vs);
        const loaded = await loadIdentitySet(await identitySetText(vs));
        expect(loaded).toEqual(compiled);
        const text = `${vs.join(' and ')} ${extra}`;
        expect(findIdentities(text, loaded)).toBe(findIdentities(text, compiled));
        expect(maskIdentities(text, loaded)).toBe(maskIdentities(text, compiled));
      }),
      { numRuns: 500 },
    );
  });

  it('loads the empty set, and a fund-sized one whose every value it finds', async () => {
    expect(await loadIdentitySet(await identitySetText([]))).toEqual(identitySet([]));
    const investors = Array.from({ length: 200 }, (_, i) => [
      `Investor ${i} Okafor`,
      `inv-${i}@example.net`,
      `GB00BANK${String(i).padStart(14, '0')}`,
    ]);
    const loaded = await loadIdentitySet(await identitySetText(investors.flat()));
    expect(loaded.values).toBe(600);
    for (const v of investors.flat()) expect(findIdentities(JSON.stringify({ memo: `paid ${v} today` }), loaded)).toBe(true);
    expect(findIdentities(JSON.stringify({ memo: 'paid Investor 7 Okafo today' }), loaded)).toBe(false);
  });

  it('refuses a damaged set, and one of another format or engine, so the caller compiles instead', async () => {
    const text = await identitySetText(['Margaret Okafor', 'inv-00042@example.net', 'Jean-Pierre Dupont de la Tour', 'Zoë Ünal', '王小明']);
    const [digest, json] = [text.slice(0, 64), text.slice(65)];
    expect(text[64]).toBe('\n');
    expect(digest).toBe(await sha256Hex(json));
    const stored = JSON.parse(json) as Record<string, unknown>;
    /** The document changed and written with (`sign`) or without the digest of what it now is. */
    const variant = async (change: (s: Record<string, unknown>) => void, sign: boolean) => {
      const copy = structuredClone(stored);
      change(copy);
      const changed = JSON.stringify(copy);
      return `${sign ? await sha256Hex(changed) : digest}\n${changed}`;
    };
    const last = (key: string) => (stored[key] as number[]).length - 1;
    // Damaged: any change to the document that its digest does not vouch for, however well formed.
    const damaged = [
      await variant((s) => ((s.parent as number[])[1] = 1), false),
      await variant((s) => ((s.word as number[])[last('word')] = 10_000), false),
      await variant((s) => ((s.fail as number[])[1] = 1), false),
      await variant((s) => ((s.asciiHash as number[])[0] = 0), false),
      await variant((s) => ((s.asciiSlot as number[])[0] = 1), false),
      await variant((s) => (s.words = String(s.words).replace('okafor', 'okafer')), false),
      text.slice(0, -1),
      `${digest.toUpperCase()}\n${json}`,
      json,
    ];
    for (const t of damaged) {
      expect(t, 'a variant that changes nothing tests nothing').not.toBe(text);
      await expect(loadIdentitySet(t), t.slice(0, 80)).rejects.toThrow(/stored identity set: damaged/);
    }
    // Vouched for, but written by other code, or where a character of the values reads otherwise.
    const refused = [
      await variant((s) => (s.format = `${s.format} (other)`), true),
      await variant((s) => (s.format = 'identity-set/1'), true),
      await variant((s) => (s.values = '3'), true),
      await variant((s) => (s.reading = String(s.reading).replace('1:e', '1:ë')), true),
      await variant((s) => (s.chars = `${s.chars}\u{10940}`), true),
      await variant((s) => delete s.chars, true),
      await variant((s) => (s.parent as number[]).pop(), true),
      await variant((s) => (s.asciiHash = 'x'), true),
    ];
    for (const t of refused)
      await expect(loadIdentitySet(t), t.slice(65, 145)).rejects.toThrow(/stored identity set: (another format|compiled by|malformed)/);
    await expect(loadIdentitySet(text)).resolves.toEqual(
      identitySet(['Margaret Okafor', 'inv-00042@example.net', 'Jean-Pierre Dupont de la Tour', 'Zoë Ünal', '王小明']),
    );
  });
});

describe('the format of a stored set', () => {
  it('names the digest of the compiler’s sources as they are (a changed source needs the new digest)', () => {
    expect(
      IDENTITY_SET_SOURCES,
      'lib/identity-words.ts, lib/identity-set.ts or lib/identity-set-form.ts changed: set IDENTITY_SET_SOURCES to the new digest, so sets stored by the old code are compiled again',
    ).toBe(sourcesDigest());
  });

  it('names the sources, and a set records how the engine read each character beyond ASCII, once', async () => {
    expect(IDENTITY_SET_FORMAT).toBe(`identity-set/2 ${IDENTITY_SET_SOURCES}`);
    const document = async (vs: string[]) => JSON.parse((await identitySetText(vs)).slice(65)) as unknown;
    const stored = (await document(['Zoë Ünal', 'zoë@example.net', 'Margaret Okafor', '王小明', 'Ａ'])) as {
      chars: string;
      reading: string;
    };
    expect(stored.chars).toBe('ëÜ王小明Ａ');
    expect(stored.reading).toBe(engineReading(stored.chars));
    expect(stored.reading.split('\n')).toEqual(['1:e', '1:u', '2:王', '2:小', '2:明', '1:a']);
    expect(engineReading(' \u3000\u2019-')).toBe('0s:\n0s:\n0j:\n0j:');
    expect(((await document(['Margaret Okafor', 'inv-1@example.net'])) as { chars: string }).chars).toBe('');
  });
});
