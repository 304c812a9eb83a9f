/** The Worker entry: one app per isolate, serving every request, and the Durable Object class of the atomic records. */
import { createApp } from './app.ts';
import type { Env } from './env.ts';
import { CALCULATORS, FUND_TOOLS } from './registry.ts';
import { queryStringSchema } from './validation.ts';

export { AtomicRecord } from './atomic.ts';

const app = createApp();

// The declarations' schemas are built on first read (docs/architecture.md#adding-an-endpoint); those a
// request parses with are built here, at startup: a calculator's input, a fund tool's query (as a query
// string reads it) and its output, the allow-list the redaction parses every answer with. Built inside an
// isolate's first request (zod's code compiling there too) they cost it 1–3 ms, against a budget of 10 ms
// (docs/performance.md); here they are part of a startup well under its 40 ms. What only the build reads
// (calculator outputs, OpenAPI and tool-definition schemas) is never built in the Worker.
for (const def of CALCULATORS) void def.input;
for (const def of FUND_TOOLS) {
  queryStringSchema(def.query);
  void def.output;
}

export default {
  fetch(request, env, ctx) {
    return app.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
