/**
 * How production starts Weft, read from the Dockerfile itself: the runtime stage's `ENV` and its
 * exec-form `CMD`. The e2e tests (`gateway-process.ts`) and the CI smoke (`.ci/production-smoke.mjs`)
 * both start their processes from this, so what they test is the image's command — its heap flags,
 * `--expose-gc`, `MALLOC_ARENA_MAX`, `NODE_ENV=production` — and a change to the Dockerfile reaches
 * every one of them.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ProductionCommand {
  /** The arguments after `node` (flags, then the entry file), relative to {@link PROJECT_ROOT}. */
  readonly args: readonly string[];
  /** The runtime stage's `ENV`. */
  readonly env: Readonly<Record<string, string>>;
  /** The runtime stage's exec-form `RUN` steps, each as its arguments (the build's own commands). */
  readonly buildSteps: readonly (readonly string[])[];
}

/** Parses the last stage of a Dockerfile: its `ENV A=1 B=2` lines, exec-form `RUN`s and `CMD`. */
export function parseRuntimeStage(dockerfile: string): ProductionCommand {
  const text = dockerfile.replace(/\\\n\s*/g, ' ');
  const runtime = text.slice(text.lastIndexOf('\nFROM '));
  const env: Record<string, string> = {};
  for (const [, line = ''] of runtime.matchAll(/^ENV (.+)$/gm)) {
    for (const [, key = '', value = ''] of line.matchAll(/(\w+)=(\S+)/g)) env[key] = value;
  }
  const cmd = /^CMD (\[.+\])$/m.exec(runtime)?.[1];
  if (!cmd) throw new Error('the Dockerfile runtime stage has no exec-form CMD');
  const [command, ...args] = JSON.parse(cmd) as string[];
  if (command !== 'node') throw new Error(`the Dockerfile's CMD runs ${command}, not node`);
  const buildSteps = [...runtime.matchAll(/^RUN (\[.+\])$/gm)].map(
    ([, step = '[]']) => JSON.parse(step) as string[],
  );
  return { args, env, buildSteps };
}

let cached: ProductionCommand | undefined;

/** The Dockerfile's command and environment (read once per process). */
export function productionCommand(): ProductionCommand {
  cached ??= parseRuntimeStage(readFileSync(`${PROJECT_ROOT}Dockerfile`, 'utf8'));
  return cached;
}
