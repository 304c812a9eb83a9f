/**
 * LP report grader: twelve content checks (points sum to 100), readability (Flesch reading ease,
 * Flesch 1948: 206.835 − 1.015 × words/sentence − 84.6 × syllables/word) and length fit.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  CHECKS,
  LENGTH_TARGETS,
  gradeLpReport,
  lpReportGraderInput,
  lpReportGraderOutput,
  readability,
  syllables,
} from '../../lib/calculators/lp-report-grader.ts';

const run = (body: Record<string, unknown>) => gradeLpReport(lpReportGraderInput().parse(body));
const passed = (r: ReturnType<typeof run>) => r.checks.filter((c) => c.passed).map((c) => c.id);

/** One sentence per check that satisfies that check and no other. */
const ELEMENT_SENTENCES: Record<string, string> = {
  performance: 'The fund returned 4.2% in the period.',
  navAum: 'Our NAV per share closed higher.',
  benchmark: 'We beat the benchmark.',
  drivers: 'Energy names were the main drivers.',
  exposure: 'Leverage stayed modest.',
  risk: 'Volatility stayed low.',
  fees: 'Expenses were charged as agreed.',
  flows: 'Subscriptions were strong.',
  outlook: 'Our outlook is cautious.',
  operations: 'We hired a new controller.',
  period: 'This letter covers the third quarter.',
  disclaimer: 'This letter is confidential.',
};
const IDS = CHECKS.map((c) => c.id);
const POINTS = Object.fromEntries(CHECKS.map((c) => [c.id, c.points]));

describe('lp report grader: checks', () => {
  it('has twelve checks whose points sum to 100, one sentence per check here', () => {
    expect(CHECKS).toHaveLength(12);
    expect(CHECKS.reduce((a, c) => a + c.points, 0)).toBe(100);
    expect(Object.keys(ELEMENT_SENTENCES).sort()).toEqual([...IDS].sort());
  });

  it.each(Object.entries(ELEMENT_SENTENCES))('%s: its sentence passes that check and only that one', (id, sentence) => {
    const r = run({ reportText: sentence });
    expect(passed(r)).toEqual([id]);
    expect(r.score).toBe(POINTS[id]);
    const check = r.checks.find((c) => c.id === id)!;
    expect(check).toMatchObject({ passed: true, points: POINTS[id], maxPoints: POINTS[id] });
    // Its suggestion is gone; the eleven others remain.
    const own = CHECKS.find((c) => c.id === id)!.suggestion;
    expect(r.suggestions).not.toContain(own);
    for (const c of CHECKS) if (c.id !== id) expect(r.suggestions).toContain(c.suggestion);
  });

  it.each([
    ['performance', 'The fund had a good month.', false], // no percentage
    ['performance', 'Cash was 4.2% of the book.', false], // a percentage but no performance word
    ['performance', 'Returns were −1.5 % for the month.', true], // Unicode minus and a space before %
    ['navAum', 'Assets under management reached a new high.', true],
    ['navAum', 'Net asset value rose.', true],
    ['benchmark', 'We outperformed our peers.', true],
    ['benchmark', 'Small caps underperformed.', true],
    ['benchmark', 'We tracked the MSCI World.', true],
    ['benchmark', 'Results were in line with peers.', false],
    ['benchmark', 'Results vs. peers were mixed.', true],
    ['drivers', 'Technology contributed most.', true],
    ['exposure', 'We stayed net long all month.', true],
    ['exposure', 'We stayed net.', false],
    ['risk', 'The Sharpe ratio improved.', true],
    ['fees', 'Carried interest accrued.', true],
    ['flows', 'We paid two distributions.', true],
    ['outlook', 'Looking ahead, we stay patient.', true],
    ['outlook', 'Next quarter we rebalance.', true],
    ['operations', 'The auditor signed off.', true],
    ['period', 'Figures are as of 2026-03-31.', true],
    ['period', 'H1 was quiet.', true],
    ['period', 'Q5 was quiet.', false],
    ['period', 'Markets may march higher.', false],
    ['period', 'March 2026 was strong.', true],
    ['period', 'As of September 30, 2026 the book was flat.', true],
    ['disclaimer', 'Past performance is no guide.', true],
  ] as const)('%s on %j → %s', (id, text, expected) => {
    expect(run({ reportText: text }).checks.find((c) => c.id === id)!.passed).toBe(expected);
  });

  it('a report with all twelve elements scores 100, grade A, no content suggestions', () => {
    const text = IDS.map((id) => ELEMENT_SENTENCES[id]).join(' ');
    const r = run({ reportText: text, reportingFrequency: 'adhoc' });
    expect(r.score).toBe(100);
    expect(r.grade).toBe('A');
    expect(r.checks.every((c) => c.passed && c.points === c.maxPoints)).toBe(true);
    // Only the length suggestion is left (about 60 words, under the ad hoc minimum of 150).
    expect(r.suggestions).toHaveLength(1);
    expect(r.suggestions[0]).toMatch(/^An ad hoc update usually runs 150–1500 words; this one has \d+\.$/);
    expect(() => lpReportGraderOutput().parse(r)).not.toThrow();
  });

  it('empty text is a valid F with score 0, not an error', () => {
    for (const reportText of ['', '   \n\n  ']) {
      const r = run({ reportText });
      expect(r.score).toBe(0);
      expect(r.grade).toBe('F');
      expect(r.checks.every((c) => !c.passed && c.points === 0)).toBe(true);
      expect(r.readability).toEqual({ words: 0, sentences: 0, avgWordsPerSentence: null, fleschReadingEase: null, band: 'n/a' });
      expect(r.length).toEqual({ words: 0, targetMinWords: 800, targetMaxWords: 3000, fit: 'too short' });
      // Twelve content suggestions and the length one.
      expect(r.suggestions).toHaveLength(13);
    }
    expect(run({}).score).toBe(0);
  });

  it('the score is the sum of the points of the elements present (property)', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(IDS), (ids) => {
        const r = run({ reportText: ids.map((id) => ELEMENT_SENTENCES[id]).join('\n\n') });
        expect(passed(r).sort()).toEqual([...ids].sort());
        expect(r.score).toBe(ids.reduce((a, id) => a + POINTS[id]!, 0));
      }),
      { numRuns: 150 },
    );
  });

  it('inserting a missing element at a paragraph boundary never lowers the score (property)', () => {
    // Paragraphs: element sentences mixed with neutral filler.
    const filler = fc.constantFrom('We thank you for your trust.', 'The team met twice.', 'Nothing else to add here.', 'Kind regards.');
    const paragraph = fc.oneof(fc.constantFrom(...Object.values(ELEMENT_SENTENCES)), filler);
    fc.assert(
      fc.property(fc.array(paragraph, { maxLength: 8 }), fc.constantFrom(...IDS), fc.nat(), (paras, id, at) => {
        const before = run({ reportText: paras.join('\n\n') });
        const k = paras.length === 0 ? 0 : at % (paras.length + 1);
        const inserted = [...paras.slice(0, k), ELEMENT_SENTENCES[id]!, ...paras.slice(k)];
        const after = run({ reportText: inserted.join('\n\n') });
        expect(after.score).toBeGreaterThanOrEqual(before.score);
        const wasPassed = before.checks.find((c) => c.id === id)!.passed;
        expect(after.score).toBe(before.score + (wasPassed ? 0 : POINTS[id]!));
        // No check that passed before fails after.
        before.checks.forEach((c, i) => {
          if (c.passed) expect(after.checks[i]!.passed).toBe(true);
        });
      }),
      { numRuns: 200 },
    );
  });

  it('appending any sentence after a space never lowers the score of any text (property)', () => {
    const word = fc.constantFrom(
      'NAV',
      'return',
      '5%',
      'index',
      'risk',
      'fees',
      'outlook',
      'audit',
      'May',
      '2026-06',
      'confidential',
      'net',
      'long',
      'the',
      'and',
      'x',
      '.',
      ',',
      '(',
      ')',
      '%',
      '-',
      '3',
      'Q2',
      'value',
    );
    const text = fc.array(word, { maxLength: 30 }).map((ws) => ws.join(''));
    const sep = fc.constantFrom(' ', '\n', '\n\n', '\t');
    fc.assert(
      fc.property(text, sep, fc.constantFrom(...Object.values(ELEMENT_SENTENCES)), (t, s, sentence) => {
        expect(run({ reportText: t + s + sentence }).score).toBeGreaterThanOrEqual(run({ reportText: t }).score);
      }),
      { numRuns: 200 },
    );
  });
});

describe('lp report grader: readability', () => {
  it('syllables: short words are one; silent final e, -es and -ed are dropped', () => {
    expect(['a', 'the', 'cat', 'four', 'fund', 'calm'].map(syllables)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(syllables('make')).toBe(1); // silent e
    expect(syllables('table')).toBe(2); // -le keeps its syllable
    expect(syllables('percent.')).toBe(2); // punctuation ignored
    expect(syllables('manager')).toBe(3);
    expect(syllables('2026')).toBe(1); // no letters: at least 1
  });

  it('computes Flesch reading ease of a short text by hand', () => {
    // "The fund gained four percent. Our manager expects calm markets."
    // words: The(1) fund(1) gained(1) four(1) percent(2) | Our(1) manager(3) expects(2) calm(1) markets(2)
    // → 10 words, 2 sentences, 15 syllables.
    const text = 'The fund gained four percent. Our manager expects calm markets.';
    const counts = text.split(' ').map(syllables);
    expect(counts).toEqual([1, 1, 1, 1, 2, 1, 3, 2, 1, 2]);
    // Flesch = 206.835 − 1.015 × (10/2) − 84.6 × (15/10) = 206.835 − 5.075 − 126.9 = 74.86 → 74.9 (≥ 70: easy)
    expect(readability(text)).toEqual({ words: 10, sentences: 2, avgWordsPerSentence: 5, fleschReadingEase: 74.9, band: 'easy' });
  });

  it('scores dense polysyllabic prose as very difficult and suggests plainer words', () => {
    // operational(5) documentation(5) necessitates(4) considerable(5) administrative(5) organization(5)
    // → 6 words, 1 sentence, 29 syllables.
    const text = 'Operational documentation necessitates considerable administrative organization.';
    expect(text.split(' ').map(syllables)).toEqual([5, 5, 4, 5, 5, 5]);
    // Flesch = 206.835 − 1.015 × 6 − 84.6 × 29/6 = 206.835 − 6.09 − 408.9 = −208.155 → −208.2
    const r = run({ reportText: text });
    expect(r.readability).toEqual({ words: 6, sentences: 1, avgWordsPerSentence: 6, fleschReadingEase: -208.2, band: 'very difficult' });
    expect(r.suggestions).toContain('Shorten sentences and prefer plain words: the text reads as very difficult.');
  });

  it('counts a text without end punctuation as one sentence, and repeated marks as one', () => {
    // 6 one-syllable words, 1 sentence: 206.835 − 6.09 − 84.6 = 116.145 → 116.1
    expect(readability('the cat sat on the mat')).toMatchObject({ words: 6, sentences: 1, fleschReadingEase: 116.1 });
    expect(readability('Up!!! Down?! Flat...')).toMatchObject({ words: 3, sentences: 3 });
  });
});

describe('lp report grader: length fit', () => {
  const words = (n: number) => Array.from({ length: n }, () => 'alpha').join(' ');

  it.each(Object.entries(LENGTH_TARGETS))('%s: within [%o] inclusive', (frequency, target) => {
    const lengthFit = (n: number) => run({ reportText: words(n), reportingFrequency: frequency }).length;
    expect(lengthFit(target.min - 1)).toEqual({
      words: target.min - 1,
      targetMinWords: target.min,
      targetMaxWords: target.max,
      fit: 'too short',
    });
    expect(lengthFit(target.min).fit).toBe('within range');
    expect(lengthFit(target.max).fit).toBe('within range');
    expect(lengthFit(target.max + 1).fit).toBe('too long');
  });

  it('the targets are monthly 300–1200, quarterly 800–3000, ad hoc 150–1500', () => {
    expect(LENGTH_TARGETS).toEqual({
      monthly: { min: 300, max: 1200 },
      quarterly: { min: 800, max: 3000 },
      adhoc: { min: 150, max: 1500 },
    });
  });

  it('a length outside the range adds a suggestion naming the frequency and the count', () => {
    const r = run({ reportText: words(1201), reportingFrequency: 'monthly' });
    expect(r.suggestions).toContain('A monthly update usually runs 300–1200 words; this one has 1201.');
    const ok = run({ reportText: words(500), reportingFrequency: 'monthly' });
    expect(ok.suggestions.some((s) => s.includes('usually runs'))).toBe(false);
  });

  it('length does not move the score', () => {
    const full = IDS.map((id) => ELEMENT_SENTENCES[id]).join(' ');
    expect(run({ reportText: `${full} ${words(5000)}` }).score).toBe(100);
  });
});
