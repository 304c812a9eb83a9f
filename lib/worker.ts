/** The Worker entry: one app per isolate, serving every request, and the Durable Object class of the atomic records. */
import { createApp } from './app.ts';
import type { Env } from './env.ts';

export { AtomicRecord } from './atomic.ts';

const app = createApp();

export default {
  fetch(request, env, ctx) {
    return app.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
