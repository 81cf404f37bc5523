import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // One graphql for everything: Vite would hand our sources graphql's ESM build while packages
    // loaded by Node (Apollo, graphql-tools) get its CommonJS build, and graphql refuses schemas
    // and errors that cross the two ("another module or realm").
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: integration files each start a simulator and a gateway; keep the pool small.
    maxWorkers: 2,
  },
});
