/** The Worker entry: one app per isolate, serving every request. */
import { createApp } from './app.ts';
import type { Env } from './env.ts';

const app = createApp();

export default {
  fetch(request, env, ctx) {
    return app.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
