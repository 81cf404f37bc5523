/**
 * Loaded into a gateway process with `--import` (through NODE_OPTIONS): records every module the
 * process resolves — ES modules and CommonJS alike, through Node's module hooks — and on SIGWINCH
 * writes them to the file named by MODULE_PROBE_OUT, so a test can see what start-up loaded and what
 * a first request of each kind loads later (test/e2e/server/lazy-start-up.test.ts). SIGWINCH because
 * its default is to do nothing, and Weft's shutdown (close-with-grace) listens to SIGUSR2.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

/** What the probe writes: the how-many-th report this is, and every module URL resolved so far. */
export interface ModuleReport {
  readonly sequence: number;
  readonly modules: readonly string[];
}

const resolved = new Set<string>();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context);
    resolved.add(result.url);
    return result;
  },
});

let sequence = 0;
process.on('SIGWINCH', () => {
  const out = process.env.MODULE_PROBE_OUT;
  if (!out) return;
  sequence += 1;
  const report: ModuleReport = { sequence, modules: [...resolved] };
  // Whole or not at all: the test reads the file as soon as it appears.
  writeFileSync(`${out}.tmp`, JSON.stringify(report));
  renameSync(`${out}.tmp`, out);
});
