/**
 * What a log line says of its request (lib/log.ts `logContextOf`): the method and the URL path without the
 * query string, and for the retired invitation path (`/developers/console/invite/<token>`) `[token]` in place
 * of the token, which never reaches a log line.
 */
import type { Context } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from '../lib/env.ts';
import { logContextOf } from '../lib/log.ts';
import { fundPath } from './support/declared.ts';

/** The parts of a request's context that `logContextOf` reads. */
const contextOf = (url: string) => ({ get: () => 'req-1', req: { method: 'GET', url } }) as unknown as Context<AppEnv>;

describe('the request a log line names', () => {
  it('is the method and path, without the query string', () => {
    const overview = fundPath('get_fund_overview');
    expect(logContextOf(contextOf(`http://localhost:8787${overview}?x=svc_dk_1`))).toEqual({
      requestId: 'req-1',
      method: 'GET',
      route: overview,
    });
  });

  it('names a retired invitation link without its token', () => {
    const token = 'AbCdEfGhIjKlMnOpQrStUvWxYz012345';
    const { route } = logContextOf(contextOf(`http://localhost:8787/developers/console/invite/${token}`));
    expect(route).toBe('/developers/console/invite/[token]');
    expect(logContextOf(contextOf(`http://localhost:8787/developers/console/invite/${token}/x`)).route).toBe(
      '/developers/console/invite/[token]/x',
    );
  });
});
