/**
 * Which store and fund a principal reads (contract §2): the demo key reads the bundled synthetic fund from
 * its own embedded store, on a path that never touches the real fund store; a real key reads the fund this
 * deployment serves (`FUND_ID`) from the real fund store, which without a database is the embedded local
 * sample fund.
 */
import { InsufficientScopeError } from '../errors.ts';
import type { Env } from '../env.ts';
import type { Principal } from '../keys.ts';
import { embeddedStore } from './embedded-store.ts';
import { guardedStore, type FundStore } from './store.ts';
import { DEMO_FUND, SAMPLE_FUND } from './synthetic.ts';

/** The fund a deployment serves when `FUND_ID` is not set: the embedded local sample fund. */
export const DEFAULT_FUND_ID = SAMPLE_FUND.fundId;

/** A store and the fund id to read from it. */
export interface FundSource {
  store: FundStore;
  fundId: string;
}

let demoStore: FundStore | undefined;
let realStore: FundStore | undefined;

/**
 * The source of a principal's fund data.
 * @throws {InsufficientScopeError} 403 for a key scoped to a fund other than the deployment's
 */
export function fundSource(principal: Principal, env: Pick<Env, 'FUND_ID'>): FundSource {
  if (principal.kind === 'demo') {
    demoStore ??= guardedStore(embeddedStore([DEMO_FUND]));
    return { store: demoStore, fundId: DEMO_FUND.fundId };
  }
  const fundId = env.FUND_ID || DEFAULT_FUND_ID;
  if (principal.record.fundId !== fundId) throw new InsufficientScopeError('This key is scoped to another fund.');
  realStore ??= guardedStore(embeddedStore([SAMPLE_FUND]));
  return { store: realStore, fundId };
}
