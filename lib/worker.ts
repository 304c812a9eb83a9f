/** The Worker entry: one app per isolate, serving every request, and the Durable Object class of the atomic records. */
import { createApp } from './app.ts';
import type { Env } from './env.ts';
import { CALCULATORS } from './registry.ts';

export { AtomicRecord } from './atomic.ts';

const app = createApp();

// The declarations' schemas are built on first read (docs/architecture.md#adding-an-endpoint), but the
// calculators' input schemas are built here, at startup: every calculator request, REST or MCP, parses with
// its own, and built inside an isolate's first request (zod's code compiling there too) they cost it 1.5–3 ms,
// while here they add about 5 ms to a startup of about 17 (`npm run bench`, issue 23): a first request's
// budget is 10 ms, startup's 40.
for (const def of CALCULATORS) void def.input;

export default {
  fetch(request, env, ctx) {
    return app.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
