/**
 * Regular expressions against hostile input (docs/api.md#conventions: linear time at the largest accepted size).
 *
 * 1. Every regular expression literal in `lib/` and `functions/` is read from the source (esbuild strips the
 *    types, acorn finds the literals) and checked with recheck (its native checker from the npm platform package, else its pure-JS one; fixed seed): each must be
 *    `safe`, i.e. linear in the length of the text it searches, with no super-linear backtracking.
 * 2. The LP report grader and the redaction scan are fed adversarial texts of the largest accepted size
 *    (1 MiB: the body cap) that made the old patterns backtrack quadratically (runs of digits, of dots,
 *    of e-mail local-part characters), and the work is bounded without timing: each grader pattern is run
 *    over the text a fixed number of times (one `exec` per check, one per word or sentence match), and each
 *    of those runs is linear by (1). The results are asserted exactly.
 * 3. The same grading through the public MCP server's `calc_lp_report_grader` tool and the REST endpoint.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { transformSync } from 'esbuild';
import * as acorn from 'acorn';
import * as walk from 'acorn-walk';
import { CHECKS, PERCENTAGE, SENTENCE_END, WORD, gradeLpReport, readability } from '../../lib/calculators/lp-report-grader.ts';
import {
  ACCOUNT_NUMBER_PATTERNS,
  FORBIDDEN_SHAPES,
  SPACELESS_CHARACTER,
  WORD_CHARACTER,
  identitySet,
  maskAccountNumbers,
  maskFreeText,
  redact,
} from '../../lib/redaction.ts';
import * as z from 'zod';
import { MAX_BODY_BYTES } from '../../lib/endpoint.ts';
import { createApp } from '../../lib/service.ts';
import { fakeEnv } from '../support/fakes.ts';
import { SPEC_MCP_HEADERS } from '../support/contract.ts';
import { calcPath } from '../support/declared.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** Every regular expression literal in the TypeScript files under `dirs`, with where it is. */
function regexLiterals(dirs: string[]): { where: string; pattern: string; flags: string }[] {
  const found: { where: string; pattern: string; flags: string }[] = [];
  for (const dir of dirs) {
    for (const file of readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
      const path = join(dir, file);
      const js = transformSync(readFileSync(join(ROOT, path), 'utf8'), { loader: 'ts' }).code;
      walk.simple(acorn.parse(js, { ecmaVersion: 'latest', sourceType: 'module' }), {
        Literal(node) {
          const regex = (node as acorn.Literal & { regex?: { pattern: string; flags: string } }).regex;
          if (regex) found.push({ where: path, ...regex });
        },
      });
    }
  }
  return found;
}

describe('ReDoS: every regular expression in lib/ and functions/', () => {
  const literals = regexLiterals(['lib', 'functions']);

  it('finds the literals, the grader and redaction patterns among them', () => {
    expect(literals.length).toBeGreaterThan(40);
    const sources = new Set(literals.map((l) => l.pattern));
    for (const re of [
      PERCENTAGE,
      SENTENCE_END,
      WORD,
      WORD_CHARACTER,
      SPACELESS_CHARACTER,
      ...FORBIDDEN_SHAPES,
      ...ACCOUNT_NUMBER_PATTERNS,
      ...CHECKS.flatMap((c) => c.all),
    ]) {
      expect(sources.has(re.source), re.source).toBe(true);
    }
  });

  it('recheck finds each one safe (linear), none vulnerable', async () => {
    // recheck's default backend: the native checker shipped in its npm platform package when installed,
    // else its pure-JS build (slower, same answers).
    const { check } = await import('recheck');
    const unsafe: string[] = [];
    for (const { where, pattern, flags } of literals) {
      const result = await check(pattern, flags, { timeout: 120_000, randomSeed: 11 });
      if (result.status === 'vulnerable') unsafe.push(`${where}: /${pattern}/${flags} is vulnerable (${result.complexity.summary})`);
      else if (result.status === 'unknown') unsafe.push(`${where}: /${pattern}/${flags} is unknown (${result.error.kind})`);
    }
    expect(unsafe).toEqual([]);
  }, 900_000);
});

/**
 * Counts the characters regular expressions sweep over texts of at least `minLength` characters: each
 * `exec` from where it starts (`lastIndex` for a global or sticky pattern, else 0) to the end of its match,
 * or to the end of the text when it fails. recheck (above) proves each pattern's work linear in what it
 * sweeps, so a bound here is a bound on the work, with no clock involved.
 */
function sweptCharacters(minLength: number): { total: () => number } {
  const exec = RegExp.prototype.exec;
  let swept = 0;
  vi.spyOn(RegExp.prototype, 'exec').mockImplementation(function (this: RegExp, text: string) {
    const start = this.global || this.sticky ? this.lastIndex : 0;
    const match = exec.call(this, text);
    if (text.length >= minLength) swept += (match ? match.index + match[0].length : text.length) - start;
    return match;
  });
  return { total: () => swept };
}

const MiB = MAX_BODY_BYTES;
const PATTERN_TESTS = CHECKS.reduce((n, c) => n + c.all.length, 0);

describe('ReDoS: the LP report grader on 1 MiB of adversarial text', () => {
  afterEach(() => vi.restoreAllMocks());

  it('1 MiB of digits after "up" is graded in one pass per pattern: performance passes, one word run', () => {
    const text = `up ${'1'.repeat(MiB - 5)} %`;
    const swept = sweptCharacters(MiB / 2);
    const r = gradeLpReport({ reportText: text, reportingFrequency: 'quarterly' });
    // One sweep per check pattern, words, sentence ends, and the syllable count of the one long word.
    expect(swept.total()).toBeLessThanOrEqual((PATTERN_TESTS + 3) * text.length);
    expect(r.checks.find((c) => c.id === 'performance')!.passed).toBe(true);
    expect(r.readability.words).toBe(2);
    expect(r.readability.sentences).toBe(1);
  });

  it('1 MiB of digits with no % fails the percentage check; 1 MiB of dots is one sentence end', () => {
    expect(PERCENTAGE.test('1'.repeat(MiB))).toBe(false);
    const swept = sweptCharacters(MiB / 2);
    const text = `word${'.'.repeat(MiB - 4)}`;
    expect(readability(text)).toMatchObject({ words: 1, sentences: 1 });
    // words, sentence ends, and the syllables of the one word: three sweeps.
    expect(swept.total()).toBeLessThanOrEqual(3 * text.length);
    expect((`${'.'.repeat(MiB / 2)}x${'!?'.repeat(MiB / 4 - 1)}`.match(SENTENCE_END) ?? []).length).toBe(1);
  });

  it('the sentence and percentage patterns keep their meaning', () => {
    expect(['4.2%', '-3 %', '+10.5%', '−1%', '12\t%'].every((t) => PERCENTAGE.test(t))).toBe(true);
    expect(['%', '4.2', '4  %', 'x %'].some((t) => PERCENTAGE.test(t))).toBe(false);
    expect(readability('One. Two! Three?! Four... five 3.5 six').sentences).toBe(4);
    expect(readability('a.b.c').sentences).toBe(1);
  });

  it('1 MiB of e-mail local-part characters is masked and scanned linearly', () => {
    const run = 'a.'.repeat(MiB / 2);
    expect(maskFreeText(run)).toBe(run);
    expect(maskFreeText(`${'a'.repeat(MiB)}@example.com`)).toBe('[redacted]');
    expect(FORBIDDEN_SHAPES.some((re) => re.test(`${'a'.repeat(MiB)}@`))).toBe(false);
  });
});

describe('ReDoS: account numbers and identity values in 1 MiB of adversarial text', () => {
  afterEach(() => vi.restoreAllMocks());

  it('a 1 MiB run of digits, with or without single separators or a decimal part, is read in a few sweeps', () => {
    const digits = '1'.repeat(MiB);
    const spaced = `${'1 '.repeat(MiB / 2 - 1)}1`;
    const hyphens = `${'12-'.repeat(MiB / 3)}1`;
    const swept = sweptCharacters(MiB / 2);
    expect(maskAccountNumbers(digits)).toBe('[redacted]');
    expect(maskAccountNumbers(`${digits}.5`)).toBe(`${digits}.5`);
    expect(maskAccountNumbers(spaced)).toBe('[redacted]');
    expect(maskAccountNumbers(hyphens)).toBe('[redacted]');
    // Per text: the run, then the decimal check, the dates per chunk, the digit count and the thousands check.
    expect(swept.total()).toBeLessThanOrEqual(5 * (2 * digits.length + spaced.length + hyphens.length + 2));
  });

  it('a 1 MiB run of full-width digits, or of full-width dates, is read in a few sweeps', () => {
    const digits = '１'.repeat(MiB);
    const dates = `${'２０２６－０３－３１　'.repeat(MiB / 11)}１`;
    const swept = sweptCharacters(MiB / 2);
    expect(maskAccountNumbers(digits)).toBe('[redacted]');
    expect(maskAccountNumbers(`${digits}．５`)).toBe(`${digits}．５`);
    expect(maskAccountNumbers(dates)).toBe(dates);
    // Per text: the run, the decimal check, the dates per chunk, the digit count and the thousands check.
    expect(swept.total()).toBeLessThanOrEqual(5 * (2 * digits.length + dates.length + 2));
  });

  it('1 MiB of words sharing the first words of a long identity value is scanned and masked in one sweep each', () => {
    const set = identitySet([`${'aa '.repeat(40)}zz`, 'Margaret Okafor']);
    const text = 'aa '.repeat(MiB / 3);
    const swept = sweptCharacters(MiB / 2);
    expect(maskFreeText(text, set)).toBe(text);
    expect(() => redact(z.strictObject({ t: z.string() }), { t: text }, set)).not.toThrow();
    expect(maskFreeText(`${text}margaret\nOKAFOR`, set)).toBe(`${text}[redacted]`);
    // Each pass over the text is one sweep of one pattern; the scan's trie walks are no regular expression
    // and take at most 41 look-ups a word (the value's words).
    expect(swept.total()).toBeLessThanOrEqual(40 * MiB);
  });
});

/**
 * Counts `Map#get` calls while `f` runs: every step of the identity scan through a node of the trie with
 * more than one next word is one (the test's values make every node such a node), so the count bounds the
 * scan's walks with no clock involved.
 */
function mapGetsDuring(f: () => void): number {
  const get = Map.prototype.get;
  let calls = 0;
  Map.prototype.get = function (this: Map<unknown, unknown>, key: unknown) {
    calls++;
    return get.call(this, key);
  };
  try {
    f();
  } finally {
    Map.prototype.get = get;
  }
  return calls;
}

describe('ReDoS: identity values in 1 MiB of a script written without spaces', () => {
  afterEach(() => vi.restoreAllMocks());

  it('1 MiB of Han characters repeating the first characters of 40 long values is scanned in a bounded number of steps per character', () => {
    // 北南, 北北南, ..., 北×40 南: every node of the trie has two next words; the text is 北 a million times,
    // each character a word of its own, and every position starts a walk as deep as 40 words.
    const set = identitySet([...Array.from({ length: 40 }, (_, k) => `${'北'.repeat(k + 1)}南`), '王小明']);
    const text = '北'.repeat(MiB);
    const schema = z.strictObject({ t: z.string() });
    const swept = sweptCharacters(MiB / 2);
    let masked = '';
    const gets = mapGetsDuring(() => {
      expect(maskFreeText(text, set)).toBe(text);
      expect(() => redact(schema, { t: text }, set)).not.toThrow();
      masked = maskFreeText(`${text}南，付款给王小明`, set);
    });
    expect(masked).toBe(`${'北'.repeat(MiB - 40)}[redacted]，付款给[redacted]`);
    // Three scans of about 1 Mi words each: at most 4 look-ups a word (the next word, and the fallbacks a
    // word pays for at most once), where a walk from every word would take up to 41.
    expect(gets).toBeLessThanOrEqual(3 * 4 * (MiB + 16));
    expect(swept.total()).toBeLessThanOrEqual(40 * MiB);
  });
});

describe('ReDoS: the same text through REST and the public MCP server', () => {
  const app = createApp({ clock: () => new Date('2026-11-20T12:00:00Z') });
  const envelope = (reportText: string) =>
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'calc_lp_report_grader', arguments: { reportText } } });
  // The largest text that fits the 1 MiB body in the MCP envelope.
  const fill = (ch: string) => `up ${ch.repeat(MiB - envelope('up ').length - 1)}`;

  it('calc_lp_report_grader grades ~1 MiB of digits and ~1 MiB of dots', async () => {
    for (const [ch, performance] of [
      ['1', false],
      ['.', false],
    ] as const) {
      const body = envelope(fill(ch));
      expect(body.length).toBeLessThanOrEqual(MiB);
      const res = await app.request('/api/mcp/public', { method: 'POST', headers: SPEC_MCP_HEADERS, body }, fakeEnv());
      expect(res.status).toBe(200);
      const msg = (await res.json()) as { result: { structuredContent: { checks: { id: string; passed: boolean }[] }; isError?: boolean } };
      expect(msg.result.isError).toBeUndefined();
      expect(msg.result.structuredContent.checks.find((c) => c.id === 'performance')!.passed).toBe(performance);
    }
  });

  it('POST the LP report grader ~1 MiB of digits followed by %', async () => {
    const body = JSON.stringify({ reportText: `up ${'1'.repeat(MiB - 40)}%` });
    const res = await app.request(
      calcPath('lp-report-grader'),
      { method: 'POST', headers: { 'content-type': 'application/json' }, body },
      fakeEnv(),
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as { checks: { id: string; passed: boolean }[] }).checks[0]).toMatchObject({
      id: 'performance',
      passed: true,
    });
  });
});
