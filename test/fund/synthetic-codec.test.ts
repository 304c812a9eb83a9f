/**
 * The embedded fund's build-time asset (lib/fund/synthetic/codec.ts) and how the embedded store loads it
 * (lib/fund/embedded-store.ts):
 * - encoding then decoding (the fund's file, then its capital snapshots' file) gives a fund that makes exactly
 *   the simulated fund's rows, and its arrays are views (no number copied one by one);
 * - a file of another fingerprint, format, size or kind is refused with the reason, and the store then
 *   simulates the fund (or its capital snapshots) and logs the deployment fault once;
 * - with the assets, the store reads each once per fund, however many reads arrive at once, and the capital
 *   asset only for a read of capital accounts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEMO_FUND, SAMPLE_FUND, SyntheticFund, simulateFund } from '../../lib/fund/synthetic.ts';
import { simulateParts } from '../../lib/fund/synthetic/simulate.ts';
import {
  FUND_ASSET_FORMAT,
  FundAssetError,
  capitalAssetPath,
  decodeCapital,
  decodeFund,
  encodeFund,
  fundAssetPath,
} from '../../lib/fund/synthetic/codec.ts';
import { embeddedStore, loadCapital, loadFund } from '../../lib/fund/embedded-store.ts';
import { FUND_ASSET_FINGERPRINTS } from '../../lib/generated/fund-assets.ts';
import { fakeAssets } from '../support/fakes.ts';
import { identityValues } from '../../lib/fund/identities.ts';
import { identitySetText, loadIdentitySet } from '../../lib/identity-set-form.ts';
import { identitySet } from '../../lib/identity-set.ts';
import { findIdentities } from '../../lib/identity-scan.ts';

const buffer = (bytes: Uint8Array) => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

/** An ASSETS binding serving `bytes` (or `status`) at every path, counting its fetches. */
function servingAssets(bytes: Uint8Array | null, status = 200) {
  const paths: string[] = [];
  return {
    paths,
    fetch: async (input: Request | string) => {
      paths.push(new URL(input instanceof Request ? input.url : input).pathname);
      return bytes ? new Response(bytes.slice()) : new Response('Not found', { status });
    },
  } as unknown as Fetcher & { paths: string[] };
}

afterEach(() => vi.restoreAllMocks());

describe.each([DEMO_FUND, SAMPLE_FUND].map((spec) => [spec.fundId, spec] as const))('fund asset of %s', (_id, spec) => {
  const parts = simulateParts(spec);
  const bytes = encodeFund(parts, 'fp-1');

  it("decodes to a fund that makes the simulated fund's rows, exactly, once given its capital snapshots", () => {
    const decoded = decodeFund(buffer(bytes.fund), spec, 'fp-1');
    expect(decoded.calendar).toEqual(parts.calendar);
    expect(decoded.holdings).toEqual(parts.holdings);
    expect([...decoded.snapshots.keys()]).toEqual([...parts.snapshots.keys()]);
    expect(decoded.capital).toBeNull();
    const fund = new SyntheticFund(decoded);
    expect(fund.hasCapital).toBe(false);
    expect(() => fund.capitalOn(spec.endDate)).toThrow(/not loaded/);
    const capital = decodeCapital(buffer(bytes.capital), spec, 'fp-1', fund.calendar);
    expect(capital.investorIds).toEqual(parts.capital!.investorIds);
    expect([...capital.snapshots.keys()]).toEqual([...parts.capital!.snapshots.keys()]);
    fund.addCapital(capital);
    expect(fund.hasCapital).toBe(true);
    expect(fund.dataset()).toEqual(simulateFund(spec).dataset());
  });

  it('carries the identity set it was given, and none when it was given none', async () => {
    const text = await identitySetText(parts.head.investors.flatMap(identityValues));
    expect(
      new SyntheticFund(decodeFund(buffer(encodeFund({ ...parts, compiledIdentitySet: text }, 'fp-1').fund), spec, 'fp-1'))
        .compiledIdentitySet,
    ).toBe(text);
    expect(new SyntheticFund(decodeFund(buffer(bytes.fund), spec, 'fp-1')).compiledIdentitySet).toBeNull();
    expect(simulateFund(spec).compiledIdentitySet).toBeNull();
  });

  it('keeps the bulk numbers as typed-array views over the files', () => {
    const file = buffer(bytes.fund);
    const decoded = decodeFund(file, spec, 'fp-1');
    const snapshot = decoded.snapshots.values().next().value!;
    expect(snapshot.mv).toBeInstanceOf(Float64Array);
    expect((snapshot.mv as Float64Array).buffer).toBe(file);
    expect((decoded.ledger.entry as Int32Array).buffer).toBe(file);
    expect(decoded.series.get('BTC-PERP')).toBe(decoded.series.get('BTC'));
    const capitalFile = buffer(bytes.capital);
    const first = decodeCapital(capitalFile, spec, 'fp-1', decoded.calendar).snapshots.values().next().value!;
    expect((first as Float64Array).buffer).toBe(capitalFile);
  });

  it('refuses another fingerprint, another fund, another format, a truncated file and the other kind of file', () => {
    const reason = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return err instanceof FundAssetError ? err.reason : String(err);
      }
      return 'accepted';
    };
    const other = spec.fundId === 'demo-fund' ? SAMPLE_FUND : DEMO_FUND;
    const { calendar } = parts;
    for (const [file, decode] of [
      [bytes.fund, (b: ArrayBuffer, s = spec, fp = 'fp-1') => decodeFund(b, s, fp)],
      [bytes.capital, (b: ArrayBuffer, s = spec, fp = 'fp-1') => decodeCapital(b, s, fp, calendar)],
    ] as const) {
      expect(reason(() => decode(buffer(file), spec, 'fp-2'))).toBe('stale');
      expect(reason(() => decode(buffer(file), other, 'fp-1'))).toBe('stale');
      const versioned = file.slice();
      new DataView(versioned.buffer).setUint32(4, FUND_ASSET_FORMAT + 1, true);
      expect(reason(() => decode(buffer(versioned)))).toBe('format');
      expect(reason(() => decode(buffer(new TextEncoder().encode('<html>not found</html>'))))).toBe('format');
      expect(reason(() => decode(buffer(file.slice(0, file.length - 8))))).toBe('shape');
    }
    // Each file read as the other.
    expect(reason(() => decodeFund(buffer(bytes.capital), spec, 'fp-1'))).toBe('shape');
    expect(reason(() => decodeCapital(buffer(bytes.fund), spec, 'fp-1', calendar))).toBe('shape');
    // The calendar is stored: one that does not end at the spec's last day is refused.
    const late = encodeFund({ ...parts, calendar: [...parts.calendar.slice(1), '2099-01-01'] }, 'fp-1');
    expect(reason(() => decodeFund(buffer(late.fund), spec, 'fp-1'))).toBe('shape');
    // A capital snapshot whose day is past the calendar the fund gives.
    expect(reason(() => decodeCapital(buffer(bytes.capital), spec, 'fp-1', calendar.slice(0, 10)))).toBe('shape');
  });
});

describe('encoding', () => {
  it('refuses a number its array type cannot hold exactly', () => {
    const parts = simulateParts(DEMO_FUND);
    const entry = Array.from(parts.ledger.entry);
    entry[0] = 2 ** 31;
    expect(() => encodeFund({ ...parts, ledger: { ...parts.ledger, entry } }, 'fp')).toThrow(/does not fit i32/);
    const amount = Array.from(parts.ledger.amount);
    amount[0] = 0.5;
    expect(() => encodeFund({ ...parts, ledger: { ...parts.ledger, amount } }, 'fp')).toThrow(/does not fit f64/);
    expect(() => encodeFund({ ...parts, capital: null }, 'fp')).toThrow(/no capital snapshots/);
  });
});

describe('loading the embedded fund', () => {
  it('reads the built asset through the binding, once per fund however many reads arrive at once, and makes the simulated rows', async () => {
    const assets = servingAssets(null);
    assets.fetch = (async (input: Request) => {
      assets.paths.push(new URL(input.url).pathname);
      return fakeAssets.fetch(input);
    }) as never;
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const store = embeddedStore([DEMO_FUND], { binding: assets, fingerprints: FUND_ASSET_FINGERPRINTS });
    const date = DEMO_FUND.endDate;
    // At once: the reads of one store share its one load (test/fund/embedded-loading.test.ts has the rest).
    const [a, b] = await Promise.all([
      store.read(DEMO_FUND.fundId, { positions: { navDates: ['2026-10-20'] }, ledger: { after: null, through: date } }),
      store.index(DEMO_FUND.fundId),
    ]);
    const simulated = embeddedStore([DEMO_FUND]);
    expect(a).toEqual(
      await simulated.read(DEMO_FUND.fundId, { positions: { navDates: ['2026-10-20'] }, ledger: { after: null, through: date } }),
    );
    expect(b).toEqual(await simulated.index(DEMO_FUND.fundId));
    expect(assets.paths).toEqual([fundAssetPath(DEMO_FUND.fundId)]);
    expect(log).not.toHaveBeenCalled();
    expect(FUND_ASSET_FINGERPRINTS[DEMO_FUND.fundId]).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reads the capital asset only for a read of capital accounts, once per fund, and makes the simulated rows', async () => {
    const paths: string[] = [];
    const assets = {
      fetch: async (input: Request) => {
        paths.push(new URL(input.url).pathname);
        return fakeAssets.fetch(input);
      },
    } as unknown as Fetcher;
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const store = embeddedStore([DEMO_FUND], { binding: assets, fingerprints: FUND_ASSET_FINGERPRINTS });
    const simulated = simulateFund(DEMO_FUND);
    await store.read(DEMO_FUND.fundId, { positions: { navDates: ['2026-10-20'] } });
    expect(paths).toEqual([fundAssetPath(DEMO_FUND.fundId)]);
    const reads = await Promise.all(
      ['2026-10-20', DEMO_FUND.endDate, '2026-10-20'].map((d) => store.read(DEMO_FUND.fundId, { capital: { navDates: [d] } })),
    );
    expect(reads[0]!.capital).toEqual(simulated.capitalOn('2026-10-20'));
    expect(reads[0]!.capital.length).toBeGreaterThan(0);
    expect(reads[1]!.capital).toEqual(simulated.capitalOn(DEMO_FUND.endDate));
    expect(reads[2]!.capital).toEqual(reads[0]!.capital);
    expect(paths).toEqual([fundAssetPath(DEMO_FUND.fundId), capitalAssetPath(DEMO_FUND.fundId)]);
    expect(log).not.toHaveBeenCalled();
  });

  it('gives a decoded fund the simulated capital snapshots when its capital asset is stale or missing, and logs that fault', async () => {
    const stale = encodeFund(simulateParts(DEMO_FUND), 'another build').capital;
    for (const [capitalFile, reason] of [
      [stale, 'stale'],
      [null, 'status 404'],
    ] as const) {
      const assets = {
        fetch: async (input: Request) =>
          new URL(input.url).pathname === capitalAssetPath(DEMO_FUND.fundId)
            ? capitalFile
              ? new Response(capitalFile.slice())
              : new Response('Not found', { status: 404 })
            : fakeAssets.fetch(input),
      } as unknown as Fetcher;
      const log = vi.spyOn(console, 'error').mockImplementation(() => {});
      const fundAssets = { binding: assets, fingerprints: FUND_ASSET_FINGERPRINTS };
      const fund = await loadFund(DEMO_FUND, fundAssets);
      expect(fund.hasCapital).toBe(false);
      await loadCapital(DEMO_FUND, fund, fundAssets);
      expect(fund.capitalOn('2026-10-20')).toEqual(simulateFund(DEMO_FUND).capitalOn('2026-10-20'));
      expect(log).toHaveBeenCalledTimes(1);
      expect(JSON.parse(log.mock.calls[0]![0] as string)).toEqual({
        level: 'error',
        event: 'fund_asset_unusable',
        fundId: DEMO_FUND.fundId,
        asset: capitalAssetPath(DEMO_FUND.fundId),
        reason,
      });
      log.mockRestore();
    }
  });

  it('simulates the fund when the asset is stale or missing, and logs that deployment fault once', async () => {
    const stale = encodeFund(simulateParts(DEMO_FUND), 'another build').fund;
    for (const [assets, reason] of [
      [servingAssets(stale), 'stale'],
      [servingAssets(null, 404), 'status 404'],
    ] as const) {
      const log = vi.spyOn(console, 'error').mockImplementation(() => {});
      const store = embeddedStore([DEMO_FUND], { binding: assets, fingerprints: FUND_ASSET_FINGERPRINTS });
      await store.index(DEMO_FUND.fundId);
      await store.index(DEMO_FUND.fundId);
      const read = await store.read(DEMO_FUND.fundId, { capital: { navDates: ['2026-10-20'] } });
      expect(read.capital).toEqual(simulateFund(DEMO_FUND).capitalOn('2026-10-20'));
      expect(log).toHaveBeenCalledTimes(1);
      expect(JSON.parse(log.mock.calls[0]![0] as string)).toEqual({
        level: 'error',
        event: 'fund_asset_unusable',
        fundId: DEMO_FUND.fundId,
        reason,
      });
      log.mockRestore();
    }
  });

  it("hands the redaction the identity set the build compiled, which loads to the set of the fund's investors", async () => {
    const store = embeddedStore([DEMO_FUND], { binding: fakeAssets as unknown as Fetcher, fingerprints: FUND_ASSET_FINGERPRINTS });
    const got = await store.identities(DEMO_FUND.fundId);
    const values = got.investors!.flatMap(identityValues);
    expect(got.compiled).toBe(await identitySetText(values));
    const loaded = await loadIdentitySet(got.compiled!);
    expect(loaded).toEqual(identitySet(values));
    expect(values.length).toBeGreaterThan(100);
    for (const value of values) expect(findIdentities(JSON.stringify({ note: `paid to ${value}` }), loaded), value).toBe(true);
    // Held already: neither the investors nor the set again.
    expect(await store.identities(DEMO_FUND.fundId, [got.version])).toEqual({ version: got.version, investors: null });
    // Simulated (no binding): the investors alone, compiled by the caller.
    expect((await embeddedStore([DEMO_FUND]).identities(DEMO_FUND.fundId)).compiled).toBeNull();
  });

  it('simulates without a binding, logging nothing', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const fund = await loadFund(SAMPLE_FUND, undefined);
    expect(fund.head.runs).toEqual(simulateFund(SAMPLE_FUND).head.runs);
    expect(log).not.toHaveBeenCalled();
  });
});
