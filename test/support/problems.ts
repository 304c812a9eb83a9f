/**
 * Assertions on RFC 9457 problem responses shared by the app-level tests: status, media type, `type` and
 * `code`, the request id echoed from `X-Request-Id`, a title and detail, and no member beyond the contract's.
 */
import { expect } from 'vitest';
import type { ProblemBody } from '../../lib/errors.ts';

/** The members a problem body may have (docs/api.md#errors). */
export const PROBLEM_MEMBERS = ['code', 'detail', 'errors', 'requestId', 'status', 'title', 'type'];

/**
 * Asserts `res` is the problem `code` with `status`.
 * @returns the parsed body and its raw text (to assert what it must not contain)
 */
export async function expectProblem(res: Response, status: number, code: string): Promise<{ problem: ProblemBody; text: string }> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  const text = await res.text();
  const problem = JSON.parse(text) as ProblemBody;
  expect(problem).toMatchObject({ type: `/problems/${code}`, status, code });
  expect(problem.requestId).toBe(res.headers.get('x-request-id'));
  expect(problem.title.length).toBeGreaterThan(0);
  expect(typeof problem.detail).toBe('string');
  for (const key of Object.keys(problem)) expect(PROBLEM_MEMBERS).toContain(key);
  return { problem, text };
}
