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
