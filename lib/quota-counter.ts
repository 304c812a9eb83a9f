/**
 * The daily quota's counters as one isolate keeps them (lib/rate-limit.ts counts calls on them;
 * docs/api.md#accuracy-of-the-daily-quota): one per caller and UTC day, per `RATE_LIMITS` namespace, synced
 * with KV at most once a second each way. A request reads KV only when this isolate has not read the counter
 * in the last second ({@link freshen}), and its calls are written behind its response, coalesced with the
 * calls of other requests into one write a second ({@link writeBehind}).
 * Requests share only plain data, never a pending promise ({@link Counter}).
 */
import { logFault } from './log.ts';

/** At most one KV read and one KV write per quota counter per this many milliseconds, per isolate. */
export const QUOTA_SYNC_MS = 1_000;

/**
 * One caller-day counter as this isolate knows it. Only plain data: requests share it, never a pending
 * promise (workerd ties I/O and timers to the request that started them, so a request awaiting another's
 * promise is cancelled as hung when that request ends first). A KV read or write is claimed by the request
 * that makes it, with a timestamp that expires after {@link QUOTA_SYNC_MS}: a claim whose request was
 * cancelled blocks nothing for longer than that.
 */
export interface Counter {
  /** Calls used, as far as this isolate knows (KV's count when last read, plus the calls counted here since). */
  count: number;
  /**
   * The highest value this isolate has read from KV or handed to a write: a read above it brings calls of
   * other isolates. Values this isolate wrote (even still in flight) are never counted twice.
   */
  known: number;
  /** Whether a read of KV has succeeded in this isolate (until then a request waits for the first one). */
  read: boolean;
  /** `performance.now()` when the last read started (its claim); -Infinity before the first. */
  readClaimedAt: number;
  /** `performance.now()` when the last read failed; -Infinity if none has. */
  readFailedAt: number;
  /** `performance.now()` when the last write started (its claim); -Infinity before the first. */
  writeClaimedAt: number;
  /** Calls counted by this isolate (never merged with KV's count): what a request's own write must cover. */
  counted: number;
  /** `counted` as of the value of the last successful write. */
  written: number;
  /** Requests whose own write of this counter is still pending (behind their responses). */
  writers: number;
  /**
   * The write that waits for the next slot and will carry every call counted until it starts (a token of
   * the request's {@link writeBehind}), or null. While it is due, a request's calls need no write of their
   * own ({@link writeScheduled}).
   */
  scheduled: object | null;
  /** `performance.now()` when the {@link scheduled} write is due to start. */
  scheduledAt: number;
}

/** Counters one isolate keeps per namespace; past this, the oldest with nothing left to write is dropped (and re-read if needed). */
const MAX_COUNTERS = 10_000;

/**
 * How often a request waiting for the first read of a counter (made by another request) looks again, ms:
 * it waits on its own timer and reads plain data, never the other request's promise.
 */
const READ_POLL_MS = 5;

/**
 * How long a request keeps trying to have its own calls written behind its response, ms. KV refusing writes
 * (its rate limit of about one write per key per second, or an outage) for longer leaves the calls counted
 * in this isolate only, until a later call's write carries them (each write holds the whole count).
 */
export const QUOTA_WRITE_GIVE_UP_MS = 10_000;

/**
 * Counters by KV namespace (the binding is one object per isolate; tests get a fresh namespace, so a fresh
 * set), for one UTC day (a call of a new day starts a new set), by KV key.
 */
const counters = new WeakMap<object, { day: string; byKey: Map<string, Counter> }>();

function countersOf(kv: KVNamespace, day: string): Map<string, Counter> {
  let set = counters.get(kv);
  if (!set || set.day !== day) {
    set = { day, byKey: new Map() };
    counters.set(kv, set);
  }
  if (set.byKey.size >= MAX_COUNTERS) {
    for (const [key, c] of set.byKey) {
      if (c.writers === 0 && c.written >= c.counted) {
        set.byKey.delete(key);
        break;
      }
    }
  }
  return set.byKey;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Reads the counter from KV for the calling request (its own I/O) and adds what other isolates counted
 * since this isolate last knew KV's value. A failed read is logged (`quota_read_failed`) and leaves the
 * count as it is: the call is counted in memory and never refused or failed for it.
 */
async function readCounter(kv: KVNamespace, key: string, counter: Counter): Promise<void> {
  counter.readClaimedAt = performance.now();
  let stored: number;
  try {
    stored = Number.parseInt((await kv.get(key)) ?? '0', 10) || 0;
  } catch (err) {
    counter.readFailedAt = performance.now();
    logFault('quota_read_failed', { error: err instanceof Error ? err.name : typeof err });
    return;
  }
  if (stored > counter.known) {
    counter.count += stored - counter.known;
    counter.known = stored;
  }
  counter.read = true;
}

/**
 * Makes sure the counter is fresh enough for the calling request to decide on: read at most once per
 * {@link QUOTA_SYNC_MS} per isolate, by the request that claims the read. Before a first read has succeeded,
 * a request that finds another's read claimed waits for it, on its own timer, while the claim is fresh (a
 * cancelled claim expires), then reads itself; once the isolate has read the counter, a request never waits
 * for another's read and decides on the count in memory.
 */
export async function freshen(kv: KVNamespace, key: string, counter: Counter): Promise<void> {
  for (;;) {
    const now = performance.now();
    if (now - counter.readClaimedAt >= QUOTA_SYNC_MS) return readCounter(kv, key, counter);
    // Another request's read is in flight, or failed: decide on what is known, but not on nothing.
    if (counter.read || counter.readFailedAt >= counter.readClaimedAt) return;
    await sleep(Math.min(READ_POLL_MS, counter.readClaimedAt + QUOTA_SYNC_MS - now));
  }
}

/**
 * The calling request's write of a counter, run behind its response (its own `waitUntil`): it ends once a
 * write that started after this request's calls were counted has succeeded (`written` ≥ `target`). At most
 * one write per counter starts per {@link QUOTA_SYNC_MS} per isolate, by whichever waiting request claims it
 * first, and it writes the whole count as it is then; the others wait on their own timers for the next
 * slot. The last request to start waiting is the {@link Counter.scheduled} write: it also owes the calls of
 * the requests that counted on it ({@link writeScheduled}), so it goes on until those are written too. A
 * refused write (KV's per-key rate limit, an outage) is tried again at the next slot, for up to
 * {@link QUOTA_WRITE_GIVE_UP_MS}.
 * @param target the value of `counter.counted` once this request's calls were counted
 */
export async function writeBehind(kv: KVNamespace, key: string, counter: Counter, target: number, ttlSeconds: number): Promise<void> {
  const started = performance.now();
  const self = {};
  const owes = () => counter.written < target || (counter.scheduled === self && counter.written < counter.counted);
  counter.writers++;
  try {
    while (owes() && performance.now() - started < QUOTA_WRITE_GIVE_UP_MS) {
      // A timer may fire a fraction of a millisecond early: wait until a full second has passed.
      const wait = counter.writeClaimedAt + QUOTA_SYNC_MS - performance.now();
      if (wait > 0) {
        counter.scheduled = self;
        counter.scheduledAt = counter.writeClaimedAt + QUOTA_SYNC_MS;
        await sleep(Math.ceil(wait));
        continue;
      }
      counter.writeClaimedAt = performance.now();
      // From here on, calls counted after this write's value need a write of their own.
      counter.scheduled = null;
      const value = counter.count;
      const covers = counter.counted;
      counter.known = Math.max(counter.known, value);
      try {
        // KV expirations must be at least 60 s ahead; keep the counter an hour past midnight, then let it expire.
        await kv.put(key, String(value), { expirationTtl: Math.max(60, ttlSeconds + 3600) });
        counter.written = Math.max(counter.written, covers);
      } catch {
        // Refused (over KV's write rate) or failed: the next slot writes the count, this call's included.
      }
    }
  } finally {
    counter.writers--;
    if (counter.scheduled === self) counter.scheduled = null;
  }
}

/**
 * Whether calls counted now will be written by a write already scheduled (a request's {@link writeBehind}
 * waiting for the next slot, which writes the whole count when it starts), so that the calling request
 * need not start one: one timer and one `waitUntil` a second per counter instead of one per request. The
 * request awaits nothing of that write. A scheduled write not started a second after it was due is taken
 * as gone (its request was cancelled before its `finally` ran), and the next request starts its own.
 */
export function writeScheduled(counter: Counter): boolean {
  return counter.scheduled !== null && performance.now() < counter.scheduledAt + QUOTA_SYNC_MS;
}

/**
 * The counter of `key` (`calc:<caller>:<YYYY-MM-DD>`) for `day` in `kv`, made with nothing counted or read
 * when this isolate has none yet.
 */
export function counterOf(kv: KVNamespace, day: string, key: string): Counter {
  const map = countersOf(kv, day);
  let counter = map.get(key);
  if (!counter) {
    counter = {
      count: 0,
      known: 0,
      read: false,
      readClaimedAt: -Infinity,
      readFailedAt: -Infinity,
      writeClaimedAt: -Infinity,
      counted: 0,
      written: 0,
      writers: 0,
      scheduled: null,
      scheduledAt: -Infinity,
    };
    map.set(key, counter);
  }
  return counter;
}

/** The count this isolate holds for `key` on `day` (0 when it has no such counter): it reads nothing. */
export function countedHere(kv: KVNamespace, day: string, key: string): number {
  return counters.get(kv)?.day === day ? (counters.get(kv)?.byKey.get(key)?.count ?? 0) : 0;
}

/**
 * Waits until no request is still trying to write a counter of `kv` (for tests and benchmarks that look at
 * KV): by polling the counters' plain state, as requests never share a promise.
 */
export async function quotaWritesSettled(kv: KVNamespace): Promise<void> {
  const pending = () => [...(counters.get(kv)?.byKey.values() ?? [])].some((c) => c.writers > 0);
  while (pending()) await sleep(READ_POLL_MS);
}
