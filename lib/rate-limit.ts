/**
 * The calculators' daily quota (docs/api.md#limits): a counter per caller per UTC day in the `RATE_LIMITS` KV
 * namespace under `calc:<caller>:<YYYY-MM-DD>`, with the Workers Rate Limiting binding `CALC_BURST`
 * (60 calls per 60 s per caller) in front of it.
 *
 * The count is kept in the isolate (lib/quota-counter.ts): each isolate reads a caller's counter from KV at
 * most once a second and writes it at most once a second, behind the response (`waitUntil`), coalescing the
 * calls in between. So a calculator call normally costs no KV round trip at all, and KV's limit of about one
 * write per key per second is never exceeded by one isolate. Requests share only plain data (counts and
 * timestamps), never a pending promise: coalescing is by time, each request awaits only KV calls and timers
 * it started itself, and a request that went away (its client hung up, the runtime cancelled it) holds up no
 * other.
 *
 * Accuracy (docs/api.md#accuracy-of-the-daily-quota; measured in test/rate-limit.test.ts and, in workerd,
 * test/e2e/faults.test.ts): within one isolate the count is exact, concurrent calls included (the first
 * read of a counter is waited for, so an isolate starts from what KV holds), and the count reaches KV within
 * about a second behind the answers. A failed KV read or write never fails a call: the call is counted in
 * memory and the next write that succeeds carries it. Across isolates and Cloudflare locations each sees the
 * others' calls only once they are written (up to 1 s) and KV has propagated them (up to about 60 s at other
 * locations), and the last write wins; the calls in that gap can pass the limit, and the burst binding caps
 * them at 60 a minute per location. Headers follow draft-ietf-httpapi-ratelimit-headers.
 */
import { RateLimitedError } from './errors.ts';
import type { Principal } from './keys.ts';
import { counterOf, countedHere, freshen, writeBehind, writeScheduled } from './quota-counter.ts';

import {
  ANONYMOUS_DAILY_CALC_LIMIT,
  BURST_LIMIT,
  BURST_PERIOD_SECONDS,
  DAILY_WINDOW_SECONDS,
  FUND_BURST_LIMIT,
  USAGE_HISTORY_DAYS,
} from './limits.ts';
// The limits live in lib/limits.ts, the counters' timing in lib/quota-counter.ts; re-exported here, where they are enforced.
export { ANONYMOUS_DAILY_CALC_LIMIT, BURST_LIMIT, BURST_PERIOD_SECONDS, DAILY_WINDOW_SECONDS, FUND_BURST_LIMIT } from './limits.ts';
export { QUOTA_SYNC_MS, quotaWritesSettled } from './quota-counter.ts';

/** The source of the current time; injectable so tests can cross a UTC midnight. */
export type Clock = () => Date;
/** The real clock. */
export const systemClock: Clock = () => new Date();

/** Where the quota of a caller stands after a call. */
export interface QuotaState {
  limit: number;
  remaining: number;
  /** Seconds until the next UTC midnight, when the quota resets (1..86,400). */
  resetSeconds: number;
}

/** The UTC date `YYYY-MM-DD` of an instant. */
export function utcDate(now: Date): string {
  const t = now.getTime();
  // The day of the last call, reused while `now` is within it (formatting a date was a fixed cost per call).
  if (t >= lastDay.start && t < lastDay.start + 86_400_000) return lastDay.text;
  const text = now.toISOString().slice(0, 10);
  if (Number.isFinite(t)) lastDay = { start: t - (((t % 86_400_000) + 86_400_000) % 86_400_000), text };
  return text;
}

let lastDay = { start: Number.NaN, text: '' };

/** Whole seconds from `now` to the next UTC midnight, rounded up (1..86,400). */
export function secondsToUtcMidnight(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

/**
 * The /64 network of an IPv6 address, e.g. `2001:db8:a:b:1:2:3:4` → `2001:db8:a:b::/64`
 * (RFC 5952 lower case, no leading zeros). IPv4 (and IPv4-mapped IPv6) addresses are returned as dotted quads.
 * @returns null when the text is not an IP address
 */
export function callerNetwork(ip: string): string | null {
  const text = ip.trim().toLowerCase();
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(text)) return text.split('.').every((o) => Number(o) <= 255) ? text : null;
  if (!/^[0-9a-f:.]+$/.test(text) || !text.includes(':')) return null;
  const mapped = /^::ffff:(\d{1,3}(\.\d{1,3}){3})$/.exec(text);
  if (mapped) return callerNetwork(mapped[1]!);
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  if (tail.length && tail[tail.length - 1]!.includes('.')) tail.splice(-1, 1, '0', '0');
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(missing).fill('0'), ...tail];
  if (groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/** The client's network from `CF-Connecting-IP` (IPv6 grouped by /64), or `unknown` without a usable address. */
export function clientNetwork(connectingIp: string | undefined): string {
  return (connectingIp && callerNetwork(connectingIp)) || 'unknown';
}

/** The prefix of an account's caller id (`account:<accountId>`). */
export const ACCOUNT_CALLER = 'account:';

/**
 * The caller a calculator call counts against, and its daily limit: for a key minted in the developer
 * console, its account (`account:<accountId>`, at the limit of the account's plan, which the authentication
 * step resolved, shared by all its keys); for
 * another stored key, the key's id and its own limit; else the client address from `CF-Connecting-IP` (IPv6
 * grouped by /64). `X-Forwarded-For` is never read. The demo key counts as anonymous and keeps the anonymous
 * limit.
 */
export function calcCaller(principal: Principal | null, connectingIp: string | undefined): { id: string; limit: number } {
  if (principal?.kind === 'key' && principal.account) {
    return { id: `${ACCOUNT_CALLER}${principal.account.accountId}`, limit: principal.account.dailyCalcLimit };
  }
  if (principal?.kind === 'key') return { id: principal.record.keyId, limit: principal.record.dailyCalcLimit };
  return { id: clientNetwork(connectingIp), limit: ANONYMOUS_DAILY_CALC_LIMIT };
}

/** `RateLimit-Policy` and `RateLimit` header values of the daily quota. */
export function rateLimitHeaders(state: QuotaState): Record<string, string> {
  return {
    'RateLimit-Policy': `"daily";q=${state.limit};w=${DAILY_WINDOW_SECONDS}`,
    RateLimit: `"daily";r=${state.remaining};t=${state.resetSeconds}`,
  };
}

/** Headers of a call a burst guard refused: the policy that refused it (`limit` per 60 s), and when to come back. */
export function burstHeaders(limit: number): Record<string, string> {
  return {
    'RateLimit-Policy': `"burst";q=${limit};w=${BURST_PERIOD_SECONDS}`,
    RateLimit: `"burst";r=0;t=${BURST_PERIOD_SECONDS}`,
  };
}

/** A 429 for a refusal by a burst guard allowing `limit` calls per 60 s. */
function burstRefusal(limit: number): RateLimitedError {
  const err = new RateLimitedError('Too many calls in a short time; slow down.', BURST_PERIOD_SECONDS);
  Object.assign(err.headers, burstHeaders(limit));
  return err;
}

/**
 * Counts one fund-data request against the `FUND_BURST` binding (120 per 60 s): per key id for a stored key;
 * for the shared demo key, per client network (`CF-Connecting-IP`, IPv6 by /64), so that one demo user cannot
 * use up everyone's allowance. Called after authentication: 401 and 403 answers count against nothing.
 * @throws {RateLimitedError} 429 with `Retry-After` 60 and the burst policy's headers
 */
export async function consumeFundBurst(
  env: { FUND_BURST: RateLimit },
  principal: Principal,
  connectingIp: string | undefined,
): Promise<void> {
  const key = principal.kind === 'key' ? `key:${principal.record.keyId}` : `demo:${clientNetwork(connectingIp)}`;
  if (!(await env.FUND_BURST.limit({ key })).success) throw burstRefusal(FUND_BURST_LIMIT);
}

/** Runs a promise after the response (the Worker's `waitUntil`). */
export type Defer = (work: Promise<unknown>) => void;

/**
 * The `waitUntil` of a request's execution context; where there is none (tests calling the app directly),
 * the work just runs on its own.
 */
export function deferOf(c: { executionCtx: { waitUntil(p: Promise<unknown>): void } }): Defer {
  return (work) => {
    try {
      c.executionCtx.waitUntil(work);
    } catch {
      // No ExecutionContext outside the Worker runtime: `work` runs on its own.
    }
  };
}

/**
 * Counts calculator calls against the caller's daily quota: one REST call, or every `tools/call` of one
 * MCP request. The burst guard is asked first (once per call), so a flood is refused without touching KV.
 * The day's count is kept in the isolate: it is read from KV when this isolate has not read it in the last
 * second (the first read of an isolate is waited for; see {@link freshen}), checked and incremented in
 * memory, and written behind the response at most once a second (calls in between are coalesced into one
 * write). Nothing here awaits another request's work: a refusal answers at once, and a request whose
 * calls no scheduled write will carry hands its own write to its own `waitUntil` (one such write a second
 * per counter; see `writeScheduled` in lib/quota-counter.ts). KV failing is never the caller's problem: a
 * failed read leaves the count in memory, a refused write is tried again, and the next successful write
 * carries every call.
 * @param env the `RATE_LIMITS` namespace and the `CALC_BURST` binding
 * @param caller the counter's id and its daily limit (see {@link calcCaller})
 * @param now the request's time (picks the UTC day and the reset)
 * @param calls how many calls this request makes (≥ 1); refused as a whole when they do not all fit
 * @param defer where the write goes after the response (`waitUntil`, see {@link deferOf}); by default it
 *   runs on its own
 * @returns the quota after these calls
 * @throws {RateLimitedError} 429 when the burst guard refuses (`Retry-After` 60, the burst policy's headers)
 *   or the daily quota is used up (`Retry-After` = seconds to UTC midnight, the daily policy's headers)
 */
export async function consumeCalcQuota(
  env: { RATE_LIMITS: KVNamespace; CALC_BURST: RateLimit },
  caller: { id: string; limit: number },
  now: Date,
  calls = 1,
  defer: Defer = () => {},
): Promise<QuotaState> {
  for (let i = 0; i < calls; i++) {
    const burst = await env.CALC_BURST.limit({ key: caller.id });
    if (!burst.success) throw burstRefusal(BURST_LIMIT);
  }
  const day = utcDate(now);
  const key = `calc:${caller.id}:${day}`;
  const resetSeconds = secondsToUtcMidnight(now);
  // An account's counters stay for its usage chart (calcCallsByDay); the others expire after their day.
  const keepSeconds = resetSeconds + (caller.id.startsWith(ACCOUNT_CALLER) ? USAGE_HISTORY_DAYS * DAILY_WINDOW_SECONDS : 0);
  const counter = counterOf(env.RATE_LIMITS, day, key);
  await freshen(env.RATE_LIMITS, key, counter);
  const used = counter.count;
  if (used + calls > caller.limit) {
    // Calls counted here and not yet written (another request's write may have failed) go out behind this answer.
    if (counter.written < counter.counted && counter.writers === 0) {
      defer(writeBehind(env.RATE_LIMITS, key, counter, counter.counted, keepSeconds));
    }
    const err = new RateLimitedError(
      `The daily calculator quota of ${caller.limit} calls is used up; it resets at 00:00 UTC.`,
      resetSeconds,
    );
    Object.assign(err.headers, rateLimitHeaders({ limit: caller.limit, remaining: Math.max(0, caller.limit - used), resetSeconds }));
    throw err;
  }
  counter.count = used + calls;
  counter.counted += calls;
  // A write waiting for the next slot writes these calls too: start one only when none is scheduled.
  if (!writeScheduled(counter)) defer(writeBehind(env.RATE_LIMITS, key, counter, counter.counted, keepSeconds));
  return { limit: caller.limit, remaining: caller.limit - used - calls, resetSeconds };
}

/** One day of a caller's calculator calls. */
export interface DayCount {
  /** UTC date, `YYYY-MM-DD`. */
  day: string;
  calls: number;
}

/**
 * Counts of days that can no longer change, per `RATE_LIMITS` namespace and caller-day key: a day before
 * yesterday was written for the last time an hour after its midnight (writes of the day's last calls run
 * behind them and KV propagates within about a minute). Plain values, at most {@link FINAL_DAYS_CACHED} per
 * namespace and isolate (all forgotten when full).
 */
const finalDays = new WeakMap<object, Map<string, number>>();
const FINAL_DAYS_CACHED = 10_000;

/**
 * A caller's calculator calls on each of the last `days` UTC days, oldest first, today last (today the
 * larger of KV's count, other isolates' calls up to KV's propagation delay, and this isolate's own, which
 * may not be written yet). Cost: one KV bulk read (one subrequest) of the days this isolate has
 * not read final yet: `days` billed reads on an isolate's first view, then two (today and yesterday), as the
 * days before yesterday are kept in the isolate once read. A missing counter is a day without calls.
 * @param callerId e.g. `account:<accountId>` (only accounts' counters are kept past their day)
 */
export async function calcCallsByDay(kv: KVNamespace, callerId: string, now: Date, days = USAGE_HISTORY_DAYS): Promise<DayCount[]> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const dates = Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10));
  let cache = finalDays.get(kv);
  if (!cache) {
    cache = new Map();
    finalDays.set(kv, cache);
  }
  const keyOf = (day: string) => `calc:${callerId}:${day}`;
  const unread = dates.filter((day) => !cache.has(keyOf(day)));
  const read = unread.length === 0 ? new Map<string, string | null>() : await kv.get(unread.map(keyOf), 'text');
  return dates.map((day, i) => {
    const key = keyOf(day);
    const stored = cache.get(key) ?? (Number.parseInt(read.get(key) ?? '0', 10) || 0);
    const final = i < days - 2;
    if (final && !cache.has(key)) {
      if (cache.size >= FINAL_DAYS_CACHED) cache.clear();
      cache.set(key, stored);
    }
    // Today's calls counted in this isolate may not be written yet.
    return { day, calls: i === days - 1 ? Math.max(stored, countedHere(kv, day, key)) : stored };
  });
}
