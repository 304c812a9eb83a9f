/**
 * Deploying from zero (docs/configuration.md#deploy): what `npm run setup` prepares and what `npm run deploy`
 * checks before wrangler uploads anything. Node only; the CLIs are scripts/setup.ts and scripts/deploy.ts.
 *
 * - {@link readWranglerConfig}: wrangler.toml as wrangler itself reads it (wrangler's own reader, used as a
 *   library), so the check sees exactly what the deploy would.
 * - {@link configProblems} and {@link secretProblems}: each thing that would make a deployed Worker fail
 *   (a placeholder KV id, no `PUBLIC_ORIGIN`, a missing secret), with the command that fixes it.
 * - {@link withKvNamespaceId} and {@link withVar}: line edits of wrangler.toml that keep every other line,
 *   comments included.
 * - {@link setupRemote} and {@link setupLocal}: the two setups, driven through a {@link WranglerAccount}
 *   (scripts/wrangler-account.ts runs the wrangler CLI; tests hand in a recording one) and never printing
 *   a secret.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { experimental_readRawConfig } from 'wrangler';
import { checkConfig } from '../lib/config.ts';
import { isLoopbackOrigin } from '../lib/origin.ts';
import { envFileLine, readEnvFileValue } from './dev-args.ts';

/** The KV namespaces the Worker binds (lib/env.ts): keys, quota counters, the console, OAuth. */
export const KV_BINDINGS = ['API_KEYS', 'RATE_LIMITS', 'CONSOLE', 'OAUTH_KV'] as const;

/** The atomic records' Durable Object (lib/atomic.ts, docs/atomic.md): its binding and class. */
export const ATOMIC = { binding: 'ATOMIC', className: 'AtomicRecord' } as const;

/** The command that fixes most problems: it creates, writes and sets what is missing. */
export const SETUP_REMOTE = 'npm run setup -- --remote';

/** The parts of wrangler's configuration the deploy depends on. */
export interface WranglerConfig {
  name: string;
  kvNamespaces: { binding: string; id: string | undefined }[];
  vars: Record<string, unknown>;
  durableObjects: { name: string; className: string }[];
  /** Classes the migrations create (`new_classes`, `new_sqlite_classes`). */
  migratedClasses: string[];
}

/** The members of wrangler's raw configuration read here (as its TOML has them). */
interface RawConfig {
  name?: string;
  kv_namespaces?: { binding: string; id?: string }[];
  vars?: Record<string, unknown>;
  durable_objects?: { bindings?: { name: string; class_name: string }[] };
  migrations?: { new_classes?: string[]; new_sqlite_classes?: string[] }[];
}

/**
 * wrangler.toml as wrangler reads it (its own reader, `experimental_readRawConfig`).
 * @throws what wrangler throws for a file it cannot parse
 */
export function readWranglerConfig(configPath: string): WranglerConfig {
  const rawConfig = experimental_readRawConfig({ config: configPath }).rawConfig as RawConfig;
  return {
    name: rawConfig.name ?? '',
    kvNamespaces: (rawConfig.kv_namespaces ?? []).map((k) => ({ binding: k.binding, id: k.id })),
    vars: (rawConfig.vars ?? {}) as Record<string, unknown>,
    durableObjects: (rawConfig.durable_objects?.bindings ?? []).map((d) => ({ name: d.name, className: d.class_name })),
    migratedClasses: (rawConfig.migrations ?? []).flatMap((m) => [...(m.new_classes ?? []), ...(m.new_sqlite_classes ?? [])]),
  };
}

/** True for the placeholder ids wrangler.toml ships with (`00000000000000000000000000000001` ... `…4`). */
export function isPlaceholderId(id: string): boolean {
  return /^0{31}[0-9]$/.test(id);
}

/** True for a KV namespace id as Cloudflare gives them: 32 hexadecimal digits. */
export function isKvNamespaceId(id: string): boolean {
  return /^[0-9a-f]{32}$/i.test(id);
}

/** The rule `value` breaks as the Worker's variable `name` (lib/config.ts), or undefined when it is valid. */
export function variableProblem(
  name: 'PUBLIC_ORIGIN' | 'DATABASE_URL' | 'INVESTOR_REF_KEY' | 'FUND_ID',
  value: string,
): string | undefined {
  const checked = checkConfig({ [name]: value });
  return 'issues' in checked ? checked.issues[0]?.rule : undefined;
}

/** Why `origin` cannot be a deployed Worker's `PUBLIC_ORIGIN`, or undefined when it can. */
export function publicOriginProblem(origin: string): string | undefined {
  if (origin.trim() === '') return 'is empty';
  const rule = variableProblem('PUBLIC_ORIGIN', origin);
  if (rule) return rule;
  if (isLoopbackOrigin(origin)) return 'is a loopback origin, which only serves local development';
  return undefined;
}

/**
 * What in wrangler.toml would make the deployed Worker fail, each with its fix: a KV namespace that is not
 * bound or still has its placeholder id, the atomic records' Durable Object unbound or never migrated, and
 * `PUBLIC_ORIGIN` empty, malformed or loopback (every MCP request would answer 421, the console 403).
 * @returns one message per problem (none: ready, as far as wrangler.toml goes)
 */
export function configProblems(config: WranglerConfig, configFile = 'wrangler.toml'): string[] {
  const out: string[] = [];
  for (const binding of KV_BINDINGS) {
    const kv = config.kvNamespaces.find((k) => k.binding === binding);
    const create = `\`npx wrangler kv namespace create ${config.name}-${binding}\` and put the id it prints into ${configFile}`;
    if (!kv?.id) out.push(`The KV namespace ${binding} is not bound in ${configFile}. Fix: ${SETUP_REMOTE}, or ${create}.`);
    else if (isPlaceholderId(kv.id))
      out.push(
        `The KV namespace ${binding} still has the placeholder id ${kv.id} in ${configFile}. Fix: ${SETUP_REMOTE} (it creates the namespace and writes its id), or ${create}.`,
      );
    else if (!isKvNamespaceId(kv.id))
      out.push(
        `The KV namespace ${binding} has the id "${kv.id}" in ${configFile}, which is not 32 hexadecimal digits. Fix: ${SETUP_REMOTE}, or ${create}.`,
      );
  }
  const atomic = config.durableObjects.find((d) => d.name === ATOMIC.binding);
  if (atomic?.className !== ATOMIC.className || !config.migratedClasses.includes(ATOMIC.className))
    out.push(
      `${configFile} must bind the Durable Object ${ATOMIC.binding} to the class ${ATOMIC.className} ([[durable_objects.bindings]]) and create it in a migration ([[migrations]] new_sqlite_classes = ["${ATOMIC.className}"]): the invitations, the key cap and OAuth refresh tokens depend on it (docs/atomic.md). Restore those tables as the repository has them.`,
    );
  // Every other variable as the Worker parses it (lib/config.ts): a malformed one fails every request.
  const others = Object.fromEntries(Object.entries(config.vars).filter(([name, v]) => typeof v === 'string' && name !== 'PUBLIC_ORIGIN'));
  const checked = checkConfig(others);
  for (const issue of 'issues' in checked ? checked.issues : [])
    out.push(
      `${issue.variable} ${issue.rule} in ${configFile} [vars]: the Worker would answer every request with 500 (config_invalid). Fix it there (docs/configuration.md#variables-and-secrets).`,
    );
  if (typeof config.vars.DATABASE_WS_PROXY === 'string' && config.vars.DATABASE_WS_PROXY !== '')
    out.push(`DATABASE_WS_PROXY is set in ${configFile} [vars]: it is for local development only. Fix: remove it.`);
  const origin = typeof config.vars.PUBLIC_ORIGIN === 'string' ? config.vars.PUBLIC_ORIGIN : '';
  const originRule = publicOriginProblem(origin);
  if (originRule)
    out.push(
      `PUBLIC_ORIGIN ${originRule} in ${configFile} [vars]: a deployed Worker needs the origin it is published at (its MCP servers answer 421 and the developer console 403 otherwise). Fix: ${SETUP_REMOTE} --origin https://<your host> (e.g. https://${config.name}.<your subdomain>.workers.dev), or set PUBLIC_ORIGIN = "https://…" in [vars].`,
    );
  return out;
}

/**
 * The secrets the deployed Worker needs that it does not have, each with its fix:
 * `CONSOLE_SESSION_SECRET` always (the developer console answers 503 without it), `INVESTOR_REF_KEY` when
 * `DATABASE_URL` is set (fund data from the database is refused without it).
 * @param secrets the names of the Worker's secrets (`wrangler secret list`)
 * @param vars wrangler.toml's [vars] (a `DATABASE_URL` there counts as set)
 */
export function secretProblems(secrets: readonly string[], vars: Record<string, unknown> = {}): string[] {
  const out: string[] = [];
  const has = (name: string) => secrets.includes(name) || (typeof vars[name] === 'string' && vars[name] !== '');
  if (!has('CONSOLE_SESSION_SECRET'))
    out.push(
      `The Worker has no secret CONSOLE_SESSION_SECRET: its developer console would answer 503. Fix: ${SETUP_REMOTE} (it generates one), or \`openssl rand -hex 32 | npx wrangler secret put CONSOLE_SESSION_SECRET\`.`,
    );
  if (has('DATABASE_URL') && !has('INVESTOR_REF_KEY'))
    out.push(
      `The Worker has DATABASE_URL but no secret INVESTOR_REF_KEY: it would refuse every fund-data request from the database. Fix: ${SETUP_REMOTE} (it generates one), or \`openssl rand -base64 24 | npx wrangler secret put INVESTOR_REF_KEY\`.`,
    );
  return out;
}

// ------------------------------------------------------------------------------------- wrangler.toml edits

/** A TOML table header line: `[name]` or `[[name]]`, optionally followed by a comment. */
const TABLE = /^\s*(\[\[?)\s*([\w.-]+)\s*\]\]?\s*(?:#.*)?$/;

/** The tables of a TOML text by line: each header's line index, name, whether it is an array table, and where it ends. */
function tables(lines: readonly string[]): { name: string; array: boolean; start: number; end: number }[] {
  const out: { name: string; array: boolean; start: number; end: number }[] = [];
  lines.forEach((line, i) => {
    const m = TABLE.exec(line);
    if (!m) return;
    if (out.length) out[out.length - 1]!.end = i;
    out.push({ name: m[2]!, array: m[1] === '[[', start: i, end: lines.length });
  });
  return out;
}

/** A TOML basic string of `value` (JSON's escapes are TOML's for the characters ids and origins hold). */
const tomlString = (value: string) => JSON.stringify(value);

/** The last line of a table that holds a key (so that an insertion lands before the comments of the next table). */
function lastKeyLine(lines: readonly string[], table: { start: number; end: number }): number {
  for (let i = table.end - 1; i > table.start; i--) if (/^\s*[\w.-]+\s*=/.test(lines[i]!)) return i;
  return table.start;
}

/**
 * wrangler.toml with the `[[kv_namespaces]]` table bound as `binding` given `id`: its `id` line rewritten
 * (or added after `binding`), or, when no table binds it, one appended. Every other line is kept as it was.
 */
export function withKvNamespaceId(toml: string, binding: string, id: string): string {
  const lines = toml.split('\n');
  const bindingLine = new RegExp(`^\\s*binding\\s*=\\s*"${binding}"\\s*(?:#.*)?$`);
  const table = tables(lines).find(
    (t) => t.array && t.name === 'kv_namespaces' && lines.slice(t.start, t.end).some((l) => bindingLine.test(l)),
  );
  if (!table) return `${toml.replace(/\n*$/, '\n')}\n[[kv_namespaces]]\nbinding = ${tomlString(binding)}\nid = ${tomlString(id)}\n`;
  const idLine = lines.findIndex((l, i) => i > table.start && i < table.end && /^\s*id\s*=/.test(l));
  if (idLine >= 0) lines[idLine] = lines[idLine]!.replace(/^(\s*id\s*=\s*)(?:"[^"]*"|'[^']*')/, `$1${tomlString(id)}`);
  else lines.splice(lines.findIndex((l, i) => i > table.start && bindingLine.test(l)) + 1, 0, `id = ${tomlString(id)}`);
  return lines.join('\n');
}

/**
 * wrangler.toml with the variable `name` of `[vars]` set to `value`: its line rewritten (a commented-out
 * line is not it), or added after the table's last key, or a `[vars]` table appended. Every other line is
 * kept as it was.
 */
export function withVar(toml: string, name: string, value: string): string {
  const lines = toml.split('\n');
  const table = tables(lines).find((t) => !t.array && t.name === 'vars');
  if (!table) return `${toml.replace(/\n*$/, '\n')}\n[vars]\n${name} = ${tomlString(value)}\n`;
  const keyLine = new RegExp(`^(\\s*${name}\\s*=\\s*)(?:"(?:[^"\\\\]|\\\\.)*"|'[^']*')`);
  const at = lines.findIndex((l, i) => i > table.start && i < table.end && keyLine.test(l));
  if (at >= 0) lines[at] = lines[at]!.replace(keyLine, `$1${tomlString(value)}`);
  else lines.splice(lastKeyLine(lines, table) + 1, 0, `${name} = ${tomlString(value)}`);
  return lines.join('\n');
}

// ------------------------------------------------------------------------------------------------ setup

/** What the setups need of a Cloudflare account (scripts/wrangler-account.ts: through the wrangler CLI). */
export interface WranglerAccount {
  /** Every KV namespace of the account. */
  listKvNamespaces(): Promise<{ id: string; title: string }[]>;
  /** Creates a KV namespace titled `title`; returns its id. */
  createKvNamespace(title: string): Promise<string>;
  /** The names of the Worker's secrets; empty when the Worker does not exist yet. */
  listSecrets(): Promise<string[]>;
  /** Sets the Worker's secrets (creating the Worker, empty, when it does not exist yet). */
  putSecrets(secrets: Record<string, string>): Promise<void>;
}

/** Where the setups print (tests collect the lines). */
export type Log = (line: string) => void;

/** How the setups ask: a question and its answer (`hidden`: not echoed); absent when not interactive. */
export type Ask = (question: string, options?: { hidden?: boolean }) => Promise<string>;

/** A fresh secret: `bytes` random bytes, hex or base64url. */
function generated(bytes: number, encoding: 'hex' | 'base64url'): string {
  return randomBytes(bytes).toString(encoding);
}

/** What {@link setupRemote} is given. */
export interface RemoteSetup {
  configPath: string;
  account: WranglerAccount;
  /** `--origin`: the `PUBLIC_ORIGIN` to write. */
  origin?: string;
  /** `--fund`: the `FUND_ID` to write. */
  fundId?: string;
  /** The environment: `DATABASE_URL`, and `INVESTOR_REF_KEY` / `CONSOLE_SESSION_SECRET` to use rather than generate. */
  env: Record<string, string | undefined>;
  ask?: Ask;
  log: Log;
}

/** The KV namespaces: each placeholder or missing id replaced by a namespace of the account (reused by title, else created). */
async function setUpNamespaces(config: WranglerConfig, toml: string, account: WranglerAccount, log: Log): Promise<string> {
  let out = toml;
  let existing: { id: string; title: string }[] | undefined;
  for (const binding of KV_BINDINGS) {
    const id = config.kvNamespaces.find((k) => k.binding === binding)?.id;
    if (id && isKvNamespaceId(id) && !isPlaceholderId(id)) {
      log(`KV namespace ${binding}: ${id} (kept)`);
      continue;
    }
    const title = `${config.name}-${binding}`;
    existing ??= await account.listKvNamespaces();
    const found = existing.find((n) => n.title === title);
    const newId = found?.id ?? (await account.createKvNamespace(title));
    log(`KV namespace ${binding}: ${newId} (${found ? 'the existing' : 'created,'} "${title}"), written to wrangler.toml`);
    out = withKvNamespaceId(out, binding, newId);
  }
  return out;
}

/** `PUBLIC_ORIGIN` (and `FUND_ID`): from the flags, else kept, else asked for; written to wrangler.toml when it changes. */
async function setUpVars(config: WranglerConfig, toml: string, options: RemoteSetup): Promise<string> {
  let out = toml;
  const current = typeof config.vars.PUBLIC_ORIGIN === 'string' ? config.vars.PUBLIC_ORIGIN : '';
  let origin = options.origin ?? (publicOriginProblem(current) ? undefined : current);
  if (origin === undefined && options.ask)
    origin = (
      await options.ask(`PUBLIC_ORIGIN, the origin the Worker is published at (e.g. https://${config.name}.<your subdomain>.workers.dev): `)
    ).trim();
  const problem = origin === undefined ? 'is not given' : publicOriginProblem(origin);
  if (origin !== undefined && !problem && origin !== current) {
    out = withVar(out, 'PUBLIC_ORIGIN', origin);
    options.log(`PUBLIC_ORIGIN: ${origin}, written to wrangler.toml`);
  } else if (!problem) options.log(`PUBLIC_ORIGIN: ${origin} (kept)`);
  else if (origin !== undefined) options.log(`PUBLIC_ORIGIN: "${origin}" ${problem}; not written`);
  const fundRule = options.fundId === undefined ? undefined : variableProblem('FUND_ID', options.fundId);
  if (fundRule) throw new Error(`--fund: FUND_ID ${fundRule}.`);
  if (options.fundId !== undefined && options.fundId !== config.vars.FUND_ID) {
    out = withVar(out, 'FUND_ID', options.fundId);
    options.log(`FUND_ID: ${options.fundId}, written to wrangler.toml`);
  }
  return out;
}

/**
 * The secrets: each one the Worker lacks is taken from the environment, asked for (`DATABASE_URL`, optional)
 * or generated (`CONSOLE_SESSION_SECRET`; `INVESTOR_REF_KEY` when there is a database), and all are set in
 * one call. A secret the Worker has is never replaced: a new `INVESTOR_REF_KEY` would change every
 * investor's pseudonym, a new session secret sign everyone out.
 * @returns the names of the Worker's secrets afterwards
 */
async function setUpSecrets(options: RemoteSetup): Promise<string[]> {
  const { account, env, log } = options;
  const existing = await account.listSecrets();
  const put: Record<string, string> = {};
  const kept = (name: string): boolean => {
    if (!existing.includes(name)) return false;
    log(`${name}: already set (kept)`);
    return true;
  };
  if (!kept('DATABASE_URL')) {
    let url = env.DATABASE_URL?.trim();
    if (!url && options.ask)
      url = (
        await options.ask('DATABASE_URL, the fund database (Enter for none: the Worker serves the embedded fund): ', { hidden: true })
      ).trim();
    const rule = url ? variableProblem('DATABASE_URL', url) : undefined;
    if (url && rule) throw new Error(`DATABASE_URL ${rule}.`);
    if (url) {
      put.DATABASE_URL = url;
      log('DATABASE_URL: set (from the environment or your answer)');
    } else log('DATABASE_URL: none; the Worker serves the embedded fund (set DATABASE_URL and run this again to connect a database)');
  }
  if ((existing.includes('DATABASE_URL') || put.DATABASE_URL) && !kept('INVESTOR_REF_KEY')) {
    const given = env.INVESTOR_REF_KEY?.trim();
    const rule = given ? variableProblem('INVESTOR_REF_KEY', given) : undefined;
    if (given && rule) throw new Error(`INVESTOR_REF_KEY ${rule}.`);
    put.INVESTOR_REF_KEY = given || generated(24, 'base64url');
    log(`INVESTOR_REF_KEY: ${given ? 'set from the environment' : 'generated and set'}`);
  }
  if (!kept('CONSOLE_SESSION_SECRET')) {
    const given = env.CONSOLE_SESSION_SECRET?.trim();
    put.CONSOLE_SESSION_SECRET = given || generated(32, 'hex');
    log(`CONSOLE_SESSION_SECRET: ${given ? 'set from the environment' : 'generated and set'}`);
  }
  if (Object.keys(put).length) await account.putSecrets(put);
  return [...existing, ...Object.keys(put)];
}

/**
 * `npm run setup -- --remote`: gets a Cloudflare account ready for `npm run deploy`. Creates the KV
 * namespaces wrangler.toml still has placeholders for (or reuses the account's namespaces of the same title,
 * `<worker>-<binding>`) and writes their ids; writes `PUBLIC_ORIGIN` (and `FUND_ID`); sets the secrets the
 * Worker lacks. Safe to run again: what is set is kept.
 * @returns what still stands in the way of a deploy (none: `npm run deploy` will go ahead)
 * @throws when wrangler fails (not logged in, no network), or a given value breaks its rule
 */
export async function setupRemote(options: RemoteSetup): Promise<string[]> {
  const config = readWranglerConfig(options.configPath);
  const original = readFileSync(options.configPath, 'utf8');
  let toml = await setUpNamespaces(config, original, options.account, options.log);
  toml = await setUpVars(config, toml, options);
  if (toml !== original) writeFileSync(options.configPath, toml);
  const secrets = await setUpSecrets(options);
  const after = readWranglerConfig(options.configPath);
  return [...configProblems(after), ...secretProblems(secrets, after.vars)];
}

/** The `NAME=value` lines of a `.dev.vars` file (wrangler's local secrets), in order. */
export function parseDevVars(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([A-Za-z_]\w*)\s*=\s*(.*?)\s*$/.exec(line);
    if (m) out.set(m[1]!, readEnvFileValue(m[2]!));
  }
  return out;
}

/** What {@link setupLocal} is given. */
export interface LocalSetup {
  /** The project's directory (where `.dev.vars` is written). */
  root: string;
  env: Record<string, string | undefined>;
  ask?: Ask;
  log: Log;
}

/**
 * `npm run setup`: prepares local development. Writes `.dev.vars` (wrangler's local secrets, git-ignored):
 * a `CONSOLE_SESSION_SECRET`, so console sessions outlive a restart of `npm run dev`, and, with a
 * `DATABASE_URL` (from the environment, or asked for), that URL and a generated `INVESTOR_REF_KEY`. Lines
 * already there are kept; a `DATABASE_URL` from the environment replaces the file's.
 * @returns the lines of `.dev.vars` that were added or changed, by name (never their values)
 * @throws when the given `DATABASE_URL` breaks its rule, or holds a line break or another control character
 *   (which would write a line of its own: {@link envFileLine}), before anything is written
 */
export async function setupLocal(options: LocalSetup): Promise<string[]> {
  const file = join(options.root, '.dev.vars');
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const vars = parseDevVars(text);
  const set = new Map<string, string>();
  let url = options.env.DATABASE_URL?.trim() || vars.get('DATABASE_URL');
  if (!url && options.ask)
    url = (
      await options.ask(
        'DATABASE_URL of a PostgreSQL (Enter for none: the embedded fund), e.g. postgres://postgres@127.0.0.1:5432/fund_edge: ',
      )
    ).trim();
  if (url) {
    const rule = variableProblem('DATABASE_URL', url);
    if (rule) throw new Error(`DATABASE_URL ${rule}.`);
    if (vars.get('DATABASE_URL') !== url) set.set('DATABASE_URL', url);
    if (!vars.get('INVESTOR_REF_KEY')) set.set('INVESTOR_REF_KEY', generated(24, 'base64url'));
  }
  if (!vars.get('CONSOLE_SESSION_SECRET')) set.set('CONSOLE_SESSION_SECRET', generated(32, 'hex'));
  let lines =
    text === ''
      ? ['# Local secrets of `npm run dev` (wrangler reads this file; git-ignored). Written by `npm run setup`.']
      : text.replace(/\n$/, '').split('\n');
  for (const [name, value] of set) {
    const line = envFileLine(name, value);
    const at = lines.findIndex((l) => new RegExp(`^\\s*${name}\\s*=`).test(l));
    if (at >= 0) lines[at] = line;
    else lines = [...lines, line];
  }
  if (set.size) {
    writeFileSync(file, `${lines.join('\n')}\n`);
    chmodSync(file, 0o600);
  }
  for (const name of set.keys()) options.log(`.dev.vars: ${name} ${vars.has(name) ? 'updated' : 'added'}`);
  if (!set.size) options.log('.dev.vars: nothing to add');
  options.log(
    url
      ? 'fund data: PostgreSQL (npm run db:migrate, then npm run db:seed -- --fund sample-fund or npm run fund -- import)'
      : 'fund data: the embedded default',
  );
  return [...set.keys()];
}

/** The path of the wrangler configuration in a command line (`--config P`, `--config=P`, `-c P`), else `fallback`. */
export function configPathOf(args: readonly string[], fallback: string): string {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--config' || a === '-c') return args[i + 1] ?? fallback;
    if (a.startsWith('--config=')) return a.slice('--config='.length);
  }
  return fallback;
}
