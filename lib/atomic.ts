/**
 * The service's atomic records (docs/atomic.md): the few rules that must hold under concurrency, which KV
 * (no compare-and-swap, eventually consistent) cannot keep. Each rule lives in one record, named by what it
 * guards, and each record is one instance of the Durable Object class {@link AtomicRecord} (SQLite-backed,
 * binding `ATOMIC`, wrangler.toml). A Durable Object runs one operation at a time, in one place in the
 * world, so an operation's read and write of its record cannot interleave with another's:
 *
 * - `invitation:<sha256(token)>` — {@link claim}: the first account to redeem an invitation wins it.
 * - `account-keys:<accountId>` — {@link reserve} / {@link release}: an account's active keys, capped.
 * - `signups:<client network>:<UTC day>`, `oauth-registrations:<client network>:<UTC day>` — {@link take} /
 *   {@link giveBack}: a daily count, capped.
 * - `grant:<userId>:<grantId>` — {@link spend} / {@link settle} / {@link checkSpent}: the refresh tokens an
 *   OAuth grant has used, and whether it was revoked for reusing one (RFC 9700 §4.14.2).
 *
 * Records that end (invitations, daily counts, grants) delete themselves at the time they are given
 * (an alarm); an account's key set lives as long as the account. The class is written against
 * {@link AtomicState}, the part of `DurableObjectState` it uses, so that the Node tests run the same class
 * over an in-memory state (test/support/fakes.ts).
 */

/** What {@link AtomicRecord} uses of `DurableObjectState`. */
export interface AtomicState {
  storage: {
    get<T>(key: string): Promise<T | undefined>;
    put<T>(key: string, value: T): Promise<void>;
    delete(key: string): Promise<boolean>;
    deleteAll(): Promise<void>;
    getAlarm(): Promise<number | null>;
    setAlarm(scheduledTime: number): Promise<void>;
  };
  blockConcurrencyWhile<T>(callback: () => Promise<T>): Promise<T>;
}

/** The `ATOMIC` binding as the service uses it (a subset of `DurableObjectNamespace`). */
export interface AtomicNamespace {
  idFromName(name: string): DurableObjectId;
  get(id: DurableObjectId): { fetch(input: string, init: RequestInit): Promise<Response> };
}

/** One operation on a record; `until` (ms since the epoch) is when the record may be forgotten. */
export type AtomicOperation =
  | { op: 'claim'; claimant: string; until: number }
  | { op: 'take'; limit: number; until: number; peek?: boolean }
  | { op: 'giveBack' }
  | { op: 'reserve'; member: string; limit: number; seed?: string[]; now: number }
  | { op: 'release'; members: string[] }
  | { op: 'spend'; token: string; until: number }
  | { op: 'settle'; token: string; used: boolean }
  | { op: 'check'; token: string };

/** What each operation answers (see the functions below). */
export interface AtomicAnswers {
  claim: { winner: string };
  take: { ok: boolean; count: number };
  giveBack: { count: number };
  reserve: { ok: boolean; members: Record<string, number> };
  release: { members: Record<string, number> };
  spend: { state: SpendState };
  settle: { revoked: boolean };
  check: { state: 'reused' | 'revoked' | 'unknown' };
}

/**
 * A token presented to {@link spend}: never seen (now being exchanged); spent before (a reuse: the record is
 * revoked); being exchanged by another request at this moment (contested: refused, and the record is revoked
 * if that exchange succeeds, since a valid token was then presented twice); or of a revoked record.
 */
export type SpendState = 'fresh' | 'reused' | 'contested' | 'revoked';

/** A token's state in its record: being exchanged, spent, or being exchanged while presented again. */
const PENDING = 1;
const SPENT = 2;
const CONTESTED = 3;

/**
 * The Durable Object class (exported by the Worker, lib/worker.ts). One instance per record name; it answers
 * `POST` of one JSON {@link AtomicOperation} with that operation's answer, inside `blockConcurrencyWhile`,
 * so nothing else runs on the record between its read and its write.
 */
export class AtomicRecord {
  readonly #state: AtomicState;

  constructor(state: AtomicState, _env?: unknown) {
    this.#state = state;
  }

  async fetch(request: Request): Promise<Response> {
    const operation = (await request.json()) as AtomicOperation;
    return Response.json(await this.#state.blockConcurrencyWhile(() => this.apply(operation)));
  }

  /** The record's time is up: forget it. */
  async alarm(): Promise<void> {
    await this.#state.storage.deleteAll();
  }

  /** Runs one operation (callers hold the record: {@link fetch}). */
  async apply(operation: AtomicOperation): Promise<AtomicAnswers[keyof AtomicAnswers]> {
    const storage = this.#state.storage;
    switch (operation.op) {
      case 'claim': {
        const winner = await storage.get<string>('winner');
        if (winner !== undefined) return { winner };
        await storage.put('winner', operation.claimant);
        await this.#forgetAt(operation.until);
        return { winner: operation.claimant };
      }
      case 'take': {
        const count = (await storage.get<number>('count')) ?? 0;
        if (count >= operation.limit) return { ok: false, count };
        if (operation.peek) return { ok: true, count };
        await storage.put('count', count + 1);
        await this.#forgetAt(operation.until);
        return { ok: true, count: count + 1 };
      }
      case 'giveBack': {
        const count = Math.max(0, ((await storage.get<number>('count')) ?? 0) - 1);
        await storage.put('count', count);
        return { count };
      }
      case 'reserve': {
        const stored = await storage.get<Record<string, number>>('members');
        const members = stored ?? Object.fromEntries((operation.seed ?? []).map((m) => [m, 0]));
        if (operation.member in members) return { ok: true, members };
        if (Object.keys(members).length >= operation.limit) {
          if (stored === undefined) await storage.put('members', members);
          return { ok: false, members };
        }
        members[operation.member] = operation.now;
        await storage.put('members', members);
        return { ok: true, members };
      }
      case 'release': {
        const members = (await storage.get<Record<string, number>>('members')) ?? {};
        for (const m of operation.members) delete members[m];
        await storage.put('members', members);
        return { members };
      }
      case 'spend': {
        if ((await storage.get<boolean>('revoked')) === true) return { state: 'revoked' };
        const name = `token:${operation.token}`;
        const seen = await storage.get<number>(name);
        if (seen === SPENT) {
          await storage.put('revoked', true);
          return { state: 'reused' };
        }
        if (seen !== undefined) {
          // Whether this is a reuse depends on whether the token is valid: the exchange under way decides.
          await storage.put(name, CONTESTED);
          return { state: 'contested' };
        }
        await storage.put(name, PENDING);
        await this.#forgetAt(operation.until);
        return { state: 'fresh' };
      }
      case 'settle': {
        const name = `token:${operation.token}`;
        if (!operation.used) await storage.delete(name);
        else if ((await storage.get<number>(name)) === CONTESTED) await storage.put('revoked', true);
        else await storage.put(name, SPENT);
        return { revoked: (await storage.get<boolean>('revoked')) === true };
      }
      case 'check': {
        // Reads only, unless the token was spent: a record that never existed is not created.
        if ((await storage.get<boolean>('revoked')) === true) return { state: 'revoked' };
        if ((await storage.get<number>(`token:${operation.token}`)) !== SPENT) return { state: 'unknown' };
        await storage.put('revoked', true);
        return { state: 'reused' };
      }
    }
  }

  /** Schedules the record's deletion at `until`, or later when another operation asked for later. */
  async #forgetAt(until: number): Promise<void> {
    const current = await this.#state.storage.getAlarm();
    if (current === null || current < until) await this.#state.storage.setAlarm(until);
  }
}

/** Runs one operation on the named record. */
async function run<O extends AtomicOperation>(ns: AtomicNamespace, name: string, operation: O): Promise<AtomicAnswers[O['op']]> {
  const stub = ns.get(ns.idFromName(name));
  const res = await stub.fetch('https://atomic-record.invalid/', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(operation),
  });
  if (!res.ok) throw new Error(`atomic record answered ${res.status}`);
  return (await res.json()) as AtomicAnswers[O['op']];
}

/**
 * Claims a record for `claimant`: the first claim wins, every later one learns the winner.
 * @param until when the record may be forgotten (ms since the epoch)
 * @returns the winner (the claimant itself when it was first, or when it had claimed before)
 */
export async function claim(ns: AtomicNamespace, name: string, claimant: string, until: number): Promise<string> {
  return (await run(ns, name, { op: 'claim', claimant, until })).winner;
}

/**
 * The capped counts this isolate saw full, by record name, each with the time its record may be forgotten
 * (ms since the epoch): plain data, so that a network past its daily cap costs no Durable Object request
 * per refusal (docs/atomic.md#the-records). At most {@link FULL_COUNTS_KEPT} are kept.
 */
const fullCounts = new Map<string, number>();
const FULL_COUNTS_KEPT = 10_000;

/**
 * Takes one from a capped count (or, with `peek`, only asks whether one is left). A count this isolate saw
 * full is refused without asking its record again, until the record's `until`.
 * @returns `ok` false when `limit` were taken already; `count` is the count after the call
 */
export async function take(
  ns: AtomicNamespace,
  name: string,
  limit: number,
  until: number,
  peek = false,
): Promise<{ ok: boolean; count: number }> {
  const fullUntil = fullCounts.get(name);
  if (fullUntil !== undefined) {
    if (fullUntil > Date.now()) return { ok: false, count: limit };
    fullCounts.delete(name);
  }
  const answer = await run(ns, name, { op: 'take', limit, until, ...(peek ? { peek } : {}) });
  if (!answer.ok) {
    if (fullCounts.size >= FULL_COUNTS_KEPT) fullCounts.delete(fullCounts.keys().next().value!);
    fullCounts.set(name, until);
  }
  return answer;
}

/** Gives back one taken by {@link take} (the work it was taken for did not happen). */
export async function giveBack(ns: AtomicNamespace, name: string): Promise<void> {
  fullCounts.delete(name);
  await run(ns, name, { op: 'giveBack' });
}

/**
 * Adds `member` to a capped set, unless it holds `limit` members already.
 * @param seed the members to start from when the set has never been written (its state before this record existed)
 * @param now ms since the epoch, stored with the member (for {@link release} of members gone elsewhere)
 * @returns `ok`, and the members (each with the time it was added; 0 for a seeded one)
 */
export async function reserve(
  ns: AtomicNamespace,
  name: string,
  member: string,
  limit: number,
  options: { seed?: string[]; now: number },
): Promise<{ ok: boolean; members: Record<string, number> }> {
  return run(ns, name, { op: 'reserve', member, limit, now: options.now, ...(options.seed ? { seed: options.seed } : {}) });
}

/** Removes members from a capped set. */
export async function release(ns: AtomicNamespace, name: string, members: string[]): Promise<void> {
  if (members.length > 0) await run(ns, name, { op: 'release', members });
}

/**
 * Spends a one-use token of a record (see {@link SpendState}): `fresh` the first time, `reused` once it was
 * spent (the record is revoked from then on), `contested` while its first exchange is under way (the record is
 * revoked when that exchange succeeds), `revoked` once the record was. Until {@link settle}, a fresh token is
 * only pending: presenting an invalid token twice at once revokes nothing.
 * @param until when the record may be forgotten
 */
export async function spend(ns: AtomicNamespace, name: string, token: string, until: number): Promise<SpendState> {
  return (await run(ns, name, { op: 'spend', token, until })).state;
}

/**
 * Settles a fresh token once the work it was spent for is done: `used` true spends it (and revokes the record
 * if it was presented again meanwhile), `used` false gives it back (the work did not happen, so presenting it
 * again is no reuse).
 * @returns whether the record is revoked (the work's result must then be undone)
 */
export async function settle(ns: AtomicNamespace, name: string, token: string, used: boolean): Promise<boolean> {
  return (await run(ns, name, { op: 'settle', token, used })).revoked;
}

/**
 * Asks whether a token was spent in a record before (a token its exchange no longer accepts, presented
 * again): if so the record is revoked (`reused`). Writes nothing otherwise, so asking about a record that
 * does not exist creates none.
 * @returns `reused` (revoked now), `revoked` (before), or `unknown` (never spent here)
 */
export async function checkSpent(ns: AtomicNamespace, name: string, token: string): Promise<'reused' | 'revoked' | 'unknown'> {
  return (await run(ns, name, { op: 'check', token })).state;
}
