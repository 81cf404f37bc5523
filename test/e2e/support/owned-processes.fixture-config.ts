/**
 * The vitest configuration of the run that owned-processes.test.ts starts and breaks: only the
 * fixture file, with time enough for a gateway to start on a loaded machine.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/e2e/support/owned-processes.fixture.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
