import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The end-to-end suite starts workerd; give it room on a shared 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // workerd's built-in `cloudflare:workers` (imported by the OAuth provider library) does not exist in Node;
    // the Worker's bundle replaces it too (wrangler.toml [alias], lib/oauth/workers-unused.ts).
    alias: { 'cloudflare:workers': new URL('./lib/oauth/workers-unused.ts', import.meta.url).pathname },
    server: { deps: { inline: ['@cloudflare/workers-oauth-provider'] } },
  },
});
