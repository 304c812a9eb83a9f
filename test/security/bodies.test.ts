/**
 * Request bodies (lib/body.ts): a client that hangs up mid-body gets no `unexpected_error` 500 and no log
 * line (it is the client's doing), on every route that reads a body, whether its length was declared or
 * not. The same in workerd over a real socket: test/e2e/security.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { calcPath } from '../support/declared.ts';
import { createApp } from '../../lib/service.ts';
import { fakeEnv } from '../support/fakes.ts';
import { expectProblem } from '../support/problems.ts';

const app = createApp();

/** A body that sends `prefix`, then fails as workerd's stream does when the client's connection is lost. */
function brokenBody(prefix: string): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream({
    pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(new TextEncoder().encode(prefix));
      } else controller.error(Object.assign(new Error('Network connection lost.'), { retryable: true }));
    },
  });
}

afterEach(() => vi.restoreAllMocks());

describe('a body the client never finished', () => {
  it.each([
    ['a calculator', calcPath('fee-calculator'), 'application/json', '{"navStartUsd":1'],
    ['the console', '/developers/console/api/register/verify', 'application/json', '{"response":{'],
    ['the token endpoint', '/oauth/token', 'application/x-www-form-urlencoded', 'grant_type=refresh_'],
    ['client registration', '/oauth/register', 'application/json', '{"redirect_uris":['],
  ])('%s: 400, not an unexpected_error, and nothing logged ', async (_, path, type, prefix) => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    for (const declared of [true, false]) {
      const headers: Record<string, string> = { 'content-type': type, origin: 'http://localhost:8787' };
      if (declared) headers['content-length'] = '1000';
      const res = await app.request(
        `http://localhost:8787${path}`,
        { method: 'POST', headers, body: brokenBody(prefix), duplex: 'half' } as RequestInit,
        fakeEnv().env,
      );
      const { problem } = await expectProblem(res, 400, 'invalid_request');
      expect(problem.detail).toBe('The request body ended before it was complete.');
    }
    expect(errors).not.toHaveBeenCalled();
  });
});
