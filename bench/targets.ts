/**
 * The endpoints the bench times by name, at the URLs their files give them (test/support/declared.ts), and
 * the short labels the sections name them by (`fund/<path>`, `calc/<path>`), so that renaming an
 * endpoint file moves the bench with it.
 */
import { calcPath, fundPath } from '../test/support/declared.ts';

/** A URL path without `/api/v1/`: what labels show (`fund/<path>`, `calc/<path>`). */
export const short = (path: string): string => path.slice('/api/v1/'.length);

export const FEE_CALCULATOR = calcPath('fee-calculator');
export const OPERATING_COST = calcPath('operating-cost-calculator');
export const OVERVIEW = fundPath('get_fund_overview');
export const POSITIONS = fundPath('get_positions');
export const VALUE_AT_RISK = fundPath('get_value_at_risk');
export const FEE_TERMS = fundPath('get_fee_terms');
