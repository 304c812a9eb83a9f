/**
 * `npm run keys -- <command>`: mint, list and revoke developer API keys in the `API_KEYS` KV namespace.
 *
 *   create --fund <id> [--label L] [--daily-calc-limit N]   prints the new key once
 *   list                                                     a header line, then one line a key: prefix, id, scope, fund, account, limit, state, label
 *   revoke <prefix|keyId>                                    marks the key revoked
 *
 * Options: `--remote` uses the deployed namespace (wrangler must be logged in, and wrangler.toml must name
 * it: a placeholder id is refused first, as `npm run deploy` does); otherwise the local one that
 * `npm run dev` reads (`.wrangler/state`, or `--persist-to DIR`). Storage goes through `wrangler kv key`, so
 * the CLI and the Worker see the same data. Only SHA-256(key) and the record reach wrangler; the key itself
 * is printed once to stdout and never stored or logged.
 */
import { parseArgs } from 'node:util';
import { createKey, listKeys, revokeKey } from '../lib/keys.ts';
import { wranglerKv } from './wrangler-kv.ts';

const usage = `Usage:
  npm run keys -- create --fund <id> [--label L] [--daily-calc-limit N] [--remote] [--persist-to DIR]
  npm run keys -- list [--remote] [--persist-to DIR]
  npm run keys -- revoke <prefix|keyId> [--remote] [--persist-to DIR]`;

/** The columns of `list`, one tab-separated line a key under this header line. */
const LIST_HEADER = ['prefix', 'keyId', 'scope', 'fund', 'account', 'calc calls/day', 'state', 'label'];

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      fund: { type: 'string' },
      label: { type: 'string' },
      'daily-calc-limit': { type: 'string' },
      remote: { type: 'boolean', default: false },
      'persist-to': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command, arg] = positionals;
  if (values.help || !command) {
    console.log(usage);
    return values.help ? 0 : 2;
  }
  const store = wranglerKv('API_KEYS', { remote: values.remote, ...(values['persist-to'] ? { persistTo: values['persist-to'] } : {}) });
  switch (command) {
    case 'create': {
      if (!values.fund) throw new Error('create needs --fund <id>.');
      const limitText = values['daily-calc-limit'];
      const limit = limitText === undefined ? undefined : Number(limitText);
      if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) throw new Error('--daily-calc-limit must be a positive integer.');
      const { key, record } = await createKey(store, {
        fundId: values.fund,
        ...(values.label !== undefined ? { label: values.label } : {}),
        ...(limit !== undefined ? { dailyCalcLimit: limit } : {}),
      });
      console.error(
        `Created ${record.keyId} (prefix ${record.prefix}, fund ${record.fundId}, ${record.dailyCalcLimit} calculator calls/day).`,
      );
      console.error('The key is shown once; store it now:');
      console.log(key);
      return 0;
    }
    case 'list': {
      const records = await listKeys(store);
      if (records.length === 0) console.log('No keys.');
      else console.log(LIST_HEADER.join('\t'));
      for (const r of records) {
        console.log(
          [
            r.prefix,
            r.keyId,
            r.scope,
            r.fundId ?? '-',
            r.accountId ?? '-',
            r.dailyCalcLimit,
            r.revokedAt ? `revoked ${r.revokedAt}` : 'active',
            r.label,
          ].join('\t'),
        );
      }
      return 0;
    }
    case 'revoke': {
      if (!arg) throw new Error('revoke needs a key prefix or keyId.');
      const record = await revokeKey(store, arg);
      console.log(`Revoked ${record.keyId} (prefix ${record.prefix}) at ${record.revokedAt}.`);
      return 0;
    }
    default:
      console.error(usage);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`keys: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
