/**
 * What a request leaves behind is freed by young-generation collections, not only by full ones.
 *
 * An object literal with getters (`{ get x() { … } }`) made once per request gets a hidden class
 * of its own, and hidden classes live in the old generation: a young collection then keeps every
 * getter's closure, and all that it reaches, until the next full collection. A transactions page
 * reached from a connection's `pageInfo`, or a request's facts, was promoted on every request
 * (docs/performance.md "Memory and start-up"). So is a value in a module-level `WeakMap` that points
 * back at its key (an ephemeron): a stitched request's scopes by store were kept that way.
 *
 * Each case runs in a child process with `--expose-gc`: it collects fully, makes 200 objects each
 * reaching 40 KB of its own, drops them, runs two young collections, and prints how much the old
 * generation grew. 200 × 40 KB = 8 MB grew when the objects were kept; the bound is 1 MB.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

/** Old-generation growth (bytes) after `make(i)` ran 200 times and two young collections. */
function oldGrowthAfter(imports: string, make: string): number {
  const script = `
    ${imports}
    import { getHeapSpaceStatistics } from 'node:v8';
    const oldUsed = () => getHeapSpaceStatistics()
      .filter((space) => space.space_name === 'old_space' || space.space_name === 'large_object_space')
      .reduce((sum, space) => sum + space.space_used_size, 0);
    const own = (i) => Array.from({ length: 10 }, () => new Array(500).fill(i));
    const make = ${make};
    for (let i = 0; i < 50; i += 1) make(i);
    gc(); gc();
    const before = oldUsed();
    for (let i = 0; i < 200; i += 1) make(i);
    gc({ type: 'minor' }); gc({ type: 'minor' });
    console.log(oldUsed() - before);
  `;
  const child = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    cwd: SRC,
    encoding: 'utf8',
  });
  // A child that failed printed no figure: it must not read as no growth.
  expect(child.status, child.stderr).toBe(0);
  expect(child.stdout.trim()).toMatch(/^-?\d+$/);
  return Number(child.stdout.trim());
}

const MIB = 1024 * 1024;

describe('young-generation collections free what a request made', () => {
  it('(the measure sees what stays reachable: 200 × 40 KB kept are counted)', () => {
    const growth = oldGrowthAfter(
      'const kept = [];',
      `(i) => {
        kept.push(own(i));
        return kept.length;
      }`,
    );
    expect(growth).toBeGreaterThan(6 * MIB);
  });

  it("a connection's page, reached from its pageInfo and edges", () => {
    const growth = oldGrowthAfter(
      `import { offsetConnection } from ${JSON.stringify(`${SRC}kit/offset-cursor.ts`)};`,
      `(i) => {
        const connection = offsetConnection(own(i), 0, true, null);
        return connection.pageInfo.startCursor;
      }`,
    );
    expect(growth).toBeLessThan(MIB);
  });

  it("a request's facts, and what its list-arrival handler reaches", () => {
    const growth = oldGrowthAfter(
      `import { createRequestFacts } from ${JSON.stringify(`${SRC}upstream/request-facts.ts`)};`,
      `(i) => {
        const facts = createRequestFacts();
        const page = own(i);
        facts.onListArrival(() => page.length);
        facts.recordEstimate(page.length);
        return facts.estimate;
      }`,
    );
    expect(growth).toBeLessThan(MIB);
  });

  it("a stitched request's scopes by store, which point back at the request", () => {
    const growth = oldGrowthAfter(
      `import { createGatewayContext } from ${JSON.stringify(`${SRC}kit/request-context.ts`)};
       import { subgraphScope } from ${JSON.stringify(`${SRC}stitching/store-routing.ts`)};`,
      `(i) => {
        const request = createGatewayContext({}, { page: own(i) });
        return subgraphScope(request, 'store-' + (i % 3)).storeId;
      }`,
    );
    expect(growth).toBeLessThan(MIB);
  });
});
