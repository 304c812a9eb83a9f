/**
 * What every surface knows of the people behind the keys, and no more: where they sign in and mint keys
 * (the developer console's path, which the home page, the MCP servers' refusals, OAuth and the OpenAPI
 * document point at) and the plans an account can hold, with each plan's calculator limit. The console
 * (lib/console/) keeps the accounts themselves; the other surfaces import this module, not the console,
 * so imports between the console and OAuth, MCP and the site run one way (docs/architecture.md#layers).
 */

/** Account plans. The operator sets `paid` (`npm run console -- plan <account> paid`). */
export type AccountPlan = 'free' | 'paid';

/** Calculator calls per UTC day of every key of an account, by plan (the anonymous limit is 500). */
export const PLAN_DAILY_CALC_LIMITS: Readonly<Record<AccountPlan, number>> = { free: 1_000, paid: 100_000 };

/** The daily calculator limit of a plan. */
export function planDailyCalcLimit(plan: AccountPlan): number {
  return PLAN_DAILY_CALC_LIMITS[plan];
}

/** Where the developer console lives. */
export const CONSOLE_PATH = '/developers/console';
