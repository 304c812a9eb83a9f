/**
 * A thread's CPU time from Linux's `/proc/<pid>/task/<tid>/schedstat` (bench/workerd.ts reads workerd's
 * threads before and after one request). Linux only; no process of the service reads it.
 */
import { readFileSync, readdirSync } from 'node:fs';

/**
 * The time a thread has spent on a CPU, from the text of its `/proc/<pid>/task/<tid>/schedstat`: the first
 * of its three fields (ns on CPU, ns waiting to run, time slices).
 * @returns nanoseconds
 * @throws {Error} when the text is not three non-negative integers
 */
export function parseSchedstat(text: string): number {
  const fields = text.trim().split(/\s+/);
  if (fields.length !== 3 || !fields.every((f) => /^\d+$/.test(f))) throw new Error(`not a schedstat line: ${JSON.stringify(text)}`);
  return Number(fields[0]);
}

/** Each thread of a process and its time on a CPU, ns (a thread that ends while read is left out). */
export function threadTimes(pid: number): Map<number, number> {
  const times = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      times.set(Number(tid), parseSchedstat(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8')));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && (err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  }
  return times;
}

/**
 * What each thread ran between two readings, ms: the main thread's (the process's own id) and the others'
 * together, and whether the main thread is the one that ran most.
 */
export function cpuBetween(
  pid: number,
  before: ReadonlyMap<number, number>,
  after: ReadonlyMap<number, number>,
): { mainMs: number; otherMs: number; mainRanMost: boolean } {
  let mainMs = 0;
  let otherMs = 0;
  let mostMs = -1;
  let most = -1;
  for (const [tid, ns] of after) {
    const d = (ns - (before.get(tid) ?? 0)) / 1e6;
    if (tid === pid) mainMs = d;
    else otherMs += d;
    if (d > mostMs) {
      mostMs = d;
      most = tid;
    }
  }
  return { mainMs, otherMs, mainRanMost: most === pid };
}
