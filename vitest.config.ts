import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The end-to-end suite starts workerd; give it room on a shared 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
