/**
 * The check of the investors a read names against the identity set the answer is scanned with
 * (`checkInvestorsScanned`, lib/fund/identities.ts): a read carries no identity value but investors' internal
 * ids, so every id must be one the set holds; an id it does not hold (an investor written after the index's
 * statement) fails closed, even one that differs from a held id only by case or a suffix.
 */
import { describe, expect, it } from 'vitest';
import { RedactionFailedError } from '../../lib/errors.ts';
import { checkInvestorsScanned, clearIdentitySets, fundIdentities } from '../../lib/fund/identities.ts';
import type { InvestorRow } from '../../lib/fund/rows.ts';
import type { FundStore } from '../../lib/fund/store.ts';
import { ZOE, WANG } from '../support/identities.ts';

const ROWS: InvestorRow[] = [ZOE, WANG, { ...ZOE, investorId: 'INV-9009', legalName: 'a\u0000b', email: 'c' }];
const store = { identities: async () => ({ version: 'check', investors: ROWS }) } as unknown as FundStore;

describe('checkInvestorsScanned', () => {
  it('passes reads naming only investors of the set, and fails closed on any other id', async () => {
    clearIdentitySets();
    const set = await fundIdentities(store, 'fund');
    const classes = ROWS.map(({ investorId, shareClassId }) => ({ investorId, shareClassId }));
    expect(() => checkInvestorsScanned(set, classes)).not.toThrow();
    const capitalRow = { investorId: WANG.investorId, navDate: '2026-10-30', capital: '1.00' };
    expect(() => checkInvestorsScanned(set, [capitalRow])).not.toThrow();
    expect(() => checkInvestorsScanned(set, [])).not.toThrow();
    for (const row of ROWS) {
      for (const id of [`${row.investorId}x`, row.investorId.toLowerCase(), ` ${row.investorId}`, '']) {
        expect(() => checkInvestorsScanned(set, [...classes, { investorId: id, shareClassId: 'A' }])).toThrow(RedactionFailedError);
      }
    }
  });
});
