/**
 * Every fund-data answer scanned against every identity value of the fund, on the embedded store
 * (docs/fund-data.md#redaction-fail-closed; test/db/identity-scan.test.ts holds PostgreSQL to the same, and
 * test/e2e/identity-scan.test.ts the Worker over HTTP). The demo fund, wrapped so that its newest expense
 * names investors and one more investor with an accented name is among its identities. Proves that:
 * - an expense description or category naming an investor (though the expenses read loads no investor)
 *   comes back with each identity value as `[redacted]`, in every way the scan catches: case, accents as
 *   stored, line breaks, tabs and quotes (JSON escapes), the words written together; through the REST
 *   query and the MCP arguments alike;
 * - anywhere else (a venue, an account name, the fund's name), an identity value fails closed: 500
 *   `redaction_failed` and no data, whichever endpoint;
 * - property: an investor name inserted into free text never comes back, in any case, after any separator;
 * - the identity set is compiled once per isolate and version, and the memoized path still holds.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ApiError } from '../../lib/errors.ts';
import { callFundTool, type FundToolDefinition } from '../../lib/fund/definition.ts';
import { embeddedStore } from '../../lib/fund/embedded-store.ts';
import {
  IDENTITY_SETS_KEPT,
  IDENTITY_VALUES_KEPT,
  clearIdentitySets,
  fundIdentities,
  keptIdentitySets,
} from '../../lib/fund/identities.ts';
import { identitySet } from '../../lib/redaction.ts';
import type { ExpenseRow, FundRow, InvestorRow } from '../../lib/fund/rows.ts';
import { guardedStore, type FundStore } from '../../lib/fund/store.ts';
import { DEMO_FUND } from '../../lib/fund/synthetic.ts';
import { FUND_TOOLS } from '../../lib/registry.ts';
import {
  MASKED_CATEGORY,
  MASKED_DESCRIPTION,
  WANG,
  YAMADA,
  ZOE,
  expectNoIdentity,
  freeTextNaming,
  type Identity,
} from '../support/identities.ts';

const inner = embeddedStore([DEMO_FUND]);
const FUND = DEMO_FUND.fundId;
const tool = (name: string) => FUND_TOOLS.find((t) => t.tool === name)! as FundToolDefinition;

/** What a wrapped store changes: the newest expense, every venue, the first account's name, the fund's name. */
interface Changes {
  expense?: Partial<ExpenseRow>;
  venue?: string;
  accountName?: string;
  fund?: Partial<FundRow>;
  investors?: InvestorRow[];
}

/** The embedded demo store with `changes`, and `changes.investors` (default: Zoë, Wang and Yamada) among the fund's identities. */
function wrapped(changes: Changes): FundStore {
  const extra = changes.investors ?? [ZOE, WANG, YAMADA];
  return guardedStore({
    async index(fundId) {
      const index = await inner.index(fundId);
      return index && { ...index, fund: { ...index.fund, ...changes.fund } };
    },
    async read(fundId, request) {
      const r = await inner.read(fundId, request);
      return {
        ...r,
        expenses: r.expenses.map((e, i) => (i === 0 ? { ...e, ...changes.expense } : e)),
        positions: r.positions.map((p) => (changes.venue ? { ...p, venue: changes.venue } : p)),
        accounts: r.accounts.map((a, i) => (i === 0 && changes.accountName ? { ...a, name: changes.accountName } : a)),
      };
    },
    async identities(fundId, known) {
      const all = await inner.identities(fundId);
      const version = `${all.version}+${JSON.stringify(extra)}`;
      return { version, investors: known?.includes(version) ? null : [...all.investors!, ...extra] };
    },
  });
}

const call = (store: FundStore, name: string, args: Record<string, unknown> = {}, location: 'query' | 'arguments' = 'query') =>
  callFundTool(tool(name), { store, fundId: FUND }, {}, args, location);

let investors: Identity[];
beforeEach(async () => {
  investors ??= [...(await inner.identities(FUND)).investors!, ZOE, WANG, YAMADA];
});

describe('free text naming an investor', () => {
  it("the issue's example: a description quoting an investor's legal name is masked, not answered verbatim", async () => {
    const name = investors[3]!.legalName;
    const store = wrapped({ expense: { description: `Legal review "side letter" for ${name}` } });
    const text = await call(store, 'get_expenses', { limit: '5' });
    expect(text).toContain('"description":"Legal review \\"side letter\\" for [redacted]"');
    expect(text.toLowerCase()).not.toContain(name.toLowerCase());
  });

  it.each(['query', 'arguments'] as const)(
    'a description and a category naming investors in every way the scan catches are masked (%s)',
    async (location) => {
      const { description, category } = freeTextNaming(ZOE, investors[3]!);
      const text = await call(
        wrapped({ expense: { description, category } }),
        'get_expenses',
        { limit: location === 'query' ? '5' : 5 },
        location,
      );
      const newest = (JSON.parse(text) as { expenses: { description: string; category: string }[] }).expenses[0]!;
      expect(newest.description).toBe(MASKED_DESCRIPTION);
      expect(newest.category).toBe(MASKED_CATEGORY);
      expectNoIdentity(text, investors);
    },
  );

  it('account numbers in free text are masked; dates and amounts are not', async () => {
    const description = 'Custody fee, March 2026; acct 12345678, paid 2026-03-31 (USD 12345678.90, 12 500 000 units)';
    const text = await call(wrapped({ expense: { description } }), 'get_expenses', { limit: '1' });
    expect(text).toContain('"description":"Custody fee, March 2026; acct [redacted], paid 2026-03-31 (USD 12345678.90, 12 500 000 units)"');
  });

  it('property: an investor name inserted into free text never comes back', async () => {
    const letters = [...'abcdefghijklmnopqrstuvwxyzàáâãäåæçèéêëìíîïñòóôõöøùúûüýþăčęłńőřśšźżž'];
    const word = fc.array(fc.constantFrom(...letters), { minLength: 2, maxLength: 10 }).map((cs) => cs.join(''));
    const separator = fc.constantFrom(' ', '  ', '\n', '\r\n', '\t', '-', '"', ', ', '\u0001', ' / ');
    const around = fc.stringMatching(/^[A-Za-z0-9 ,.;:()]{0,30}$/);
    await fc.assert(
      fc.asyncProperty(
        fc.array(word, { minLength: 2, maxLength: 4 }),
        fc.array(separator, { minLength: 5, maxLength: 5 }),
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        around,
        around,
        fc.constantFrom('description', 'category'),
        async (words, seps, flips, before, after, field) => {
          const legalName = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join(' ');
          const written = words
            .map((w, i) => [...w].map((ch, j) => (flips[(i * 10 + j) % 40] ? ch.toUpperCase() : ch)).join(''))
            .reduce((out, w, i) => (i === 0 ? w : `${out}${seps[i]}${w}`));
          const investor: InvestorRow = { ...ZOE, investorId: 'INV-9009', legalName };
          const store = wrapped({ expense: { [field]: `${before}${seps[0]}${written}${seps[4]}${after}` }, investors: [investor] });
          const text = await call(store, 'get_expenses', { limit: '2' });
          expectNoIdentity(text, [{ ...investor, email: '', taxId: '', bankAccount: '', investorId: '' }]);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('free text naming an investor in a script written without spaces', () => {
  it('property: a name of 2 to 4 characters inside a sentence of its script never comes back', async () => {
    const han = [...'王李张刘陈杨黄赵吴周小明华伟芳娜山田太郎花子付款给先生女士的账户様への送金'];
    const kana = [...'あいうえおかきくけこタナカハナコスミスー'];
    const hangul = [...'김이박최정홍길동철수영희에게송금'];
    const thai = [...'สมชายใจดีโอนให้แล้ว'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(han, kana, hangul, thai),
        fc.nat(),
        fc.constantFrom('', ' ', '\u3000', '\u200B', '\n', '・'),
        fc.constantFrom('description', 'category'),
        async (script, seed, inside, field) => {
          const pick = (i: number) => script[(seed >> (i * 3)) % script.length]!;
          const length = 2 + (seed % 3);
          const name = Array.from({ length }, (_, i) => pick(i)).join('');
          const before = Array.from({ length: seed % 5 }, (_, i) => pick(i + 4)).join('');
          const after = Array.from({ length: (seed >> 4) % 5 }, (_, i) => pick(i + 2)).join('');
          // A Thai vowel or tone mark is part of the letter before it: a name is looked for from 2 letters.
          fc.pre(identitySet([name]).values === 1);
          const written = [...name].join(inside);
          const investor: InvestorRow = { ...ZOE, investorId: 'INV-9009', legalName: name };
          const store = wrapped({ expense: { [field]: `${before}${written}${after}` }, investors: [investor] });
          const text = await call(store, 'get_expenses', { limit: '2' });
          const newest = (JSON.parse(text) as { expenses: Record<string, string>[] }).expenses[0]![field]!;
          expect(newest.replace(/[\s\u200B・]/gu, '')).not.toContain(name);
          expect(newest).toContain('[redacted]');
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('an identity value anywhere else fails closed, whichever endpoint', () => {
  const name = () => investors[5]!.legalName;

  /** Asserts the call is refused with 500 redaction_failed. */
  async function refused(p: Promise<string>): Promise<void> {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('redaction_failed');
  }

  it('a venue naming an investor (the positions read loads no investor)', async () => {
    for (const written of [name(), name().toUpperCase(), `Desk of\n"${name().replaceAll(' ', '\t')}"`, name().replaceAll(' ', '')]) {
      const store = wrapped({ venue: written });
      await refused(call(store, 'get_positions'));
      await refused(call(store, 'get_portfolio_breakdown', {}, 'arguments'));
    }
  });

  it("an account name with an investor's e-mail words, bank account or internal id", async () => {
    const i = investors[5]!;
    for (const value of [i.email.replace('@', ' at '), i.bankAccount.toLowerCase(), i.investorId, ZOE.legalName]) {
      await refused(call(wrapped({ accountName: `Due to ${value}` }), 'get_trial_balance'));
    }
  });

  it('a venue or an account name naming an investor in a sentence of a script written without spaces', async () => {
    for (const venue of [
      `${WANG.legalName}的交易台`,
      `${YAMADA.legalName.replace(' ', '')}様デスク`,
      `${WANG.legalName.slice(0, 2)}\u200B${WANG.legalName.slice(2)}`,
    ]) {
      await refused(call(wrapped({ venue }), 'get_positions'));
    }
    await refused(call(wrapped({ accountName: `应付${WANG.legalName}款项` }), 'get_trial_balance'));
  });

  it("the fund's name", async () => {
    await refused(call(wrapped({ fund: { name: `${name()} Feeder` } }), 'get_fund_overview'));
  });

  it('a clean wrapped store answers every endpoint (control)', async () => {
    for (const def of FUND_TOOLS) {
      const text = await call(wrapped({}), def.tool, def.tool === 'get_pnl_attribution' ? { date: '2026-10-30' } : {});
      expectNoIdentity(text, investors);
    }
  });
});

describe('the identity set in the isolate', () => {
  it('is compiled once per version and kept as plain data', async () => {
    clearIdentitySets();
    const store = wrapped({});
    const first = await fundIdentities(store, FUND);
    const again = await fundIdentities(store, FUND);
    expect(again).toBe(first);
    expect(first.set.values).toBe(investors.length * 5); // every value of every investor
    // Plain data: arrays and maps of strings and numbers, nothing pending.
    expect(first.set.children.every((c) => c === undefined || c instanceof Map)).toBe(true);
    const other = await fundIdentities(wrapped({ investors: [] }), FUND);
    expect(other).not.toBe(first);
  });

  /** A store that answers only `identities`: `count` investors under version `version`. */
  const sized = (version: string, count: number) =>
    ({
      async identities() {
        const investors = Array.from({ length: count }, (_, n) => ({
          ...ZOE,
          investorId: `INV-${version}-${n}`,
          legalName: `Investor ${version} Number ${n}`,
          email: `investor${n}.${version}@example.org`,
          taxId: `${String(100 + (n % 800)).padStart(3, '0')}-${String(10 + (n % 89))}-${String(1000 + n).slice(-4)}`,
          bankAccount: `NO93${String(n).padStart(11, '0')}`,
        }));
        return { version, investors };
      },
    }) as unknown as FundStore;

  it('keeps at most a bounded number of identity values, the set just loaded always', async () => {
    clearIdentitySets();
    const perSet = 8_000; // investors: four such sets would hold 160,000 values
    for (const v of ['v1', 'v2', 'v3', 'v4']) await fundIdentities(sized(v, perSet), FUND);
    const held = keptIdentitySets();
    expect(held.sets).toBe(Math.floor(IDENTITY_VALUES_KEPT / (perSet * 5)));
    expect(held.values).toBeLessThanOrEqual(IDENTITY_VALUES_KEPT);
    // One set larger than the whole budget is still kept (the request needs it), alone.
    const huge = await fundIdentities(sized('v5', IDENTITY_VALUES_KEPT / 5 + 1), FUND);
    expect(huge.set.values).toBe(IDENTITY_VALUES_KEPT + 5);
    expect(keptIdentitySets()).toEqual({ sets: 1, values: IDENTITY_VALUES_KEPT + 5 });
    // Small sets: the count bound holds.
    clearIdentitySets();
    for (let n = 0; n < IDENTITY_SETS_KEPT + 2; n++) await fundIdentities(sized(`s${n}`, 1), FUND);
    expect(keptIdentitySets().sets).toBe(IDENTITY_SETS_KEPT);
  }, 60_000);
});
