/**
 * `npm run dev`: `wrangler dev` on 127.0.0.1:8787, offline and quiet. Without `DATABASE_URL` the Worker
 * serves the embedded default fund. With it (environment or `.dev.vars`) and a loopback PostgreSQL, this
 * also starts the project's WebSocket-to-TCP proxy (`scripts/pg-ws-proxy.ts`) and points the Worker's driver
 * at it (`DATABASE_WS_PROXY`); a remote host (Neon) is reached directly. With `DATABASE_URL` it needs
 * `INVESTOR_REF_KEY` too, and stops with a message without it. Extra arguments go to wrangler and override
 * the defaults (`npm run dev -- --port 8788`, `--ip 0.0.0.0`); the console link it prints has the port, and
 * while it runs it notes that port in the local state folder for `npm run console -- invite`. The variables
 * it adds reach wrangler through a file of mode 0600 in a private temporary folder (`--env-file`, after
 * `.dev.vars`), never on wrangler's command line, which every local user can read; the file is deleted when
 * wrangler exits. Ctrl-C stops wrangler and the proxy.
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isLoopback, localDatabaseUrl, postgresTarget, startPgWsProxy, type PgWsProxy } from './pg-ws-proxy.ts';
import {
  devConsoleUrl,
  devPort,
  devVar,
  envFileArgs,
  flagValue,
  forgetDevServer,
  investorRefKeyProblem,
  localStateDir,
  noteDevServer,
  writeDevEnvFile,
  wranglerDevArgs,
  type DevEnvFile,
} from './dev-args.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The variables this script adds for the Worker (secrets among them): wrangler reads them from a private file. */
const vars = new Map<string, string>();
let proxy: PgWsProxy | undefined;

const url = localDatabaseUrl(root);
const refKeyProblem = investorRefKeyProblem(url, devVar(root, 'INVESTOR_REF_KEY'));
if (refKeyProblem) {
  console.error(refKeyProblem);
  process.exit(1);
}
if (url) {
  if (process.env.INVESTOR_REF_KEY) vars.set('INVESTOR_REF_KEY', process.env.INVESTOR_REF_KEY);
  // A URL from the environment is not in .dev.vars, where wrangler looks: hand it over in the file.
  if (process.env.DATABASE_URL) vars.set('DATABASE_URL', url);
  const target = postgresTarget(url);
  if (isLoopback(target.host)) {
    proxy = await startPgWsProxy({ target, port: Number(process.env.PG_WS_PROXY_PORT ?? 0) });
    vars.set('DATABASE_WS_PROXY', proxy.wsProxy);
    console.log(`fund data: PostgreSQL ${target.host}:${target.port} over SQL over HTTP, http://${proxy.wsProxy.split('/')[0]}/sql`);
  } else {
    console.log(`fund data: ${target.host} (Neon) over SQL over HTTP`);
  }
} else {
  console.log('fund data: the embedded default (set DATABASE_URL in .dev.vars for Postgres)');
}

const extra = process.argv.slice(2);
let envFile: DevEnvFile | undefined;
try {
  if (vars.size) envFile = writeDevEnvFile(vars);
} catch (err) {
  console.error((err as Error).message);
  await proxy?.close();
  process.exit(1);
}
const port = devPort(extra);
console.log(`developer console: ${devConsoleUrl(port)} (passkeys need localhost, not 127.0.0.1)`);
// `npm run console -- invite` links to this server's port while it runs (scripts/dev-args.ts inviteBase).
const stateDir = localStateDir(root, flagValue(extra, '--persist-to'));
noteDevServer(stateDir, port);

const child = spawn(
  join(root, 'node_modules', '.bin', 'wrangler'),
  wranglerDevArgs(extra, envFile ? envFileArgs(root, envFile.file, extra) : []),
  {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: 'false',
      CLOUDFLARE_CF_FETCH_ENABLED: 'false',
      XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME ?? join(root, '.config'),
      // wrangler reads --env-file only while this is on (its default); an operator's `false` would drop the file.
      CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV: 'true',
    },
  },
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  forgetDevServer(stateDir);
  envFile?.remove();
  void (proxy?.close() ?? Promise.resolve()).then(() => process.exit(code ?? (signal ? 1 : 0)));
});
