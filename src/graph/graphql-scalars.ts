/**
 * The two graphql-scalars the graph uses, `DateTime` and `JSON`, loaded from their own files: the
 * package's entry point loads all of its ~80 scalars (84 files, ~25 ms of every start-up,
 * docs/deploy.md "Start-up") and its `exports` map names no single scalar, so they are read
 * by path from beside the entry point Node resolves. They are the very objects that entry point
 * exports (test/unit/graph/graphql-scalars.test.ts holds them to it, so an upgrade that moves a
 * file fails there, not in production).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Scalars from 'graphql-scalars';

const require = createRequire(import.meta.url);
/** graphql-scalars' CommonJS build (`…/graphql-scalars/cjs/`), where Node resolves the package. */
const BUILD = dirname(require.resolve('graphql-scalars'));

/** graphql-scalars' `DateTimeResolver`. */
export const DateTimeResolver = (
  require(join(BUILD, 'scalars/iso-date/DateTime.js')) as {
    GraphQLDateTime: typeof Scalars.DateTimeResolver;
  }
).GraphQLDateTime;

/** graphql-scalars' `JSONResolver`. */
export const JSONResolver = (
  require(join(BUILD, 'scalars/json/JSON.js')) as { GraphQLJSON: typeof Scalars.JSONResolver }
).GraphQLJSON;
