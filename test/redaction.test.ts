/**
 * Fail-closed redaction of fund data (docs/fund-data.md). Proves that:
 * - `maskFreeText` masks e-mail, SSN, EIN, IBAN and API-key shapes in full and leaves dates, money and asset
 *   names alone; `findIdentities` finds identity values case-insensitively, as whole words inside longer
 *   text (a fast-check property), and reports nothing that is absent;
 * - `redact` returns exactly the JSON of a clean body and otherwise throws 500 `redaction_failed` (unknown or
 *   missing field, PII or key shape, a sensitive value in any case);
 * - `investorRefs` are stable HMAC pseudonyms, distinct per fund and per secret;
 * - end to end, no response of any fund-data endpoint, for the demo fund or the sample fund, carries an
 *   investor's identity data, a ledger memo naming an investor, the raw expense e-mail, a key string, or
 *   anything of the paper book; capital accounts name investors only by `investorRef`;
 * - a store that returns more than its interface allows (extra fields, a paper row, PII in a label field,
 *   an identity value as a venue) or a tool whose body leaves its allow-list makes the call fail closed:
 *   500 `redaction_failed` with a fixed detail and no data, through `callFundTool` and through REST.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as z from 'zod';
import { createApp } from '../lib/service.ts';
import { ApiError, NotFoundError, RedactionFailedError, problemResponse } from '../lib/errors.ts';
import { createKey, DEMO_API_KEY, generateKey } from '../lib/keys.ts';
import {
  FORBIDDEN_SHAPES,
  findIdentities,
  identitySet,
  investorRefs,
  maskAccountNumbers,
  maskFreeText,
  maskIdentities,
  redact,
} from '../lib/redaction.ts';
import { callFundTool, type FundToolDefinition } from '../lib/fund/definition.ts';
import { FundFactsProblem } from '../lib/fund/facts-problem.ts';
import { fundEndpoint } from '../lib/fund/endpoint.ts';
import { embeddedStore } from '../lib/fund/embedded-store.ts';
import { guardedStore, type FundIndex, type FundReadRequest, type FundReadResult, type FundStore } from '../lib/fund/store.ts';
import { DEMO_FUND, SAMPLE_FUND, generateFund, type FundDataset } from '../lib/fund/synthetic.ts';
import { FUND_TOOLS } from '../lib/registry.ts';
import { fakeEnv } from './support/fakes.ts';
import { isUsableRun } from './support/contract.ts';
import { fundPath } from './support/declared.ts';

const FIXED_DETAIL = 'The response could not be verified as safe to send, so none of it was sent.';

/** A fund tool by its MCP name (`get_positions`) or its path. */
function tool(nameOrPath: string): FundToolDefinition {
  const def = FUND_TOOLS.find((t) => t.tool === nameOrPath || t.path === nameOrPath);
  if (!def) throw new Error(`no tool ${nameOrPath}`);
  return def;
}

/** What `f` threw (fails the test when it returns). */
function thrownBy(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

/** What `p` rejected with (fails the test when it resolves). */
async function rejectionOf(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}

/**
 * Asserts `err` is 500 `redaction_failed` and that its rendering holds only the problem members, the fixed
 * detail and none of `leaks`.
 */
async function expectRedactionFailed(err: unknown, leaks: readonly string[] = []): Promise<void> {
  expect(err).toBeInstanceOf(ApiError);
  const e = err as ApiError;
  expect(e.code).toBe('redaction_failed');
  expect(e.status).toBe(500);
  expect(e.detail).toBe(FIXED_DETAIL);
  const res = problemResponse(err, 'req-redaction-test');
  expect(res.status).toBe(500);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  const text = await res.text();
  const body = JSON.parse(text) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'requestId', 'status', 'title', 'type']);
  expect(body).toEqual({
    type: '/problems/redaction_failed',
    title: 'Redaction failed',
    status: 500,
    detail: FIXED_DETAIL,
    code: 'redaction_failed',
    requestId: 'req-redaction-test',
  });
  for (const leak of leaks) expect(text.toLowerCase()).not.toContain(leak.toLowerCase());
}

// ---------------------------------------------------------------------------------------------------------

describe('maskFreeText', () => {
  it.each([
    ['an e-mail address', 'invoice from billing@harbourlegal.example.com, thanks', 'billing@harbourlegal.example.com'],
    ['an upper-case e-mail address', 'Contact: Jane.Doe+fund@Example.CO.UK.', 'Jane.Doe+fund@Example.CO.UK'],
    ['an SSN', 'investor 123-45-6789 called', '123-45-6789'],
    ['an EIN', 'entity EIN 12-3456789 on file', '12-3456789'],
    ['an IBAN', 'wire to GB82WEST12345698765432 today', 'GB82WEST12345698765432'],
  ])('masks %s', (_what, text, secret) => {
    const masked = maskFreeText(text);
    expect(masked).not.toContain(secret);
    expect(masked).toContain('[redacted]');
    for (const re of FORBIDDEN_SHAPES) expect(re.test(masked)).toBe(false);
  });

  it('masks a whole API key, not only its prefix', () => {
    const key = generateKey();
    for (const text of [`key ${key} leaked`, key, `(${DEMO_API_KEY})`, 'prefix svc_dk_ alone']) {
      const masked = maskFreeText(text);
      expect(masked).toContain('[redacted]');
      expect(masked.toLowerCase()).not.toContain('svc_dk_');
    }
    // The secret part of the key must not survive the masking.
    expect(maskFreeText(`key ${key} leaked`)).not.toContain(key.slice(7));
    expect(maskFreeText(`(${DEMO_API_KEY})`)).not.toContain(DEMO_API_KEY.slice(7));
  });

  it('masks a name glued to an account number, an IBAN or a tax id, so the answer is not refused for it', () => {
    const set = identitySet(['Margaret Okafor']);
    const schema = z.strictObject({ description: z.string() });
    for (const text of ['wire Margaret Okafor12345678', 'wire Margaret Okafor-123-45-6789', 'wire 12345678Margaret Okafor']) {
      const masked = maskFreeText(text, set);
      expect(masked).not.toMatch(/okafor/i);
      expect(() => redact(schema, { description: masked }, set)).not.toThrow();
    }
  });

  it('masks a whole identity value that holds an account number, not only the number (a lower-case IBAN)', () => {
    const set = identitySet(['GB82WEST12345698765432']);
    expect(maskFreeText('wire to gb82west12345698765432 today', set)).toBe('wire to [redacted] today');
  });

  it('leaves dates, money, asset names and plain prose alone', () => {
    for (const text of [
      '2026-10-31',
      '-1250000.00',
      '1250000.00',
      'BTC-PERP short at Deribit, stETH at Lido, USDC at Aave v3',
      'Custody fees (Anchorage Digital, BitGo), October 2026',
      "Independent directors' fees, Q3 2026",
      'Legal counsel: ISDA negotiation',
      'NAV 96022345.72 on 2026-10-30; bps -3.25',
    ]) {
      expect(maskFreeText(text)).toBe(text);
    }
  });
});

describe('maskAccountNumbers', () => {
  it.each([
    ['Custody fee, March 2026; acct 12345678', 'Custody fee, March 2026; acct [redacted]'],
    ['wire to 1234 5678 9012, thanks', 'wire to [redacted], thanks'],
    ['acct 12-345678-90.', 'acct [redacted].'],
    ['on 2026-03-31 12345678 was debited', 'on 2026-03-31 [redacted] was debited'],
    ['phone +44 20 7946 0958', 'phone +[redacted]'],
    ['ref 2026033112 (10 digits, not a date)', 'ref [redacted] (10 digits, not a date)'],
    ['fee 12345678', 'fee [redacted]'],
    // Full-width digits, as Japanese and Chinese text writes them, with full-width separators.
    ['口座１２３４５６７８へ', '口座[redacted]へ'],
    ['acct １２３４－５６７８－９０１２', 'acct [redacted]'],
    ['口座番号１２３４\u3000５６７８', '口座番号[redacted]'],
    ['mixed 1234５６７８', 'mixed [redacted]'],
  ])('masks %j', (text, masked) => {
    expect(maskAccountNumbers(text)).toBe(masked);
    expect(maskFreeText(text)).toBe(masked);
  });

  it.each([
    'Custody fees, 2026-03-31',
    'period 2026-03-01 - 2026-03-31',
    'period 2026-03-01 2026-03-31',
    'value date 31-03-2026',
    'batch 20260331',
    'USD 12345678.90 received',
    'EUR 12345678,90 received',
    '12 500 000 units',
    '1,250,000.00 and 1.250.000,00',
    'invoice 1234567 (seven digits)',
    'Q3 2026, 2 300 bps, -1250000.00',
    // The same dates and amounts in full-width digits.
    '支払日２０２６－０３－３１',
    '期間２０２６－０３－０１ ２０２６－０３－３１',
    '締日２０２６０３３１',
    '金額１２３４５６７８．９０円',
    '金額１２３４５６７８，９０',
    '１２　５００　０００株',
    '１，２５０，０００円',
    '２０２６年３月３１日、１２３４５６７円',
  ])('leaves %j alone (a date, an amount, fewer than 8 digits)', (text) => {
    expect(maskAccountNumbers(text)).toBe(text);
  });
});

describe('maskIdentities', () => {
  const set = identitySet(['Margaret Okafor', 'INV-0042', 'GB82WEST12345698765432', 'Li Na', 'Zoë Ångström']);

  it.each([
    ['Side letter for MARGARET OKAFOR.', 'Side letter for [redacted].'],
    ['wire from margaret\r\n  okafor (inv-0042)', 'wire from [redacted] ([redacted])'],
    ['MargaretOkafor and ZOË ÅNGSTRÖM', '[redacted] and [redacted]'],
    ['Zoe Angstrom, without the accents stored', '[redacted], without the accents stored'],
    ['Zoe\u0308 A\u030Angstro\u0308m, decomposed (NFD)', '[redacted], decomposed (NFD)'],
    ['to "Margaret"\t"Okafor"', 'to "[redacted]"'],
    // Invisible format characters (a soft hyphen, a zero-width space or joiner, a bidi mark) inside a word
    // show nothing on screen, so they neither split nor hide it.
    ['for Mar\u00ADgaret O\u200Bka\u200Dfor', 'for [redacted]'],
    ['for \u200EMargaret\u200F\u2060Okafor', 'for [redacted]'],
    ['ref INV\uFEFF-0042', 'ref [redacted]'],
    // Compatibility forms a screen shows as the letters they stand for: full-width Latin (common in
    // Japanese text), alone or among ordinary letters.
    ['振込 ＭＡＲＧＡＲＥＴ\u3000ＯＫＡＦＯＲ 様', '振込 [redacted] 様'],
    ['to Margaret O\uFF4Bafor', 'to [redacted]'],
  ])('masks %j', (text, masked) => {
    expect(maskIdentities(text, set)).toBe(masked);
  });

  // Scripts written without spaces between words: each character is a word of its own, so a name is found
  // as a run of them inside a sentence, with the words of the stored value in order, whatever separates them.
  const spaceless = identitySet(['王小明', '山田 太郎', '李娜', '홍길동', 'สมชาย ใจดี', 'タナカ ハナコ', 'ACME 株式会社', '王']);
  it.each([
    ['付款给王小明先生', '付款给[redacted]先生'],
    ['山田太郎様への送金', '[redacted]様への送金'],
    ['山田　太郎 様', '[redacted] 様'],
    ['付款给李娜，备注', '付款给[redacted]，备注'],
    ['付款给王\u200B小明', '付款给[redacted]'],
    ['홍길동에게 송금', '[redacted]에게 송금'],
    ['โอนให้สมชายใจดีแล้ว', 'โอนให้[redacted]แล้ว'],
    ['ﾀﾅｶﾊﾅｺ様', '[redacted]様'],
    ['振込先ＡＣＭＥ株式会社', '振込先[redacted]'],
    ['to 王小明 and 李娜', 'to [redacted] and [redacted]'],
    ['王小明李娜', '[redacted][redacted]'],
  ])('masks %j (no spaces between words)', (text, masked) => {
    expect(maskIdentities(text, spaceless)).toBe(masked);
  });

  it.each(['王小先生', '明小王', '李先生娜', '王先生', '山田様', '길동'])('leaves %j alone (not the whole name, in order)', (text) => {
    expect(maskIdentities(text, spaceless)).toBe(text);
  });

  it('refuses an answer naming one of them anywhere but free text', () => {
    expect(() => redact(z.strictObject({ venue: z.string() }), { venue: '王小明的交易台' }, spaceless)).toThrow(RedactionFailedError);
    expect(() => redact(z.strictObject({ venue: z.string() }), { venue: '王先生的交易台' }, spaceless)).not.toThrow();
  });

  it.each(['Margaret Okaforth (another word)', 'Okafor, Margaret (the words in another order)', 'Li Nash, Kali Na', 'INV-00421'])(
    'leaves %j alone (whole words, in order)',
    (text) => {
      expect(maskIdentities(text, set)).toBe(text);
    },
  );

  it('finds a value with invisible format characters in the JSON of an answer too', () => {
    expect(() => redact(z.strictObject({ venue: z.string() }), { venue: 'Desk of Marga\u00ADret Oka\u200Bfor' }, set)).toThrow(
      RedactionFailedError,
    );
  });

  // Case folded fully, not only lowered: the upper case of `ß` is `SS`, of `ı` (Turkish dotless i) is `I`,
  // and `ς` (final sigma) is `σ` where the word goes on; letters with no case of their own (mathematical
  // alphanumerics) read as the letters they show; invisible letters (Hangul fillers) and unassigned
  // default-ignorable code points show nothing, like format characters; digits of any script read as digits.
  const folded = identitySet(['Hans Strauß', 'Ayşe Işık', 'Νίκος Παπαδόπουλος', 'Margaret Okafor', '078659703', 'Søren Łukasz Ærø']);
  it.each([
    // Cyrillic and Greek letters drawn as Latin ones (homoglyphs), which a screen shows as the name.
    ['to M\u0430rgaret Okafor', 'to [redacted]'],
    ['to \u041CARGARET \u041EKAFOR', 'to [redacted]'],
    ['to \u039C\u0391RG\u0391R\u0395\u03A4 \u039FK\u0391F\u039FR', 'to [redacted]'],
    // Letters with a stroke or a ligature, which have no accent to drop, read as the letters they are written as.
    ['to Soren Lukasz Aero', 'to [redacted]'],
    ['to SØREN ŁUKASZ AERØ', 'to [redacted]'],
    ['to HANS STRAUSS', 'to [redacted]'],
    ['to Hans Strauss', 'to [redacted]'],
    ['to AYŞE IŞIK', 'to [redacted]'],
    ['to Ayse Isik', 'to [redacted]'],
    ['to ΝΙΚΟΣΠΑΠΑΔΟΠΟΥΛΟΣ', 'to [redacted]'],
    ['to νικοσ παπαδοπουλοσ', 'to [redacted]'],
    [
      'to \u{1D40C}\u{1D41A}\u{1D42B}\u{1D420}\u{1D41A}\u{1D42B}\u{1D41E}\u{1D42D} \u{1D40E}\u{1D424}\u{1D41A}\u{1D41F}\u{1D428}\u{1D42B}',
      'to [redacted]',
    ],
    ['to Margaret\u3164Okafor', 'to [redacted]'],
    ['to Mar\uFFA0garet Oka\u2065for', 'to [redacted]'],
    ['tax id \u0660\u0667\u0668\u0666\u0665\u0669\u0667\u0660\u0663', 'tax id [redacted]'],
    ['tax id \u0966\u096D\u096E\u096C\u096B\u096F\u096D\u0966\u0969', 'tax id [redacted]'],
  ])('masks %j (case folded, invisible letters dropped, digits of any script)', (text, masked) => {
    expect(maskIdentities(text, folded)).toBe(masked);
    expect(() => redact(z.strictObject({ venue: z.string() }), { venue: text }, folded)).toThrow(RedactionFailedError);
  });

  // A name part written with an apostrophe or a hyphen is often written without it.
  const punctuated = identitySet(["Sean O'Brien", 'Jean-Pierre Dupont', "Мар'яна Петренко", 'Kaʻiulani Kawānanakoa']);
  it.each([
    // Apostrophes that Unicode files as letters (modifier letters: the Ukrainian `ʼ`, the Hawaiian `ʻ`).
    ['to Sean O\u02BCBrien', 'to [redacted]'],
    ['to Мар\u02BCяна Петренко', 'to [redacted]'],
    ["to Ka'iulani Kawananakoa", 'to [redacted]'],
    ['to Kaiulani Kawananakoa', 'to [redacted]'],
    ['to Sean OBrien', 'to [redacted]'],
    ['to SEAN O BRIEN', 'to [redacted]'],
    ['to Jeanpierre Dupont', 'to [redacted]'],
    ['to JeanPierre DUPONT', 'to [redacted]'],
  ])('masks %j (a name part written without its apostrophe or hyphen)', (text, masked) => {
    expect(maskIdentities(text, punctuated)).toBe(masked);
  });

  // A name of three or four words, with any of its neighbouring words written together.
  const composed = identitySet(['Mary Ann Smith', 'Anna Maria de Souza']);
  it.each([
    ['to MaryAnn Smith', 'to [redacted]'],
    ['to Mary AnnSmith', 'to [redacted]'],
    ['to Anna Maria deSouza', 'to [redacted]'],
    ['to AnnaMaria de Souza', 'to [redacted]'],
    ['to AnnaMaria deSouza', 'to [redacted]'],
  ])('masks %j (neighbouring words written together)', (text, masked) => {
    expect(maskIdentities(text, composed)).toBe(masked);
  });

  // Hangul decomposed into its letters (NFD, as macOS file names write it) and Arabic stretched with a
  // tatweel, which a screen shows as the name.
  const scripts = identitySet(['홍길동', 'محمد العلي']);
  it.each([
    ['\u1112\u1169\u11BC\u1100\u1175\u11AF\u1103\u1169\u11BC에게 송금', '[redacted]에게 송금'],
    ['to \u0645\u062D\u0640\u0640\u0645\u062F \u0627\u0644\u0639\u0640\u0644\u064A', 'to [redacted]'],
  ])('masks %j (Hangul decomposed, Arabic stretched)', (text, masked) => {
    expect(maskIdentities(text, scripts)).toBe(masked);
  });

  it('does not look for values under 4 letters and digits, or under 6 digits alone, or 2 characters of a script written without spaces', () => {
    expect(identitySet(['Li', 'A B', '17', '12345', 'INV-1']).values).toBe(1);
    expect(identitySet(['王', '김', 'ก', '王小明', '李娜', '김철']).values).toBe(3);
  });
});

describe('findIdentities', () => {
  const containsAnyValue = (text: string, values: string[]) => findIdentities(text, identitySet(values));

  it('is case-insensitive and finds multi-word names inside longer text', () => {
    const text = JSON.stringify({ note: 'Capital call paid by FOXHOLLOW Oakridge pension plan on 2026-10-01.' });
    expect(containsAnyValue(text, ['Foxhollow Oakridge Pension Plan'])).toBe(true);
    expect(containsAnyValue(text, ['nobody', 'foxhollow oakridge'])).toBe(true);
    expect(containsAnyValue('margaret okafor', ['Margaret Okafor'])).toBe(true);
    expect(containsAnyValue('{"a":"x daniel.lindqvist@example.net y"}', ['Daniel.Lindqvist@Example.NET'])).toBe(true);
    expect(containsAnyValue('{"a":"FR21AGSJ77475822189155"}', ['fr21agsj77475822189155'])).toBe(true);
  });

  it('does not report values absent from the text', () => {
    const text = JSON.stringify({ venue: 'Coinbase Prime', asset: 'BTC', note: 'Pension fund rebalancing' });
    expect(containsAnyValue(text, ['Foxhollow Oakridge Pension Plan', 'Margaret Okafor', 'INV-0001', '07-8659703'])).toBe(false);
    expect(containsAnyValue(text, [])).toBe(false);
    expect(containsAnyValue(text, ['', '   '])).toBe(false);
    // Every word present, but not as the phrase.
    expect(containsAnyValue('{"a":"plan pension oakridge foxhollow"}', ['Foxhollow Oakridge Pension Plan'])).toBe(false);
  });

  it('property: redact finds a value inserted into any text as words (full Unicode)', () => {
    // Arbitrary text around the value, separated from it by a space; redact scans the JSON it would send.
    const schema = z.strictObject({ field: z.string() });
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.string({ unit: 'binary', minLength: 1 }),
        fc.string({ unit: 'binary' }),
        (before, value, after) => {
          // A value too short to tell from ordinary text (fewer than 4 letters and digits) is not looked for.
          fc.pre(identitySet([value]).values === 1);
          expect(() => redact(schema, { field: `${before} ${value} ${after}` }, [value])).toThrow(RedactionFailedError);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('property: redact finds a value inserted after any separator (space, line break, tab, punctuation), in any case', () => {
    // Names as investors have them, in random case, after any separator a JSON string can hold.
    const schema = z.strictObject({ field: z.string(), other: z.array(z.union([z.string(), z.number()])) });
    const asciiName = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 .,'@&-]{0,40}$/);
    const separator = fc.constantFrom(' ', ', ', '(', '"', '/', '\n', '\t', '\r\n');
    fc.assert(
      fc.property(
        fc.string(),
        separator,
        asciiName,
        fc.string(),
        fc.array(fc.boolean(), { minLength: 41, maxLength: 41 }),
        (before, sep, value, after, flips) => {
          const cased = [...value].map((ch, i) => (flips[i] ? ch.toUpperCase() : ch.toLowerCase())).join('');
          fc.pre(identitySet([value]).values === 1);
          const body = { field: `${before}${sep}${cased}, ${after}`, other: ['x', 1] };
          expect(() => redact(schema, body, ['unrelated value', value])).toThrow(RedactionFailedError);
        },
      ),
      { numRuns: 500 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('redact', () => {
  const schema = z.strictObject({
    name: z.string(),
    amount: z.string(),
    nested: z.strictObject({ venue: z.string(), rows: z.array(z.strictObject({ asset: z.string(), qty: z.string() })) }),
  });
  const clean = () => ({
    name: 'Northstar Digital Assets Fund',
    amount: '-1250000.00',
    nested: {
      venue: 'Coinbase Prime',
      rows: [
        { asset: 'BTC', qty: '12.5000' },
        { asset: 'ETH-PERP', qty: '-40.0000' },
      ],
    },
  });

  it('returns exactly the JSON of a clean body', () => {
    expect(redact(schema, clean(), ['Margaret Okafor', 'margaret.okafor@example.net', '184-12-4732'])).toBe(JSON.stringify(clean()));
  });

  it.each([
    ['an unknown field at the top level', { ...clean(), investorName: 'x' }],
    ['an unknown field nested', { ...clean(), nested: { ...clean().nested, note: 'x' } }],
    ['an unknown field in an array item', { ...clean(), nested: { ...clean().nested, rows: [{ asset: 'BTC', qty: '1', book: 'paper' }] } }],
    ['a missing field', { name: 'n', nested: clean().nested }],
    ['a missing nested field', { ...clean(), nested: { rows: [] } }],
    ['a wrong type', { ...clean(), amount: 5 }],
    ['an e-mail in a value', { ...clean(), name: 'Fund (ops@northstar.example.com)' }],
    ['an e-mail deep in a value', { ...clean(), nested: { ...clean().nested, rows: [{ asset: 'a@b.io', qty: '1' }] } }],
    ['an SSN shape', { ...clean(), name: 'Investor 123-45-6789' }],
    ['an EIN shape', { ...clean(), nested: { ...clean().nested, venue: 'EIN 12-3456789' } }],
    ['an IBAN shape', { ...clean(), nested: { ...clean().nested, venue: 'DE89370400440532013000' } }],
    ['an API key', { ...clean(), name: `key ${generateKey()}` }],
    ['the demo key', { ...clean(), name: DEMO_API_KEY }],
    ['a key prefix in another case', { ...clean(), name: 'SVC_DK_something' }],
  ])('refuses %s', async (_what, body) => {
    await expectRedactionFailed(thrownBy(() => redact(schema, body, [])));
  });

  it.each(['Margaret Okafor', 'MARGARET OKAFOR', 'margaret okafor', 'mArGaReT oKaFoR'])(
    'refuses a sensitive value written as %s',
    async (written) => {
      const body = { ...clean(), nested: { ...clean().nested, venue: `Desk of ${written}` } };
      await expectRedactionFailed(
        thrownBy(() => redact(schema, body, ['Margaret Okafor'])),
        ['okafor'],
      );
    },
  );

  it.each([
    ['a line break', '\n'],
    ['a tab', '\t'],
    ['a carriage return', '\r'],
    ['a control character', '\u0001'],
  ])('refuses a sensitive value that directly follows %s inside a string', async (_what, sep) => {
    // JSON writes the separator as an escape (\n, \t, ...) whose letter joins the value's first word.
    const body = { ...clean(), name: `Paid by:${sep}Margaret Okafor` };
    await expectRedactionFailed(thrownBy(() => redact(schema, body, ['Margaret Okafor'])));
  });

  it.each([
    ['an SSN', '123-45-6789'],
    ['an EIN', '12-3456789'],
    ['an IBAN', 'GB82WEST12345698765432'],
  ])('refuses %s shape that directly follows a line break inside a string', async (_what, value) => {
    await expectRedactionFailed(thrownBy(() => redact(schema, { ...clean(), name: `Wire ref:\n${value}` }, [])));
  });

  it('refuses a sensitive internal id or bank account anywhere', async () => {
    await expectRedactionFailed(thrownBy(() => redact(schema, { ...clean(), amount: 'INV-0007' }, ['INV-0007'])));
    await expectRedactionFailed(thrownBy(() => redact(schema, { ...clean(), name: 'ch63nhbn58493132934434' }, ['CH63NHBN58493132934434'])));
  });
});

describe('investorRefs', () => {
  const ids = ['INV-0001', 'INV-0002', 'INV-0003'];

  it('gives each investor a stable inv_<16 hex> pseudonym', async () => {
    const a = await investorRefs('demo-fund', ids);
    const b = await investorRefs('demo-fund', [...ids].reverse());
    expect([...a.keys()].sort()).toEqual(ids);
    for (const id of ids) {
      expect(a.get(id)).toMatch(/^inv_[0-9a-f]{16}$/);
      expect(b.get(id)).toBe(a.get(id));
    }
    expect(new Set(a.values()).size).toBe(ids.length);
    const one = await investorRefs('demo-fund', ['INV-0002']);
    expect(one.get('INV-0002')).toBe(a.get('INV-0002'));
  });

  it('differs per fund id and per secret', async () => {
    const demo = await investorRefs('demo-fund', ids);
    const sample = await investorRefs('sample-fund', ids);
    const keyed = await investorRefs('demo-fund', ids, 'deployment secret 1');
    const keyed2 = await investorRefs('demo-fund', ids, 'deployment secret 2');
    for (const id of ids) {
      const refs = [demo.get(id), sample.get(id), keyed.get(id), keyed2.get(id)];
      expect(new Set(refs).size).toBe(4);
      for (const ref of refs) expect(ref).toMatch(/^inv_[0-9a-f]{16}$/);
    }
    expect((await investorRefs('demo-fund', ids, 'deployment secret 1')).get('INV-0001')).toBe(keyed.get('INV-0001'));
  });
});

// ---------------------------------------------------------------------------------------------------------

const DEMO_DATA = generateFund(DEMO_FUND);

/** Every string that must never leave in a response about `data`. */
function forbiddenStrings(data: FundDataset): { words: string[]; quoted: string[] } {
  const words = new Set<string>(['billing@harbourlegal.example.com', 'svc_dk_']);
  for (const i of data.investors) for (const v of [i.legalName, i.email, i.taxId, i.bankAccount, i.investorId]) words.add(v);
  const memos = data.ledger.filter((l) => data.investors.some((i) => l.memo.includes(i.legalName))).map((l) => l.memo);
  expect(memos.length).toBeGreaterThan(0);
  for (const m of memos) words.add(m);
  const paper = data.positions.filter((p) => p.book === 'paper');
  const live = data.positions.filter((p) => p.book === 'live');
  expect(paper.length).toBeGreaterThan(0);
  const liveAssets = new Set(live.map((p) => p.asset));
  const liveVenues = new Set(live.map((p) => p.venue));
  const paperOnly = [...new Set(paper.map((p) => p.asset))].filter((a) => !liveAssets.has(a));
  const paperVenues = [...new Set(paper.map((p) => p.venue))].filter((v) => !liveVenues.has(v));
  expect(paperOnly.sort()).toEqual(['BONK', 'JUP', 'PEPE', 'WIF']);
  expect(paperVenues.sort()).toEqual(['Drift Protocol', 'Hyperliquid']);
  for (const v of [...paperOnly, ...paperVenues]) words.add(v);
  // A paper quantity is a number that could appear inside another figure, so it is matched as a whole JSON value.
  const quoted = [...new Set(paper.map((p) => JSON.stringify(p.quantity)))];
  return { words: [...words], quoted };
}

/** URLs exercising every endpoint with representative parameters. */
function urlsFor(data: FundDataset): string[] {
  const usable = data.runs.filter(isUsableRun);
  const firstOfMonth = usable.filter((r) => r.navDate.endsWith('-01')).map((r) => r.navDate);
  const dates = [
    ...new Set([
      usable[1]!.navDate,
      usable[Math.floor(usable.length / 2)]!.navDate,
      usable[usable.length - 1]!.navDate,
      ...firstOfMonth.slice(-3),
    ]),
  ];
  return [
    'get_fund_overview',
    'get_positions',
    'get_portfolio_breakdown',
    'get_exposure',
    'get_exposure_series?days=366',
    'get_exposure_series',
    ...dates.map((d) => `get_pnl_attribution?date=${d}`),
    'get_value_at_risk',
    'get_value_at_risk?method=sample&confidence=0.99&horizonDays=10&windowDays=1000',
    'get_trial_balance',
    `get_trial_balance?asOf=${data.runs[data.runs.length - 1]!.navDate}`,
    'get_capital_accounts',
    'get_expenses?limit=500',
    'get_expenses',
    'get_fee_terms',
    'get_nav_history?days=3660',
  ];
}

describe('end to end: no PII and nothing of the paper book in any response', () => {
  const app = createApp();

  async function sweep(data: FundDataset, auth: string, env: ReturnType<typeof fakeEnv>['env']) {
    const { words, quoted } = forbiddenStrings(data);
    const urls = urlsFor(data);
    const seen = new Set<string>();
    const bodies = new Map<string, string>();
    for (const url of urls) {
      const [name, query] = url.split(/(?=\?)/);
      const path = fundPath(name!);
      const res = await app.request(`${path}${query ?? ''}`, { headers: { authorization: auth, 'cf-connecting-ip': '192.0.2.9' } }, env);
      expect(res.status, url).toBe(200);
      const text = await res.text();
      bodies.set(url, text);
      seen.add(path.slice('/api/v1/fund/'.length));
      const lower = text.toLowerCase();
      for (const w of words) expect(lower.includes(w.toLowerCase()), `${url} contains ${w}`).toBe(false);
      for (const q of quoted) expect(text.includes(q), `${url} contains paper quantity ${q}`).toBe(false);
      for (const re of FORBIDDEN_SHAPES) expect(re.test(text), `${url} matches ${re}`).toBe(false);
    }
    expect([...seen].sort()).toEqual(FUND_TOOLS.map((t) => t.path).sort());
    return bodies;
  }

  async function checkCapitalAccounts(text: string, fundId: string, data: FundDataset) {
    const body = JSON.parse(text) as { investors: Record<string, unknown>[] };
    expect(body.investors.length).toBeGreaterThan(10);
    const refs = await investorRefs(
      fundId,
      data.investors.map((i) => i.investorId),
    );
    const allowed = new Set(refs.values());
    for (const inv of body.investors) {
      expect(Object.keys(inv).sort()).toEqual(
        [
          'closingCapital',
          'contributions',
          'investorRef',
          'mgmtFee',
          'openingCapital',
          'ownershipPct',
          'perfFee',
          'pnlAllocation',
          'shareClass',
          'withdrawals',
        ].sort(),
      );
      expect(inv.investorRef).toMatch(/^inv_[0-9a-f]{16}$/);
      expect(allowed.has(inv.investorRef as string)).toBe(true);
      expect(['A', 'B', 'I']).toContain(inv.shareClass);
    }
    expect(new Set(body.investors.map((i) => i.investorRef)).size).toBe(body.investors.length);
  }

  it('the demo fund, read with the demo key', async () => {
    const data = DEMO_DATA;
    const { env } = fakeEnv();
    const bodies = await sweep(data, `Bearer ${DEMO_API_KEY}`, env);
    await checkCapitalAccounts(bodies.get('get_capital_accounts')!, 'demo-fund', data);
    // The expense quoting an e-mail is served, with the address masked.
    expect(bodies.get('get_expenses?limit=500')).toContain('Legal review of a side letter; invoice sent by counsel from [redacted]');
    // Pseudonyms are stable across calls.
    const again = await app.request(fundPath('get_capital_accounts'), { headers: { authorization: `Bearer ${DEMO_API_KEY}` } }, env);
    expect(await again.text()).toBe(bodies.get('get_capital_accounts'));
  });

  it('the sample fund, read with a sample-fund key', async () => {
    const data = generateFund(SAMPLE_FUND);
    const { env, API_KEYS } = fakeEnv({ FUND_ID: 'sample-fund' });
    const { key } = await createKey(API_KEYS, { fundId: 'sample-fund' });
    const bodies = await sweep(data, `Bearer ${key}`, env);
    await checkCapitalAccounts(bodies.get('get_capital_accounts')!, 'sample-fund', data);
    expect(bodies.get('get_expenses?limit=500')).toContain('invoice sent by counsel from [redacted]');
    for (const text of bodies.values()) expect(text).not.toContain(key.slice(7));
  });
});

// ---------------------------------------------------------------------------------------------------------

/** One embedded demo store shared by the faulty wrappers (rows it returns are never mutated). */
const inner = embeddedStore([DEMO_FUND]);

/** A store that returns what the embedded one does, passed through `corrupt`. */
function faultyStore(corrupt: {
  index?: (index: FundIndex) => FundIndex;
  read?: (result: FundReadResult, request: FundReadRequest) => Promise<FundReadResult> | FundReadResult;
}): FundStore {
  return {
    async index(fundId) {
      const index = await inner.index(fundId);
      return index && corrupt.index ? corrupt.index(index) : index;
    },
    async read(fundId, request) {
      const result = await inner.read(fundId, request);
      return corrupt.read ? corrupt.read(result, request) : result;
    },
    identities: (fundId, known) => inner.identities(fundId, known),
  };
}

const call = (path: string, store: FundStore, args: Record<string, unknown> = {}) =>
  callFundTool(tool(path), { store: guardedStore(store), fundId: 'demo-fund' }, {}, args);

describe('fail closed on a faulty store', () => {
  it('the uncorrupted wrapper answers every tool (control)', async () => {
    const store = faultyStore({});
    for (const def of FUND_TOOLS) {
      const args = def.tool === 'get_pnl_attribution' ? { date: '2026-10-30' } : {};
      const text = await call(def.path, store, args);
      def.output.parse(JSON.parse(text));
    }
  });

  it('(1) a position row with an extra field', async () => {
    const store = faultyStore({
      read: (r) => ({ ...r, positions: r.positions.map((p, i) => (i === 0 ? { ...p, traderNote: 'call Margaret re: margin' } : p)) }),
    });
    for (const path of ['get_positions', 'get_portfolio_breakdown', 'get_exposure']) {
      await expectRedactionFailed(await rejectionOf(call(path, store)), ['traderNote', 'Margaret']);
    }
    await expectRedactionFailed(await rejectionOf(call('get_pnl_attribution', store, { date: '2026-10-30' })), ['traderNote']);
  });

  it('(1b) a row of summed positions, of summed ledger lines or of VaR moments with an extra field', async () => {
    const sums = faultyStore({
      read: (r) => ({ ...r, positionSums: r.positionSums.map((p, i) => (i === 0 ? { ...p, traderNote: 'call Margaret re: margin' } : p)) }),
    });
    await expectRedactionFailed(await rejectionOf(call('get_exposure_series', sums)), ['traderNote', 'Margaret']);
    const balances = faultyStore({
      read: (r) => ({
        ...r,
        balances: r.balances.map((b, i) => (i === 0 ? { ...b, memo: 'wire to J. Smith, IBAN GB82WEST12345698765432' } : b)),
      }),
    });
    await expectRedactionFailed(await rejectionOf(call('get_trial_balance', balances)), ['memo', 'GB82WEST12345698765432']);
    // VaR reads its moments, not the positions: a moments row with an extra field fails the same way.
    const moments = faultyStore({
      read: (r) => ({ ...r, varMoments: r.varMoments.map((m, i) => (i === 0 ? { ...m, traderNote: 'call Margaret re: margin' } : m)) }),
    });
    await expectRedactionFailed(await rejectionOf(call('get_value_at_risk', moments)), ['traderNote', 'Margaret']);
  });

  it('(2) a paper-book row among the positions', async () => {
    const store = faultyStore({
      read: (r) => ({
        ...r,
        positions: r.positions.length
          ? [...r.positions, { ...r.positions[0]!, asset: 'PEPE', venue: 'Hyperliquid', book: 'paper' as const }]
          : r.positions,
      }),
    });
    for (const path of ['get_positions', 'get_portfolio_breakdown', 'get_exposure']) {
      await expectRedactionFailed(await rejectionOf(call(path, store)), ['PEPE', 'Hyperliquid']);
    }
  });

  it("(3) a capital read's investor row with an extra column: identity data, or a column the service does not know", async () => {
    const { investors } = await inner.identities('demo-fund');
    const byId = new Map(investors!.map((i) => [i.investorId, i]));
    const withIdentity = faultyStore({
      read: (r) => ({ ...r, investorClasses: r.investorClasses.map((i) => ({ ...i, legalName: byId.get(i.investorId)!.legalName })) }),
    });
    await expectRedactionFailed(await rejectionOf(call('get_capital_accounts', withIdentity)), ['legalName', investors![0]!.legalName]);
    const store = faultyStore({
      read: (r) => ({ ...r, investorClasses: r.investorClasses.map((i) => ({ ...i, dateOfBirth: '1970-01-01', passportNo: 'X1234567' })) }),
    });
    await expectRedactionFailed(await rejectionOf(call('get_capital_accounts', store)), ['dateOfBirth', 'X1234567', 'investor.relations']);
  });

  it('(3b) a capital read naming an investor the identity set does not hold', async () => {
    const store = faultyStore({
      read: (r) => ({
        ...r,
        investorClasses: [...r.investorClasses, { investorId: 'INV-9999', shareClassId: 'A' }],
        capital: r.capital.map((c, i) => (i === 0 ? { ...c, investorId: 'INV-9999' } : c)),
      }),
    });
    await expectRedactionFailed(await rejectionOf(call('get_capital_accounts', store)), ['INV-9999']);
  });

  it('(4) an e-mail in a field that is not free text (an account name)', async () => {
    const store = faultyStore({
      read: (r) => ({ ...r, accounts: r.accounts.map((a, i) => (i === 0 ? { ...a, name: 'ops@fund.example.com' } : a)) }),
    });
    await expectRedactionFailed(await rejectionOf(call('get_trial_balance', store)), ['ops@fund.example.com']);
    // The same address in an expense's description or category (free text) is masked and the call succeeds.
    const masked = faultyStore({
      read: (r) => ({
        ...r,
        expenses: r.expenses.map((e, i) =>
          i === 0 ? { ...e, description: 'Query from ops@fund.example.com', category: 'ops@fund.example.com' } : e,
        ),
      }),
    });
    const text = await call('get_expenses', masked, { limit: '10' });
    expect(text).toContain('Query from [redacted]');
    expect(text).toContain('"category":"[redacted]"');
    expect(text).not.toContain('ops@fund.example.com');
  });

  it('(4b) a bank account or tax id on its own line of a field that is not free text (an account name)', async () => {
    for (const value of ['GB82WEST12345698765432', '123-45-6789', '12-3456789']) {
      const store = faultyStore({
        read: (r) => ({ ...r, accounts: r.accounts.map((a, i) => (i === 0 ? { ...a, name: `Legal\n${value}` } : a)) }),
      });
      await expectRedactionFailed(await rejectionOf(call('get_trial_balance', store)), [value]);
    }
  });

  it("(5a) a venue named as an investor's legal name", async () => {
    const { investors } = await inner.identities('demo-fund');
    const name = investors![3]!.legalName;
    const store = faultyStore({
      read: (r) => ({
        ...r,
        positions: r.positions.map((p, i) => (i === 0 ? { ...p, venue: name.toUpperCase() } : p)),
      }),
    });
    await expectRedactionFailed(await rejectionOf(call('get_positions', store)), [name]);
    await expectRedactionFailed(await rejectionOf(call('get_portfolio_breakdown', store)), [name]);
  });

  it('(5b) a position venue holding an e-mail address', async () => {
    const store = faultyStore({
      read: (r) => ({ ...r, positions: r.positions.map((p, i) => (i === 0 ? { ...p, venue: 'desk: trader@broker.example.com' } : p)) }),
    });
    await expectRedactionFailed(await rejectionOf(call('get_positions', store)), ['trader@broker.example.com']);
    await expectRedactionFailed(await rejectionOf(call('get_portfolio_breakdown', store)), ['trader@broker.example.com']);
  });

  it('(5c) an investor tax id or bank account as a ledger account name', async () => {
    const { investors } = await inner.identities('demo-fund');
    const victim = investors![0]!;
    const store = faultyStore({
      read: (r) => ({
        ...r,
        accounts: r.accounts.map((a, i) => (i === 0 ? { ...a, name: `Cash held for ${victim.investorId}` } : a)),
      }),
    });
    await expectRedactionFailed(await rejectionOf(call('get_trial_balance', store)), [victim.investorId]);
  });

  it("(5d) an investor's legal name on its own line of the share class field of capital accounts", async () => {
    // One investor, whose first name no other investor's legal name shares (so no other text supplies its words).
    const data = DEMO_DATA;
    const last = [...data.runs].reverse().find((r) => r.status === 'complete')!;
    const active = new Set(data.capital.filter((c) => c.navDate === last.navDate && c.capital !== '0.00').map((c) => c.investorId));
    const words = (name: string) => name.toLowerCase().split(' ');
    const victim = data.investors.find(
      (i) => active.has(i.investorId) && !data.investors.some((o) => o !== i && words(o.legalName).includes(words(i.legalName)[0]!)),
    );
    expect(victim).toBeDefined();
    const store = faultyStore({
      read: (r) => ({
        ...r,
        investorClasses: r.investorClasses.map((i) =>
          i.investorId === victim!.investorId ? { ...i, shareClassId: `${i.shareClassId}\n${victim!.legalName}` } : i,
        ),
      }),
    });
    const outcome = await call('get_capital_accounts', store).then(
      (text) => text,
      (err: unknown) => err,
    );
    await expectRedactionFailed(outcome, [victim!.legalName]);
  });

  it('(6) a run row with an extra field in index()', async () => {
    const store = faultyStore({
      index: (i) => ({ ...i, runs: i.runs.map((r, k) => (k === i.runs.length - 1 ? { ...r, operatorComment: 'rerun by jdoe' } : r)) }),
    });
    for (const def of FUND_TOOLS) {
      const args = def.tool === 'get_pnl_attribution' ? { date: '2026-10-30' } : {};
      await expectRedactionFailed(await rejectionOf(call(def.path, store, args)), ['operatorComment', 'jdoe']);
    }
  });

  it('(6b) a fund row or share class with an extra field in index()', async () => {
    const fund = faultyStore({ index: (i) => ({ ...i, fund: { ...i.fund, gpContact: 'gp@northstar.example.com' } }) });
    await expectRedactionFailed(await rejectionOf(call('get_fund_overview', fund)), ['gp@northstar']);
    const classes = faultyStore({ index: (i) => ({ ...i, shareClasses: i.shareClasses.map((c) => ({ ...c, sideLetter: 'yes' })) }) });
    await expectRedactionFailed(await rejectionOf(call('get_fee_terms', classes)), ['sideLetter']);
  });

  it('(7) a body that leaves the output allow-list', async () => {
    const def = tool('get_positions');
    const leaky: FundToolDefinition = {
      ...def,
      run: async (ctx, query) => ({ ...((await def.run(ctx, query)) as Record<string, unknown>), extra: 1 }),
    };
    const source = { store: guardedStore(faultyStore({})), fundId: 'demo-fund' };
    await expectRedactionFailed(await rejectionOf(callFundTool(leaky, source, {}, {})), ['extra', 'BTC']);
    const nested: FundToolDefinition = {
      ...def,
      run: async (ctx, query) => {
        const body = (await def.run(ctx, query)) as { positions: Record<string, unknown>[] };
        return { ...body, positions: body.positions.map((p) => ({ ...p, book: 'live' })) };
      },
    };
    await expectRedactionFailed(await rejectionOf(callFundTool(nested, source, {}, {})), ['"book"']);
  });

  it('(8) the run dates a 404 quotes leave only through the redaction, and a problem whose facts fail it is a bare 500', async () => {
    const index = (await inner.index('demo-fund'))!;
    const missing = await rejectionOf(call('pnl/attribution', faultyStore({}), { date: '2020-01-01' }));
    expect(missing).toMatchObject({ code: 'not_found' });
    expect((missing as ApiError).detail).toContain(`from ${index.firstRunDate} to ${index.runs.at(-1)!.navDate}`);
    // The same mechanism, with facts that break their allow-list or hold an identity the store returned.
    const facts = z.strictObject({ firstRunDate: z.string() });
    const quoting = (value: unknown, readInvestors = false): FundToolDefinition => ({
      ...tool('get_positions'),
      run: async (ctx) => {
        if (readInvestors) await ctx.read({ capital: { navDates: [ctx.index.runs[ctx.index.runs.length - 1]!.navDate] } });
        throw new FundFactsProblem(value, facts, (f) => new NotFoundError(`First run ${f.firstRunDate}.`));
      },
    });
    const source = { store: guardedStore(faultyStore({})), fundId: 'demo-fund' };
    expect(await rejectionOf(callFundTool(quoting({ firstRunDate: '2024-01-02' }), source, {}, {}))).toMatchObject({
      code: 'not_found',
      detail: 'First run 2024-01-02.',
    });
    await expectRedactionFailed(await rejectionOf(callFundTool(quoting({ firstRunDate: '2024-01-02', note: 'x' }), source, {}, {})), [
      'note',
    ]);
    await expectRedactionFailed(await rejectionOf(callFundTool(quoting({ firstRunDate: 'ops@northstar.example.com' }), source, {}, {})), [
      'northstar',
    ]);
    const investor = (await inner.identities('demo-fund')).investors![0]!;
    await expectRedactionFailed(await rejectionOf(callFundTool(quoting({ firstRunDate: investor.legalName }, true), source, {}, {})), [
      investor.legalName,
    ]);
  });

  it('(7, REST) the same failure through the app is a bare 500 problem', async () => {
    const def = tool('get_positions');
    const leaky: FundToolDefinition = {
      ...def,
      run: async (ctx, query) => ({
        ...((await def.run(ctx, query)) as Record<string, unknown>),
        note: 'contact ops@northstar.example.com',
      }),
    };
    const app = createApp({ routes: [{ path: fundPath('get_positions'), endpoint: fundEndpoint(leaky) }] });
    const res = await app.request(fundPath('get_positions'), { headers: { authorization: `Bearer ${DEMO_API_KEY}` } }, fakeEnv().env);
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const text = await res.text();
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'requestId', 'status', 'title', 'type']);
    expect(body).toMatchObject({ code: 'redaction_failed', status: 500, detail: FIXED_DETAIL, requestId: res.headers.get('x-request-id') });
    for (const leak of ['ops@', 'BTC', 'Binance', 'marketValue', 'Northstar']) expect(text).not.toContain(leak);
  });
});
