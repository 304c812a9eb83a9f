/**
 * The instruction-counting A/B tool (bench/callgrind-workerd.ts): reading callgrind's dumps, one per thread,
 * the main thread's told apart; and the A/B loop it shares with the CPU-time tools (bench/workerd.ts). No
 * valgrind or workerd run here: these are the parts that turn runs into figures.
 */
import { describe, expect, it, vi } from 'vitest';
import { callgrindSummary, dumpsByThread } from '../bench/callgrind-workerd.ts';
import { figuresOf, interleavedRuns } from '../bench/workerd.ts';

/** The head of a dump as callgrind 3.19 writes it with `--separate-threads=yes`. */
const dump = (thread: number, summary: number) =>
  [
    '# callgrind format',
    'version: 1',
    'creator: callgrind-3.19.0',
    'pid: 4242',
    `part: 1`,
    `thread: ${thread}`,
    'desc: Trigger: Client Request: dump',
    'events: Ir',
    `summary: ${summary}`,
    `totals: ${summary + 38_842}`,
    'fn=(below main)',
    '0 12',
  ].join('\n');

describe('callgrindSummary', () => {
  it("reads the dump's summary line, not its totals or a cost line", () => {
    expect(callgrindSummary(dump(1, 72_609_139))).toBe(72_609_139);
    expect(callgrindSummary(dump(4, 0))).toBe(0);
  });

  it('is NaN for a text with no summary (a dump cut short), so a figure made of it is visibly wrong', () => {
    expect(callgrindSummary('# callgrind format\nversion: 1\nevents: Ir\n')).toBeNaN();
    expect(callgrindSummary('totals: 12')).toBeNaN();
  });
});

describe('dumpsByThread', () => {
  it("finds the main thread's dump (thread 1) among every thread's, leaving out the process's own file and others'", () => {
    const files = ['cg.4242', 'cg.4242.1-04', 'cg.4242.1-01', 'cg.4242.1-02', 'cg.4242.1-10', 'cg.77.1-01', 'valgrind.log', 'workerd.sh'];
    const { main, all } = dumpsByThread(files, 'cg.4242');
    expect(main).toBe('cg.4242.1-01');
    expect(all.sort()).toEqual(['cg.4242.1-01', 'cg.4242.1-02', 'cg.4242.1-04', 'cg.4242.1-10']);
  });

  it('has no main thread when callgrind dumped none', () => {
    expect(dumpsByThread(['cg.4242', 'valgrind.log'], 'cg.4242')).toEqual({ main: undefined, all: [] });
  });
});

describe('interleavedRuns and figuresOf', () => {
  it('runs bundle after bundle, case after case, reversing the bundles every other round, and keeps each run by label', async () => {
    const order: string[] = [];
    const measure = (label: string) => async (bundle: string) => {
      order.push(`${label}@${bundle}`);
      return {
        problem: label === 'b' && bundle === 'B' ? 'status 500' : null,
        n: order.length,
        more: label === 'a' ? [order.length * 10] : [],
      };
    };
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const { runs, failed } = await interleavedRuns(
        2,
        ['A', 'B'],
        [
          { label: 'a', measure: measure('a') },
          { label: 'b', measure: measure('b') },
        ],
      );
      expect(order).toEqual(['a@A', 'b@A', 'a@B', 'b@B', 'a@B', 'b@B', 'a@A', 'b@A']);
      expect(failed).toBe(true);
      expect(errors).toHaveBeenCalledTimes(2);
      expect(figuresOf(runs, (r) => [r.n])).toEqual(
        new Map([
          ['a · A', [1, 7]],
          ['b · A', [2, 8]],
          ['a · B', [3, 5]],
          ['b · B', [4, 6]],
        ]),
      );
      // A figure no run of a label gave (warm requests not asked for) leaves the label out.
      expect(figuresOf(runs, (r) => r.more)).toEqual(
        new Map([
          ['a · A', [10, 70]],
          ['a · B', [30, 50]],
        ]),
      );
    } finally {
      errors.mockRestore();
    }
  });
});
