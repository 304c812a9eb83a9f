/**
 * The chart of accounts, the expense categories' accounts, and the share classes with their fee terms.
 */
import type { AccountRow, ShareClassRow } from '../rows.ts';

/** The chart of accounts' codes by name: the generator's journal entries and {@link ACCOUNTS} use these. */
export const ACCOUNT = {
  cashAtBank: '1000',
  cashAtVenues: '1010',
  digitalAssetsLong: '1100',
  perpetualsShort: '2000',
  mgmtFeesPayable: '2100',
  perfFeesPayable: '2110',
  accruedExpenses: '2200',
  capitalContributions: '3000',
  capitalWithdrawals: '3100',
  netGainOnInvestments: '4000',
  mgmtFeeExpense: '5000',
  perfFeeExpense: '5100',
  administrationFees: '5200',
  custodyFees: '5210',
  auditFees: '5220',
  legalFees: '5230',
  softwareAndData: '5240',
  directorsFees: '5250',
} as const;

/** The chart of accounts as stored rows: code, name, type and role. */
export const ACCOUNTS: AccountRow[] = [
  { code: ACCOUNT.cashAtBank, name: 'Cash at bank', type: 'asset', role: 'other' },
  { code: ACCOUNT.cashAtVenues, name: 'Cash and stablecoins at exchanges and wallets', type: 'asset', role: 'other' },
  { code: ACCOUNT.digitalAssetsLong, name: 'Digital assets, long, at fair value', type: 'asset', role: 'other' },
  { code: ACCOUNT.perpetualsShort, name: 'Perpetual futures, short, at fair value', type: 'liability', role: 'other' },
  { code: ACCOUNT.mgmtFeesPayable, name: 'Management fees payable', type: 'liability', role: 'other' },
  { code: ACCOUNT.perfFeesPayable, name: 'Performance fees payable', type: 'liability', role: 'other' },
  { code: ACCOUNT.accruedExpenses, name: 'Accrued expenses', type: 'liability', role: 'other' },
  { code: ACCOUNT.capitalContributions, name: 'Capital contributions', type: 'equity', role: 'capital_contributions' },
  { code: ACCOUNT.capitalWithdrawals, name: 'Capital withdrawals', type: 'equity', role: 'capital_withdrawals' },
  { code: ACCOUNT.netGainOnInvestments, name: 'Net gain (loss) on digital assets and derivatives', type: 'income', role: 'other' },
  { code: ACCOUNT.mgmtFeeExpense, name: 'Management fee expense', type: 'expense', role: 'fee_expense' },
  { code: ACCOUNT.perfFeeExpense, name: 'Performance fee expense', type: 'expense', role: 'fee_expense' },
  { code: ACCOUNT.administrationFees, name: 'Administration fees', type: 'expense', role: 'operating_expense' },
  { code: ACCOUNT.custodyFees, name: 'Custody fees', type: 'expense', role: 'operating_expense' },
  { code: ACCOUNT.auditFees, name: 'Audit fees', type: 'expense', role: 'operating_expense' },
  { code: ACCOUNT.legalFees, name: 'Legal fees', type: 'expense', role: 'operating_expense' },
  { code: ACCOUNT.softwareAndData, name: 'Software and data', type: 'expense', role: 'operating_expense' },
  { code: ACCOUNT.directorsFees, name: "Directors' fees", type: 'expense', role: 'operating_expense' },
];
/** The expense account of each expense category (an expense row's `category`). */
export const EXPENSE_ACCOUNT: Record<string, string> = {
  administration: ACCOUNT.administrationFees,
  custody: ACCOUNT.custodyFees,
  audit: ACCOUNT.auditFees,
  legal: ACCOUNT.legalFees,
  software_data: ACCOUNT.softwareAndData,
  directors: ACCOUNT.directorsFees,
};

/** The share classes and their fee terms (percent per year), hurdle and crystallization. */
export const SHARE_CLASSES: ShareClassRow[] = [
  {
    shareClassId: 'A',
    name: 'Class A',
    mgmtFeePct: '2.0000',
    perfFeePct: '20.0000',
    hurdlePct: null,
    hurdleType: null,
    hasHwm: true,
    crystallization: 'annual',
  },
  {
    shareClassId: 'B',
    name: 'Class B (Founders)',
    mgmtFeePct: '1.0000',
    perfFeePct: '10.0000',
    hurdlePct: '5.0000',
    hurdleType: 'hard',
    hasHwm: true,
    crystallization: 'annual',
  },
  {
    shareClassId: 'I',
    name: 'Class I (Institutional)',
    mgmtFeePct: '1.5000',
    perfFeePct: '15.0000',
    hurdlePct: '4.0000',
    hurdleType: 'soft',
    hasHwm: true,
    crystallization: 'quarterly',
  },
];
