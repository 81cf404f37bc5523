/**
 * One line per vitest project at the end of a run: its files, its tests by state, and the time its
 * files took (import and tests, summed over files: what the project costs, not the wall time, since
 * files run side by side). With the built-in `agent` reporter before it (vitest.config.ts), which
 * prints only what failed, in full, a passing run ends in a few lines.
 */
import type { Reporter, TestModule } from 'vitest/node';

export interface ProjectTally {
  project: string;
  files: number;
  failedFiles: number;
  passed: number;
  failed: number;
  skipped: number;
  /** Import and tests of its files, summed, in ms. */
  fileMs: number;
}

export interface ModuleFacts {
  project: string;
  failed: boolean;
  passed: number;
  failedTests: number;
  skipped: number;
  ms: number;
}

/** The projects' tallies, in the order their first file appears. */
export function tallyProjects(modules: ReadonlyArray<ModuleFacts>): ProjectTally[] {
  const tallies = new Map<string, ProjectTally>();
  for (const module of modules) {
    const tally = tallies.get(module.project) ?? {
      project: module.project,
      files: 0,
      failedFiles: 0,
      passed: 0,
      failed: 0,
      skipped: 0,
      fileMs: 0,
    };
    tally.files += 1;
    if (module.failed) tally.failedFiles += 1;
    tally.passed += module.passed;
    tally.failed += module.failedTests;
    tally.skipped += module.skipped;
    tally.fileMs += module.ms;
    tallies.set(module.project, tally);
  }
  return [...tallies.values()];
}

/** `integration  98 files  612 passed  1 failed (1 file)  141.2 s in files` */
export function formatTally(tally: ProjectTally, width: number): string {
  const parts = [
    tally.project.padEnd(width),
    `${String(tally.files).padStart(3)} files`,
    `${String(tally.passed).padStart(4)} passed`,
  ];
  if (tally.failed > 0 || tally.failedFiles > 0)
    parts.push(
      `${tally.failed} failed (${tally.failedFiles} ${tally.failedFiles === 1 ? 'file' : 'files'})`,
    );
  if (tally.skipped > 0) parts.push(`${tally.skipped} skipped`);
  parts.push(`${(tally.fileMs / 1000).toFixed(1).padStart(6)} s in files`);
  return parts.join('  ');
}

export default class ProjectSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const tallies = tallyProjects(
      testModules.map((module) => {
        const diagnostic = module.diagnostic();
        return {
          project: module.project.name || '(root)',
          failed: module.state() === 'failed',
          passed: [...module.children.allTests('passed')].length,
          failedTests: [...module.children.allTests('failed')].length,
          skipped: [...module.children.allTests('skipped')].length,
          ms: diagnostic.collectDuration + diagnostic.duration,
        };
      }),
    );
    if (tallies.length === 0) return;
    const width = Math.max(...tallies.map((tally) => tally.project.length));
    process.stdout.write(`\n${tallies.map((tally) => formatTally(tally, width)).join('\n')}\n`);
  }
}
