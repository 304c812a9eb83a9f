/**
 * The instruction-counting A/B tool (bench/callgrind-workerd.ts): reading callgrind's dumps, one per thread,
 * the main thread's told apart. No valgrind run here: these are the parts that turn its files into figures.
 */
import { describe, expect, it } from 'vitest';
import { callgrindSummary, dumpsByThread } from '../bench/callgrind-workerd.ts';

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
