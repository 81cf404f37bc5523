/**
 * A reporter that ends the run with what `WEFT_TEST_WITHOUT` skipped: a run that did not test Redis
 * or Chromium says so in its last lines, with the count, instead of passing quietly.
 */
import { readFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';
import {
  OPT_OUT_VARIABLE,
  SUPPORT_MODULE,
  labelOf,
  optedOut,
  type Requirement,
} from './requirements.ts';

/** Skipped tests in the files that import the requirement's support module. */
export function skippedFor(
  requirement: Requirement,
  modules: ReadonlyArray<{ source: string; skipped: number }>,
): { tests: number; files: number } {
  const needing = modules.filter(
    (module) => module.skipped > 0 && SUPPORT_MODULE[requirement].test(module.source),
  );
  return { tests: needing.reduce((sum, module) => sum + module.skipped, 0), files: needing.length };
}

export default class SkippedRequirementsReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const skipped = [...optedOut(process.env)];
    if (skipped.length === 0) return;
    const modules = testModules.map((module) => ({
      source: readFileSync(module.moduleId, 'utf8'),
      skipped: [...module.children.allTests('skipped')].length,
    }));
    const lines = skipped.map((requirement) => {
      const { tests, files } = skippedFor(requirement, modules);
      return (
        `SKIPPED: ${tests} tests in ${files} files that need ${labelOf(requirement)}, ` +
        `because ${OPT_OUT_VARIABLE}=${process.env[OPT_OUT_VARIABLE]}: this run did not test them.`
      );
    });
    const bar = '!'.repeat(Math.max(...lines.map((line) => line.length)));
    process.stdout.write(`\n\x1b[1;33m${[bar, ...lines, bar].join('\n')}\x1b[0m\n`);
  }
}
