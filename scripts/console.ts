/**
 * `npm run console -- <command>`: the fund operator's side of the developer console (docs/console.md), over the `CONSOLE` and `API_KEYS` KV namespaces.
 *
 *   invite --fund <id> [--plan paid] [--expires 7d] [--base URL]   prints a one-time invitation link
 *   list                                                            accounts: id, plan, funds, state, keys
 *   plan <accountId> <free|paid>                                    changes an account's plan
 *   revoke <accountId>                                              revokes the account and all its keys
 *
 * Options: `--remote` uses the deployed namespaces (wrangler must be logged in); otherwise the local ones
 * that `npm run dev` reads (`.wrangler/state`, or `--persist-to DIR`). The invitation link's base is
 * `--base`, else `PUBLIC_ORIGIN` from the environment, else the port of the `npm run dev` running on that
 * local state, else `http://localhost:8787`; the CLI says which (scripts/dev-args.ts `inviteBase`). The
 * token is printed once and only its SHA-256 is stored.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { listAccountKeys, listAccounts, revokeAccount, setPlan } from '../lib/console/accounts.ts';
import { createInvitation } from '../lib/console/invitations.ts';
import { CONSOLE_PATH, type AccountPlan } from '../lib/identity.ts';
import { wranglerKv, type KvTarget } from './wrangler-kv.ts';
import { inviteBase, localStateDir } from './dev-args.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const usage = `Usage:
  npm run console -- invite --fund <id> [--plan free|paid] [--expires 7d] [--base URL] [--remote] [--persist-to DIR]
  npm run console -- list [--remote] [--persist-to DIR]
  npm run console -- plan <accountId> <free|paid> [--remote] [--persist-to DIR]
  npm run console -- revoke <accountId> [--remote] [--persist-to DIR]`;

/**
 * A duration such as `30m`, `12h` or `7d`, in seconds (1 minute to 90 days).
 * @throws {Error} for anything else
 */
export function parseDuration(text: string): number {
  const match = /^(\d{1,4})([mhd])$/.exec(text);
  const seconds = match ? Number(match[1]) * { m: 60, h: 3600, d: 86_400 }[match[2] as 'm' | 'h' | 'd'] : NaN;
  if (!(seconds >= 60 && seconds <= 90 * 86_400)) throw new Error('--expires must be like 30m, 12h or 7d (1 minute to 90 days).');
  return seconds;
}

function parsePlan(text: string | undefined): AccountPlan {
  if (text === 'free' || text === 'paid') return text;
  throw new Error('The plan must be free or paid.');
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      fund: { type: 'string' },
      plan: { type: 'string' },
      expires: { type: 'string' },
      base: { type: 'string' },
      remote: { type: 'boolean', default: false },
      'persist-to': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command, ...args] = positionals;
  if (values.help || !command) {
    console.log(usage);
    return values.help ? 0 : 2;
  }
  const target: KvTarget = { remote: values.remote, ...(values['persist-to'] ? { persistTo: values['persist-to'] } : {}) };
  const kv = wranglerKv('CONSOLE', target);
  switch (command) {
    case 'invite': {
      if (!values.fund || !/^[A-Za-z0-9_-]{1,64}$/.test(values.fund))
        throw new Error('invite needs --fund <id> (letters, digits, - and _).');
      const ttlSeconds = parseDuration(values.expires ?? '7d');
      const plan = values.plan === undefined ? 'free' : parsePlan(values.plan);
      const { token, invitation } = await createInvitation(kv, { fundId: values.fund, plan, ttlSeconds });
      const { base, how } = inviteBase({
        base: values.base,
        publicOrigin: process.env.PUBLIC_ORIGIN,
        remote: values.remote,
        stateDir: localStateDir(root, values['persist-to']),
      });
      console.error(`Invitation to fund ${invitation.fundId} (plan ${invitation.plan}), single use, expires ${invitation.expiresAt}.`);
      console.error(`The link is for ${base} (${how}).`);
      console.error('The link is shown once; send it to the developer:');
      // The token is the link's fragment: browsers never send it, so no request path or log holds it.
      console.log(`${base}${CONSOLE_PATH}/invite#${token}`);
      return 0;
    }
    case 'list': {
      const accounts = await listAccounts(kv);
      if (accounts.length === 0) console.log('No accounts.');
      const apiKeys = wranglerKv('API_KEYS', target);
      for (const a of accounts) {
        const keys = await listAccountKeys(kv, apiKeys, a.accountId);
        const active = keys.filter((k) => k.revokedAt === null).length;
        console.log(
          [
            a.accountId,
            a.plan,
            a.fundIds.join(',') || '-',
            a.revokedAt ? `revoked ${a.revokedAt}` : 'active',
            `${active} active keys`,
            a.createdAt,
          ].join('\t'),
        );
      }
      return 0;
    }
    case 'plan': {
      const [accountId, plan] = args;
      if (!accountId) throw new Error('plan needs an account id and free or paid.');
      const account = await setPlan(kv, accountId, parsePlan(plan));
      console.log(`Account ${account.accountId} is now on the ${account.plan} plan.`);
      return 0;
    }
    case 'revoke': {
      const [accountId] = args;
      if (!accountId) throw new Error('revoke needs an account id.');
      const { account, keysRevoked } = await revokeAccount(kv, wranglerKv('API_KEYS', target), accountId);
      console.log(`Revoked account ${account.accountId} at ${account.revokedAt} and ${keysRevoked} of its keys.`);
      return 0;
    }
    default:
      console.error(usage);
      return 2;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`console: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
