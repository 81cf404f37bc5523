/** The project runs on Node 24 LTS: the tests see the binary that `npm ci` installed. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};

describe('runtime', () => {
  it('is Node 24, the exact version the project pins', () => {
    expect(process.versions.node).toMatch(/^24\./);
    expect(process.versions.node).toBe(pkg.devDependencies.node);
    expect(pkg.engines.node).toMatch(/^>=24\./);
  });
});

describe('the image runs what `npm start` runs', () => {
  const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
  const start = (
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      scripts: { start: string };
    }
  ).scripts.start;

  it('with the same Node flags', () => {
    // The last stage's CMD: the product image (an earlier stage runs the simulator alone).
    const cmd = [...dockerfile.matchAll(/^CMD (\[.*\])$/gm)].at(-1)?.[1];
    const imageArgs = JSON.parse(cmd ?? '[]') as string[];
    // `exec`: the shell npm runs the script in becomes node, so npm's signals reach node itself
    // (test/e2e/server/npm-start-signals.test.ts); the image runs node directly.
    const startArgs = start.split(' ').filter((word) => !/^[A-Z_]+=/.test(word) && word !== 'exec');
    expect(imageArgs).toEqual(startArgs);
  });

  it('with the same environment for the allocator and the compile cache', () => {
    const startEnv = start.split(' ').filter((word) => /^[A-Z_]+=/.test(word));
    expect(startEnv.length).toBeGreaterThan(0);
    for (const assignment of startEnv) expect(dockerfile).toContain(assignment);
  });
});
