/**
 * LP report grader: grades an investor update against the elements investors expect (docs/calculators.md).
 *
 * The score (0–100) is the sum of the points of the twelve content checks that the text satisfies (see
 * {@link CHECKS}); each check looks for its element anywhere in the text, so adding an element never lowers
 * the score. Readability (Flesch reading ease, Flesch 1948: 206.835 − 1.015 × words/sentence − 84.6 ×
 * syllables/word) and length fit for the reporting frequency are reported beside the score, not in it, since
 * they may move either way as text is added. Elements follow the ILPA Reporting Template and CFA Institute
 * GIPS 2020 (§5 presentation: returns, benchmark, period, fees, disclosures).
 */
import * as z from 'zod';
import { lazy } from '../validation.ts';
import { defineCalculator, grade } from './definition.ts';

/**
 * A percentage figure ("4.2%", "-3 %"). Tested for presence only, so a digit, at most one white-space
 * character and `%` is the whole test: any signed decimal followed by `%` contains it, and it contains no
 * unbounded repetition, so it runs in one pass at any length (a `\d+(\.\d+)?\s?%` search restarts
 * inside every run of digits: quadratic).
 */
export const PERCENTAGE = /\d\s?%/;

/**
 * A sentence end: a run of `.`, `!` or `?` followed by white space or the end of the text. The lookbehind
 * makes a run match only from its first character, so a long run with no space after it is read once,
 * not once from each of its characters.
 */
export const SENTENCE_END = /(?<![.!?])[.!?]+(?:\s|$)/g;

/** Words: a letter or digit, then letters, digits and in-word punctuation (`'’.,%-`). */
export const WORD = /[A-Za-z0-9][A-Za-z0-9'’.,%-]*/g;

/** A content check: the points it carries and the patterns that satisfy it (every pattern must match). */
interface Check {
  id: string;
  label: string;
  points: number;
  all: RegExp[];
  suggestion: string;
}

/** The twelve checks; their points sum to 100. */
export const CHECKS: readonly Check[] = [
  {
    id: 'performance',
    label: 'Performance figures',
    points: 14,
    all: [/\b(return|returns|returned|performance|gained|lost|up|down)\b/i, PERCENTAGE],
    suggestion: 'State the period return as a percentage, net of fees.',
  },
  {
    id: 'navAum',
    label: 'NAV / AUM',
    points: 10,
    all: [/\b(NAV|net asset value|AUM|assets under management|fund size)\b/i],
    suggestion: 'Give the NAV per share or the AUM at period end.',
  },
  {
    id: 'benchmark',
    label: 'Benchmark comparison',
    points: 8,
    all: [/\b(benchmark|index|S&P|MSCI|versus|vs\.?|relative to|outperform\w*|underperform\w*)\b/i],
    suggestion: 'Compare the return with a named benchmark.',
  },
  {
    id: 'drivers',
    label: 'Drivers and attribution',
    points: 10,
    all: [/\b(driver|drivers|driven|contribut\w*|attribut\w*|detract\w*)\b/i],
    suggestion: 'Explain what drove the result: the main contributors and detractors.',
  },
  {
    id: 'exposure',
    label: 'Exposure',
    points: 8,
    all: [/\b(exposure|gross|net long|net short|leverage|long\/short|positioning)\b/i],
    suggestion: 'Report gross and net exposure at period end.',
  },
  {
    id: 'risk',
    label: 'Risk',
    points: 10,
    all: [/\b(risk|volatility|drawdown|VaR|value at risk|Sharpe)\b/i],
    suggestion: 'Add risk figures: volatility, drawdown or VaR.',
  },
  {
    id: 'fees',
    label: 'Fees and expenses',
    points: 8,
    all: [/\b(fee|fees|expense|expenses|carry|carried interest)\b/i],
    suggestion: 'Disclose the fees and expenses charged in the period.',
  },
  {
    id: 'flows',
    label: 'Investor flows',
    points: 6,
    all: [
      /\b(subscription|subscriptions|redemption|redemptions|inflow|inflows|outflow|outflows|capital call|capital calls|distribution|distributions)\b/i,
    ],
    suggestion: 'Report subscriptions and redemptions for the period.',
  },
  {
    id: 'outlook',
    label: 'Outlook',
    points: 8,
    all: [/\b(outlook|looking ahead|going forward|next (month|quarter|year)|we expect|we anticipate)\b/i],
    suggestion: 'Close with the outlook and positioning for the next period.',
  },
  {
    id: 'operations',
    label: 'Operations',
    points: 6,
    all: [/\b(operations|operational|administrator|auditor|audit|reconcil\w*|custod\w*|compliance|hire|hired)\b/i],
    suggestion: 'Note operational matters: administrator, audit, team changes.',
  },
  // A month name counts only with a year ("March 2026"), so the verb "may" or "march" does not.
  {
    id: 'period',
    label: 'Period covered',
    points: 6,
    all: [
      /\b((january|february|march|april|may|june|july|august|september|october|november|december)\s+(\d{1,2}(st|nd|rd|th)?,?\s+)?\d{4}|Q[1-4]|H[12]|(first|second|third|fourth) quarter|(first|second) half|year[- ]to[- ]date|YTD|\d{4}-\d{2}(-\d{2})?)\b/i,
    ],
    suggestion: 'Name the period the report covers.',
  },
  {
    id: 'disclaimer',
    label: 'Disclaimer',
    points: 6,
    all: [/\b(past performance|not indicative|not an offer|not investment advice|confidential|disclaimer)\b/i],
    suggestion: 'Add the standard disclaimer (past performance, not an offer, confidentiality).',
  },
];

/** Target word counts per reporting frequency. */
export const LENGTH_TARGETS = {
  monthly: { min: 300, max: 1200 },
  quarterly: { min: 800, max: 3000 },
  adhoc: { min: 150, max: 1500 },
} as const;

/** Request body. */
export const lpReportGraderInput = lazy(() =>
  z.strictObject({
    reportText: z.string().default('').describe('Text of the investor update; empty grades F.'),
    reportingFrequency: z
      .enum(['monthly', 'quarterly', 'adhoc'])
      .default('quarterly')
      .describe('How often the fund reports; sets the expected length.'),
  }),
);

/** Result of the LP report grader. */
export const lpReportGraderOutput = lazy(() =>
  z.object({
    score: z.number().int().describe('0–100: sum of the points of the checks passed.'),
    grade: z.enum(['A', 'B', 'C', 'D', 'F']),
    checks: z.array(
      z.object({ id: z.string(), label: z.string(), passed: z.boolean(), points: z.number().int(), maxPoints: z.number().int() }),
    ),
    readability: z.object({
      words: z.number().int(),
      sentences: z.number().int(),
      avgWordsPerSentence: z.number().nullable(),
      fleschReadingEase: z.number().nullable().describe('Higher is easier; 30–50 is typical of financial prose; null for empty text.'),
      band: z.enum(['very difficult', 'difficult', 'fairly difficult', 'standard', 'easy', 'n/a']),
    }),
    length: z.object({
      words: z.number().int(),
      targetMinWords: z.number().int(),
      targetMaxWords: z.number().int(),
      fit: z.enum(['too short', 'within range', 'too long']),
    }),
    suggestions: z.array(z.string()),
  }),
);
type GraderOutput = z.output<ReturnType<typeof lpReportGraderOutput>>;

/** Syllables of an English word by vowel groups, less a silent final e (at least 1). */
export function syllables(word: string): number {
  const w = word.toLowerCase().replace(/[^a-z]/g, '');
  if (w.length <= 3) return 1;
  const groups = w
    .replace(/(?:[^laeiouy]es|ed|[^laeiouy]e)$/, '')
    .replace(/^y/, '')
    .match(/[aeiouy]{1,2}/g);
  return Math.max(1, groups?.length ?? 1);
}

/** Words, sentences and Flesch reading ease (Flesch 1948) of a text. */
export function readability(text: string): GraderOutput['readability'] {
  const words = text.match(WORD) ?? [];
  const sentences = Math.max(words.length ? 1 : 0, (text.match(SENTENCE_END) ?? []).length);
  if (words.length === 0) {
    return { words: 0, sentences: 0, avgWordsPerSentence: null, fleschReadingEase: null, band: 'n/a' };
  }
  const syllableCount = words.reduce((acc, w) => acc + syllables(w), 0);
  const wps = words.length / sentences;
  const flesch = 206.835 - 1.015 * wps - 84.6 * (syllableCount / words.length);
  const band =
    flesch < 30 ? 'very difficult' : flesch < 50 ? 'difficult' : flesch < 60 ? 'fairly difficult' : flesch < 70 ? 'standard' : 'easy';
  return {
    words: words.length,
    sentences,
    avgWordsPerSentence: Math.round(wps * 10) / 10,
    fleschReadingEase: Math.round(flesch * 10) / 10,
    band,
  };
}

/** Grades an investor update. Pure; empty text is a valid F. */
export function gradeLpReport(inputs: z.output<ReturnType<typeof lpReportGraderInput>>): GraderOutput {
  const text = inputs.reportText;
  const checks = CHECKS.map((c) => {
    const passed = c.all.every((re) => re.test(text));
    return { id: c.id, label: c.label, passed, points: passed ? c.points : 0, maxPoints: c.points };
  });
  const score = checks.reduce((acc, c) => acc + c.points, 0);
  const read = readability(text);
  const target = LENGTH_TARGETS[inputs.reportingFrequency];
  const fit = read.words < target.min ? 'too short' : read.words > target.max ? 'too long' : 'within range';
  const suggestions = CHECKS.filter((_, i) => !checks[i]!.passed).map((c) => c.suggestion);
  if (fit !== 'within range') {
    const kind = { monthly: 'A monthly', quarterly: 'A quarterly', adhoc: 'An ad hoc' }[inputs.reportingFrequency];
    suggestions.push(`${kind} update usually runs ${target.min}–${target.max} words; this one has ${read.words}.`);
  }
  if (read.fleschReadingEase !== null && read.fleschReadingEase < 30) {
    suggestions.push('Shorten sentences and prefer plain words: the text reads as very difficult.');
  }
  return {
    score,
    grade: grade(score),
    checks,
    readability: read,
    length: { words: read.words, targetMinWords: target.min, targetMaxWords: target.max, fit },
    suggestions,
  };
}

/** The LP report grader (REST, and its MCP tool). */
export const lpReportGrader = defineCalculator({
  slug: 'lp-report-grader',
  title: 'LP report grader',
  description:
    'Grades an investor update: twelve content checks, readability, length for the reporting frequency, and concrete suggestions.',
  input: lpReportGraderInput,
  output: lpReportGraderOutput,
  example: {
    reportText:
      'Dear partners, the fund returned +2.1% net in March (YTD +5.4%), against +1.2% for the benchmark. NAV per unit is 112.40 and AUM is $48.2m. Gross exposure ended at 140%, net 35%; the largest position is 6% of NAV. Drivers: long semiconductors added 1.8%, our short in regional banks cost 0.4%. Risk: VaR (95%, 1 day) is 1.1% of NAV. Outlook: we expect volatility around rate decisions and keep net exposure low. Fees: 2% management and 20% performance above the high-water mark. Contact investor relations with questions.',
    reportingFrequency: 'monthly',
  },
  run: gradeLpReport,
});
