/**
 * Request bodies within their time budget and their cap (lib/body.ts): a body that is not complete within
 * BODY_READ_TIMEOUT_MS of its first read is refused 408 `request_timeout` (whether it stalls or trickles a byte
 * at a time, with a declared length or chunked), and a body refused for its size has its read finished or
 * cancelled before the answer, so nothing reads the request afterwards. The same in workerd:
 * test/e2e/refusals.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp } from '../lib/service.ts';
import { BODY_READ_TIMEOUT_MS, MAX_BODY_BYTES, REFUSED_BODY_DRAIN_BYTES } from '../lib/limits.ts';
import { calcPath } from './support/declared.ts';
import { fakeEnv } from './support/fakes.ts';
import { expectProblem } from './support/problems.ts';

const app = createApp();

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** A body that sends `first`, then one byte every `everyMs` (never, for `null`), and never ends. */
function trickle(first: string, everyMs: number | null): ReadableStream<Uint8Array> {
  let started = false;
  return new ReadableStream({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(new TextEncoder().encode(first));
        return;
      }
      if (everyMs === null) return new Promise(() => {});
      await new Promise((resolve) => setTimeout(resolve, everyMs));
      controller.enqueue(new Uint8Array([0x20]));
    },
  });
}

/** Sends a request whose body is `body`, advancing the fake clock until it is answered (at most `maxMs`). */
async function answeredWithin(path: string, headers: Record<string, string>, body: ReadableStream<Uint8Array>, maxMs: number) {
  let answer: Response | undefined;
  const pending = Promise.resolve(app.request(path, { method: 'POST', headers, body, duplex: 'half' } as RequestInit, fakeEnv().env)).then(
    (res) => {
      answer = res;
    },
  );
  let waited = 0;
  while (!answer && waited < maxMs) {
    await vi.advanceTimersByTimeAsync(500);
    waited += 500;
  }
  await Promise.race([pending, Promise.resolve()]);
  return { answer, waited };
}

describe(`a body must arrive within ${BODY_READ_TIMEOUT_MS / 1000} s`, () => {
  it.each([
    ['stalls after its first bytes, chunked', {}, null],
    ['trickles a byte a second, chunked', {}, 1000],
    ['trickles a byte a second, with a declared length', { 'content-length': '100000' }, 1000],
  ] as const)('a body that %s is refused 408 request_timeout at the budget, and nothing is logged', async (_, extra, everyMs) => {
    vi.useFakeTimers();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const headers = { 'content-type': 'application/json', ...extra };
    const { answer, waited } = await answeredWithin(
      calcPath('fee-calculator'),
      headers,
      trickle('{"horizonYears":', everyMs),
      3 * BODY_READ_TIMEOUT_MS,
    );
    expect(answer, 'the request is still open').toBeDefined();
    expect(waited).toBeGreaterThanOrEqual(BODY_READ_TIMEOUT_MS);
    expect(waited).toBeLessThanOrEqual(BODY_READ_TIMEOUT_MS + 1000);
    const { problem } = await expectProblem(answer!, 408, 'request_timeout');
    expect(problem.detail).toBe(`The request body must arrive within ${BODY_READ_TIMEOUT_MS / 1000} s.`);
    expect(errors).not.toHaveBeenCalled();
  });

  it('the same on the OAuth token endpoint and the console', async () => {
    vi.useFakeTimers();
    for (const [path, type] of [
      ['/oauth/token', 'application/x-www-form-urlencoded'],
      ['/developers/console/api/register/verify', 'application/json'],
    ] as const) {
      const headers = { 'content-type': type, origin: 'http://localhost:8787', host: 'localhost:8787' };
      const { answer } = await answeredWithin(`http://localhost:8787${path}`, headers, trickle('a', 1000), 3 * BODY_READ_TIMEOUT_MS);
      expect(answer?.status, path).toBe(408);
    }
  });

  it('a body that keeps arriving in time is read whole', async () => {
    const res = await app.request(
      calcPath('fee-calculator'),
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"horizonYears":3}' },
      fakeEnv().env,
    );
    expect(res.status).toBe(200);
  });
});

describe('a body refused for its size is not read after the answer', () => {
  it.each([
    ['chunked', {}],
    ['with a declared length over the cap', { 'content-length': String(MAX_BODY_BYTES + 1) }],
  ] as const)('%s: the rest is dropped up to its bound and the read cancelled before the 413', async (_, extra) => {
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    let pulled = 0;
    let cancelled = false;
    let answered = false;
    let pulledAfterAnswer = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (answered) pulledAfterAnswer = true;
        pulled += chunk.length;
        controller.enqueue(chunk);
      },
      cancel() {
        cancelled = true;
      },
    });
    const res = await app.request(
      calcPath('fee-calculator'),
      { method: 'POST', headers: { 'content-type': 'application/json', ...extra }, body, duplex: 'half' } as RequestInit,
      fakeEnv().env,
    );
    answered = true;
    await expectProblem(res, 413, 'payload_too_large');
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThanOrEqual(MAX_BODY_BYTES + REFUSED_BODY_DRAIN_BYTES + 3 * chunk.length);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pulledAfterAnswer).toBe(false);
  });
});
