/** The Worker entry: one app per isolate, serving every request, and the Durable Object class of the atomic records. */
import { createApp } from './service.ts';
import type { Env } from './env.ts';
import { CALCULATORS, FUND_TOOLS, RESPONSE_EXAMPLES } from './registry.ts';
import { queryStringSchema } from './validation.ts';
import { operationIdOf } from './endpoint.ts';
import { redact } from './redaction.ts';
import { warmUpSdk } from './mcp/dispatch.ts';

export { AtomicRecord } from './atomic.ts';

const app = createApp();

// The declarations' schemas are built on first read (docs/architecture.md#adding-an-endpoint); those a
// request parses with are built and used once here, at startup: a calculator's input; a fund tool's query
// (as a query string reads it, on its declared example; as MCP arguments, on none), and the redaction (its
// output allow-list, then the scans) on the response example the build computed from that query. zod
// prepares a schema on its first parse and V8 compiles the code a call takes on its first run; inside an
// isolate's first fund request that cost it 1.3–3.3 ms of a 10 ms budget, here about 10 ms of a startup
// budget of 40 (docs/performance.md#todays-figures). Nothing is kept from these calls and a failure changes
// nothing: every request parses and redacts its own answer. What only the build reads (calculator outputs,
// OpenAPI and tool-definition schemas) is never built in the Worker.
for (const def of CALCULATORS) void def.input;
for (const def of FUND_TOOLS) {
  queryStringSchema(def.query).safeParse(def.example);
  def.query.safeParse({});
  try {
    redact(def.output, RESPONSE_EXAMPLES[operationIdOf(def.tool)], []);
  } catch {
    // a stale example: the warm-up is only a warm-up
  }
}

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
