import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: integration files each start a simulator and a gateway; keep the pool small.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
