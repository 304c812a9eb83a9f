/**
 * A database session: `@neondatabase/serverless`'s `Pool` over WebSocket, one connection held for its
 * statements, for what needs a session (migrations, seeding, the tests' transactions). The Worker's fund
 * reads do not use it: they are one-shot statements over SQL-over-HTTP (lib/db/http.ts), which keeps the
 * driver out of the Worker. Locally the WebSocket goes to the project's own proxy (`scripts/pg-ws-proxy.ts`)
 * in front of a plain PostgreSQL server, set by `DATABASE_WS_PROXY`.
 *
 * Every query runs under a time budget (3 s by default). A connection that cannot be made, drops, or
 * answers late becomes {@link UpstreamUnavailableError} (503 with `Retry-After`): never the driver's message,
 * and never part of an answer, because the caller's whole request fails. The server holds every statement to
 * the same budget (`statement_timeout`, sent when the connection starts): a request that gives up on a
 * statement does not leave it running (docs/configuration.md#the-databases-time-budget).
 */
import { Pool, neonConfig, type PoolClient } from '@neondatabase/serverless';
import { ApiError, UpstreamUnavailableError } from '../../lib/errors.ts';
import { QUERY_TIMEOUT_MS, isUnavailable, type Database } from '../../lib/db/sql.ts';

export { QUERY_TIMEOUT_MS, isUnavailable, type Database, type SqlClient } from '../../lib/db/sql.ts';

/** Where and how to connect. */
export interface DatabaseConfig {
  /** `postgres://user:password@host:port/db` (a Worker secret in production). */
  url: string;
  /** Local only: the proxy the driver's WebSocket goes to (`127.0.0.1:5488/v1`); unset for Neon. */
  wsProxy?: string;
  timeoutMs?: number;
}

/**
 * Points the driver at a local WebSocket proxy (plain `ws:`, no TLS, no pipelined connect: local servers
 * use trust or SCRAM auth, which pipelining does not support). Without one, the driver's Neon defaults stay.
 * The driver's settings are global to the isolate, as the configuration is.
 */
export function configureDriver(wsProxy: string | undefined): void {
  if (!wsProxy) return;
  neonConfig.wsProxy = (host, port) => `${wsProxy}?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
}

/**
 * Opens a connection for one request (lazily: nothing happens until the first query).
 * @throws from `query`: {@link UpstreamUnavailableError} 503; any other database error as a plain 500
 */
export function openDatabase(config: DatabaseConfig): Database {
  configureDriver(config.wsProxy);
  const timeoutMs = config.timeoutMs ?? QUERY_TIMEOUT_MS;
  // statement_timeout: the server cancels a statement still running at the budget, when the client has
  // already given up on it (closing the socket does not stop a statement that is waiting, e.g. on a lock).
  const pool = new Pool({ connectionString: config.url, max: 1, connectionTimeoutMillis: timeoutMs, statement_timeout: timeoutMs });
  // A connection dropped while idle is reported on the pool; without a listener it would be thrown.
  pool.on('error', () => {});
  let roundTrips = 0;
  // The request's one connection, checked out on first use and kept, so that the statements of a
  // transaction (migrations, seeding) share a session.
  let held: Promise<PoolClient> | undefined;
  let ended: Promise<void> | undefined;
  const connection = () =>
    (held ??= pool.connect().then((client) => {
      // A checked-out client reports a dropped connection as an event, not through the running query.
      client.on('error', () => {});
      return client;
    }));
  /** Runs one statement on the connection; rejects when the connection errors or ends mid-statement. */
  const run = (client: PoolClient, text: string, params: unknown[]) =>
    new Promise<{ rows: unknown[] }>((resolve, reject) => {
      const lost = () => reject(new Error('The connection was lost.'));
      client.once('error', lost);
      client.once('end', lost);
      client
        .query(text, params)
        .then(resolve, reject)
        .finally(() => {
          client.off('error', lost);
          client.off('end', lost);
        });
    });
  /** Closes the connection at once, even mid-statement (a late connect is closed when it arrives). */
  let destroyed = false;
  const destroy = () => {
    destroyed = true;
    const pending = held;
    held = undefined;
    pending?.then(
      (client) => client.release(true),
      () => {},
    );
  };
  const release = () =>
    (ended ??= (async () => {
      const pending = held;
      held = undefined;
      if (pending) (await pending.catch(() => undefined))?.release();
      // A destroyed connection is closed already, and the pool's end would wait for its goodbye, which a
      // dropped socket never sends; the pool holds no other connection.
      if (!destroyed) await pool.end();
    })().catch(() => {}));

  return {
    get roundTrips() {
      return roundTrips;
    },
    release,
    async query<R>(text: string, params: readonly unknown[] = []) {
      roundTrips++;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new UpstreamUnavailableError()), timeoutMs);
      });
      try {
        const result = await Promise.race([connection().then((client) => run(client, text, params as unknown[])), late]);
        return { rows: result.rows as R[] };
      } catch (err) {
        if (err instanceof ApiError || isUnavailable(err)) {
          destroy();
          void release();
          throw err instanceof ApiError ? err : new UpstreamUnavailableError();
        }
        // The driver's error stays as the cause for logs and the CLI; the renderer never reads it.
        throw new Error('A database statement failed.', { cause: err });
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
