/**
 * The check of investors a read returned against the identity set the answer is scanned with
 * (`checkInvestorsScanned`, lib/fund/identities.ts), field by field: a row equal in every identity value
 * passes; a row with any one value changed, or an investor the set does not hold, fails closed, including
 * values that only differ where joining them would have hidden it.
 */
import { describe, expect, it } from 'vitest';
import { RedactionFailedError } from '../../lib/errors.ts';
import { checkInvestorsScanned, clearIdentitySets, fundIdentities, identityValues } from '../../lib/fund/identities.ts';
import type { InvestorRow } from '../../lib/fund/rows.ts';
import type { FundStore } from '../../lib/fund/store.ts';
import { ZOE, WANG } from '../support/identities.ts';

const ROWS: InvestorRow[] = [ZOE, WANG, { ...ZOE, investorId: 'INV-9009', legalName: 'a\u0000b', email: 'c' }];
const store = { identities: async () => ({ version: 'check', investors: ROWS }) } as unknown as FundStore;

describe('checkInvestorsScanned', () => {
  it('passes rows equal to the set, and fails closed on any changed value or an unknown investor', async () => {
    clearIdentitySets();
    const set = await fundIdentities(store, 'fund');
    expect(() =>
      checkInvestorsScanned(
        set,
        ROWS.map((r) => ({ ...r })),
      ),
    ).not.toThrow();
    expect(() => checkInvestorsScanned(set, [])).not.toThrow();
    const fields = ['legalName', 'email', 'taxId', 'bankAccount'] as const;
    for (const row of ROWS) {
      for (const f of fields) {
        expect(() => checkInvestorsScanned(set, [{ ...row, [f]: `${row[f]}x` }])).toThrow(RedactionFailedError);
      }
      expect(() => checkInvestorsScanned(set, [{ ...row, investorId: `${row.investorId}x` }])).toThrow(RedactionFailedError);
    }
    // The same values joined with a NUL between them, split elsewhere: still a different row.
    expect(identityValues({ ...ROWS[2]!, legalName: 'a', email: 'b\u0000c' }).join('\u0000')).toBe(identityValues(ROWS[2]!).join('\u0000'));
    expect(() => checkInvestorsScanned(set, [{ ...ROWS[2]!, legalName: 'a', email: 'b\u0000c' }])).toThrow(RedactionFailedError);
  });
});
