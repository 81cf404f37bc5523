/**
 * Measurement aid, loaded only when WEFT_TEST_CPU_LOG names a file (vitest.config.ts): appends one
 * JSON line per test file with the CPU its worker spent on it (its thread's for `threads`, its
 * process's for `forks`; never the child processes it starts) from before its imports to its end.
 */
import { appendFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { afterAll, expect } from 'vitest';

const cpuMs = () => {
  const usage = isMainThread ? process.cpuUsage() : process.threadCpuUsage();
  return (usage.user + usage.system) / 1000;
};
const startCpu = cpuMs();
const startWall = performance.now();

afterAll(() => {
  appendFileSync(
    process.env.WEFT_TEST_CPU_LOG!,
    `${JSON.stringify({
      file: expect.getState().testPath,
      cluster: process.env.WEFT_TEST_REDIS === 'cluster',
      cpuMs: Math.round(cpuMs() - startCpu),
      wallMs: Math.round(performance.now() - startWall),
    })}\n`,
  );
});
