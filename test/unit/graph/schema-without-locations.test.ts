/**
 * The schema the gateway serves keeps no source locations: the local SDL (kit/local-sdl.ts) and the
 * subgraph snapshots (stitching/remote-snapshots.ts) are parsed with `noLocation`, and the stitched
 * schema's AST nodes are theirs. With locations, every node held a `Location` and the tokens of
 * its start and end for the life of the process (~1.6 MiB of a ~31 MiB idle heap;
 * docs/deploy.md "Memory"), though nothing reports against the SDL's files.
 */
import { visit, type ASTNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildGatewaySchema } from '../../../src/graph/build-schema.ts';

describe('the served schema', () => {
  it('carries no source location on any AST node of its types', async () => {
    const schema = await buildGatewaySchema();
    let nodes = 0;
    const located: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      const roots: (ASTNode | null | undefined)[] = [type.astNode, ...type.extensionASTNodes];
      for (const root of roots) {
        if (!root) continue;
        visit(root, {
          enter(node) {
            nodes += 1;
            if (node.loc) located.push(`${type.name}: ${node.kind}`);
          },
        });
      }
    }
    // Guards the count: a schema whose types lost their AST nodes would pass vacuously.
    expect(nodes).toBeGreaterThan(5_000);
    expect(located.slice(0, 5)).toEqual([]);
  });
});
