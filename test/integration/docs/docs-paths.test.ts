/**
 * Every repository path README.md and docs/*.md mention exists (doc-paths.ts says which mentions
 * count), so a moved or deleted file cannot leave the docs pointing at nothing; and none points
 * outside the repository, where a clone has nothing.
 */
import { describe, expect, it } from 'vitest';
import { markdownFiles } from './doc-examples.ts';
import { missingPaths, outsideReferences } from './doc-paths.ts';

describe('paths in the documentation', () => {
  for (const path of markdownFiles()) {
    it(`${path} names only paths that exist`, () => {
      expect(missingPaths(path)).toEqual([]);
    });
    it(`${path} points at nothing a clone lacks (../shared, the original design)`, () => {
      expect(outsideReferences(path)).toEqual([]);
    });
  }
});
