/**
 * The run's closing lines (test/support/project-summary-reporter.ts): one per project, with its
 * files, its tests by state and the time its files took; a failure is counted where it happened.
 */
import { describe, expect, it } from 'vitest';
import { formatTally, tallyProjects } from '../support/project-summary-reporter.ts';

const module = (
  project: string,
  overrides: Partial<Parameters<typeof tallyProjects>[0][0]> = {},
) => ({
  project,
  failed: false,
  passed: 3,
  failedTests: 0,
  skipped: 0,
  ms: 1000,
  ...overrides,
});

describe('the per-project summary', () => {
  it('tallies each project once, in the order its first file came', () => {
    const tallies = tallyProjects([
      module('unit'),
      module('integration', { ms: 2500 }),
      module('unit', { passed: 2, ms: 500 }),
    ]);
    expect(
      tallies.map((tally) => [tally.project, tally.files, tally.passed, tally.fileMs]),
    ).toEqual([
      ['unit', 2, 5, 1500],
      ['integration', 1, 3, 2500],
    ]);
  });

  it('prints a passing project on one line, without failures or skips', () => {
    const [tally] = tallyProjects([module('unit'), module('unit')]);
    expect(formatTally(tally!, 4)).toBe('unit    2 files     6 passed     2.0 s in files');
  });

  it('names the failed tests and files, and the skipped tests', () => {
    const [tally] = tallyProjects([
      module('e2e', { failed: true, passed: 1, failedTests: 2 }),
      module('e2e', { skipped: 4 }),
    ]);
    expect(formatTally(tally!, 3)).toBe(
      'e2e    2 files     4 passed  2 failed (1 file)  4 skipped     2.0 s in files',
    );
  });
});
