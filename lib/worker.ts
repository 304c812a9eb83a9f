/** The Worker entry: one app per isolate, serving every request, and the Durable Object class of the atomic records. */
import { createApp } from './service.ts';
import type { Env } from './env.ts';
import { CALCULATORS, FUND_TOOLS } from './registry.ts';
import { warmUpFundTools } from './fund/warm-up.ts';
import { warmUpSdk } from './mcp/dispatch.ts';

export { AtomicRecord } from './atomic.ts';

const app = createApp();

// The declarations' schemas are built on first read (docs/architecture.md#adding-an-endpoint); those a
// request parses with are built and used once here, at startup: a calculator's input, and a fund tool's
// query as MCP arguments (on none). Then every fund tool answers `TOOL_ROUNDS` times, on a small synthetic
// fund of the warm-up's own (lib/fund/warm-up.ts): its query as a query string reads it, the read, the
// analytic and the redaction. V8 compiles a function on its first call and interprets it until it has run
// enough; inside an isolate's first fund request that cost 3–5 ms of the free plan's 10
// (docs/performance.md#which-plan-fits), and at a large fund several more until its loops reached V8's
// upper tiers; here it is startup. Nothing is kept from these calls and a failure changes nothing: every
// request parses, reads and redacts its own answer. What only the build reads (calculator outputs, OpenAPI
// and tool-definition schemas) is never built in the Worker.
for (const def of CALCULATORS) void def.input;
for (const def of FUND_TOOLS) def.query.safeParse({});
void warmUpFundTools(FUND_TOOLS);

// The MCP SDK's request path, once (lib/mcp/dispatch.ts), with the calls of a 2025 revision: evaluating the
// v1 SDK and this exchange made an isolate's first MCP request cost 8–13 ms more than a REST one; here they
// are about 15 ms of startup (docs/performance.md#which-plan-fits). It settles within the startup's
// microtasks; a failure is ignored, as above.
warmUpSdk().catch(() => {});

export default {
  fetch(request, env, ctx) {
    return app.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
