/**
 * What every database path of the service shares, without any driver: the time budget, the shape of a
 * connection for one request, and which failures are the database's as a service. operator/db/session.ts (the
 * WebSocket driver, sessions) and lib/db/http.ts (SQL over HTTP, one-shot reads) both answer to it, so
 * that importing this module evaluates no driver code.
 */

/** Time budget of one query, connection included, in milliseconds. */
export const QUERY_TIMEOUT_MS = 3000;

/** The part of a driver client the service uses: parameterised queries only. */
export interface SqlClient {
  /**
   * Runs one statement (`$1`, `$2`, ... placeholders) in one round trip.
   * @throws {UpstreamUnavailableError} unreachable, dropped or over the time budget
   */
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<{ rows: R[] }>;
}

/** A connection for one request. */
export interface Database extends SqlClient {
  /** Round trips made so far (one per query). */
  readonly roundTrips: number;
  /** Closes the connection; hand it to `waitUntil` so the response is not held up. */
  release(): Promise<void>;
}

/**
 * True for a failure of the database as a service (connection, time budget, server shutting down or out of
 * resources), as opposed to a fault of the statement itself. SQLSTATE classes 08 (connection), 53
 * (insufficient resources), 57 (operator intervention, incl. 57014 statement timeout) and 58 (system);
 * an error without a SQLSTATE came from the network or the driver.
 */
export function isUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return ['08', '53', '57', '58'].includes(code.slice(0, 2));
}
