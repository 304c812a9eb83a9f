/**
 * The investor pseudonyms an isolate keeps (lib/fund/investor-refs.ts): the same pseudonyms as
 * `investorRefs` makes, per key and fund; each signed once per isolate; a request asking for a mix of known
 * and new investors signs only the new ones.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { keptInvestorRefs } from '../../lib/fund/investor-refs.ts';
import { investorRefs } from '../../lib/redaction.ts';

const IDS = Array.from({ length: 50 }, (_, i) => `INV-${String(i).padStart(4, '0')}`);
const SECRET = 'a-deployment-secret-of-32-bytes!';

afterEach(() => vi.restoreAllMocks());

describe('keptInvestorRefs', () => {
  it('gives the pseudonyms investorRefs makes, per key and per fund', async () => {
    for (const secret of [undefined, SECRET]) {
      for (const fund of ['fund-a', 'fund-b']) {
        const expected = await investorRefs(fund, IDS, secret);
        expect(await keptInvestorRefs(fund, IDS, secret)).toEqual(expected);
        expect(await keptInvestorRefs(fund, IDS, secret)).toEqual(expected);
      }
    }
    const a = await keptInvestorRefs('fund-a', IDS.slice(0, 1), SECRET);
    const b = await keptInvestorRefs('fund-a', IDS.slice(0, 1), undefined);
    expect(a.get(IDS[0]!)).not.toBe(b.get(IDS[0]!));
  });

  it('signs each investor once per isolate: a repeated request signs nothing, a new investor alone is signed', async () => {
    const sign = vi.spyOn(crypto.subtle, 'sign');
    await keptInvestorRefs('fund-c', IDS, SECRET);
    expect(sign).toHaveBeenCalledTimes(IDS.length);
    sign.mockClear();
    await keptInvestorRefs('fund-c', IDS, SECRET);
    expect(sign).not.toHaveBeenCalled();
    const more = await keptInvestorRefs('fund-c', [...IDS, 'INV-NEW'], SECRET);
    expect(sign).toHaveBeenCalledTimes(1);
    expect(more.size).toBe(IDS.length + 1);
    expect(more.get('INV-NEW')).toBe((await investorRefs('fund-c', ['INV-NEW'], SECRET)).get('INV-NEW'));
  });
});
