/**
 * The calculators' daily quota (contract §3): a counter per caller per UTC day in the `RATE_LIMITS` KV
 * namespace under `calc:<caller>:<YYYY-MM-DD>`, with the Workers Rate Limiting binding `CALC_BURST`
 * (60 calls per 60 s per caller) in front of it.
 *
 * Accuracy: KV is eventually consistent and a key takes about one write per second, so calls from one
 * caller that overlap, come faster than one a second, or reach other Cloudflare locations within KV's
 * propagation delay (up to about 60 s) may read the same count; the burst binding caps such calls at 60 a
 * minute. A caller can so exceed the daily quota by at most about one minute's burst. Headers follow
 * draft-ietf-httpapi-ratelimit-headers.
 */
import { RateLimitedError } from './errors.ts';
import type { Principal } from './keys.ts';
import { planDailyCalcLimit } from './console/config.ts';

import { ANONYMOUS_DAILY_CALC_LIMIT, BURST_LIMIT, BURST_PERIOD_SECONDS, DAILY_WINDOW_SECONDS, FUND_BURST_LIMIT } from './limits.ts';
// The limits live in lib/limits.ts; re-exported here, where they are enforced.
export { ANONYMOUS_DAILY_CALC_LIMIT, BURST_LIMIT, BURST_PERIOD_SECONDS, DAILY_WINDOW_SECONDS, FUND_BURST_LIMIT } from './limits.ts';

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
  return now.toISOString().slice(0, 10);
}

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
  return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`;
}

/** The client's network from `CF-Connecting-IP` (IPv6 grouped by /64), or `unknown` without a usable address. */
export function clientNetwork(connectingIp: string | undefined): string {
  return (connectingIp && callerNetwork(connectingIp)) || 'unknown';
}

/**
 * The caller a calculator call counts against, and its daily limit: for a key minted in the developer
 * console, its account (`account:<accountId>`, at the account's plan limit, shared by all its keys); for
 * another stored key, the key's id and its own limit; else the client address from `CF-Connecting-IP` (IPv6
 * grouped by /64). `X-Forwarded-For` is never read. The demo key counts as anonymous and keeps the anonymous
 * limit.
 */
export function calcCaller(principal: Principal | null, connectingIp: string | undefined): { id: string; limit: number } {
  if (principal?.kind === 'key' && principal.account) {
    return { id: `account:${principal.account.accountId}`, limit: planDailyCalcLimit(principal.account.plan) };
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
export async function consumeFundBurst(env: { FUND_BURST: RateLimit }, principal: Principal, connectingIp: string | undefined): Promise<void> {
  const key = principal.kind === 'key' ? `key:${principal.record.keyId}` : `demo:${clientNetwork(connectingIp)}`;
  if (!(await env.FUND_BURST.limit({ key })).success) throw burstRefusal(FUND_BURST_LIMIT);
}

/**
 * Counts calculator calls against the caller's daily quota: one REST call, or every `tools/call` of one
 * MCP request. The burst guard is asked first (once per call), so a flood is refused without touching KV;
 * then the day's counter is read and, if there is room for all the calls, written once.
 * The write is best-effort: KV refuses more than about one write per key per second, and a call must not
 * fail for that (the count is then low by the refused writes; see the accuracy note above).
 * @param env the `RATE_LIMITS` namespace and the `CALC_BURST` binding
 * @param calls how many calls this request makes (≥ 1); refused as a whole when they do not all fit
 * @returns the quota after these calls
 * @throws {RateLimitedError} 429 when the burst guard refuses (`Retry-After` 60, the burst policy's headers)
 *   or the daily quota is used up (`Retry-After` = seconds to UTC midnight, the daily policy's headers)
 */
export async function consumeCalcQuota(
  env: { RATE_LIMITS: KVNamespace; CALC_BURST: RateLimit },
  caller: { id: string; limit: number },
  now: Date,
  calls = 1,
): Promise<QuotaState> {
  for (let i = 0; i < calls; i++) {
    const burst = await env.CALC_BURST.limit({ key: caller.id });
    if (!burst.success) throw burstRefusal(BURST_LIMIT);
  }
  const key = `calc:${caller.id}:${utcDate(now)}`;
  const resetSeconds = secondsToUtcMidnight(now);
  const used = Number.parseInt((await env.RATE_LIMITS.get(key)) ?? '0', 10) || 0;
  if (used + calls > caller.limit) {
    const err = new RateLimitedError(`The daily calculator quota of ${caller.limit} calls is used up; it resets at 00:00 UTC.`, resetSeconds);
    Object.assign(err.headers, rateLimitHeaders({ limit: caller.limit, remaining: Math.max(0, caller.limit - used), resetSeconds }));
    throw err;
  }
  try {
    // KV expirations must be at least 60 s ahead; keep the counter an hour past midnight, then let it expire.
    await env.RATE_LIMITS.put(key, String(used + calls), { expirationTtl: Math.max(60, resetSeconds + 3600) });
  } catch {
    // Over KV's write rate for this key: serve the call; the next write carries the count on.
  }
  return { limit: caller.limit, remaining: caller.limit - used - calls, resetSeconds };
}
