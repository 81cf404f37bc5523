/** What one operation may ask for: its shape, its cost, and its bound in upstream calls. */
import { configGroup } from '../config-group.ts';
import { int } from '../values.ts';

export const LIMITS = configGroup(
  'Limits and demand control',
  'Checked before an operation runs; past one, the operation is refused and spends nothing ([security](security.md), [budget](budget.md)).',
  {
    LIMIT_MAX_DEPTH: int(1, 1_000)
      .default(15)
      .describe('Deepest field nesting (the standard introspection query is 15 deep).'),
    LIMIT_MAX_ALIASES: int(0, 10_000)
      .default(30)
      .describe('Aliased fields per operation, counted through fragments.'),
    LIMIT_MAX_ROOT_FIELDS: int(1, 10_000)
      .default(20)
      .describe('Root fields (besides `__typename`) per operation, counted through fragments.'),
    LIMIT_MAX_DIRECTIVES: int(0, 10_000)
      .default(20)
      .describe('Directive uses per operation, counted through fragments.'),
    LIMIT_MAX_TOKENS: int(100, 1_000_000).default(2_000).describe('Lexical tokens per document.'),
    LIMIT_MAX_DOCUMENT_BYTES: int(512, 10 * 1024 * 1024)
      .default(32 * 1024)
      .describe('UTF-8 bytes of one document.'),
    LIMIT_MAX_COST: int(1, 10_000_000)
      .default(1_000)
      .describe('Estimated cost: objects resolved, lists times their size.'),
    LIMIT_MAX_UPSTREAM_CALLS: int(1, 100_000)
      .default(150)
      .describe('The most upstream calls an operation may be able to make (its bound).'),
    LIMIT_DEFAULT_LIST_SIZE: int(1, 10_000)
      .default(10)
      .describe(
        'Size assumed for a list without a `first`/`last`/`limit`/`pageSize`/`lines` argument.',
      ),
  },
);
