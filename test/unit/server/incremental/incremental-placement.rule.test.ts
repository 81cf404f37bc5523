/**
 * `@defer` and `@stream` in a subscription are refused at validation, and `@stream` on a field that
 * is not a list; elsewhere both are allowed.
 */
import { buildSchema, parse, specifiedRules, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { IncrementalPlacementRule } from '../../../../src/server/incremental/incremental-placement.rule.ts';

const schema = buildSchema(`
  directive @defer(if: Boolean! = true, label: String) on FRAGMENT_SPREAD | INLINE_FRAGMENT
  directive @stream(if: Boolean! = true, label: String, initialCount: Int = 0) on FIELD
  type Job { id: ID! status: String! steps: [String!]! }
  type Query { job: Job jobs: [Job!]! }
  type Mutation { startJob: Job }
  type Subscription { job: Job }
`);
const problems = (source: string) =>
  validate(schema, parse(source), [...specifiedRules, IncrementalPlacementRule]).map(
    (e) => e.message,
  );

describe('IncrementalPlacementRule', () => {
  it('allows @defer and @stream in queries and mutations', () => {
    expect(problems('{ job { id ... @defer { status } } }')).toEqual([]);
    expect(problems('mutation { startJob { id ... @defer { status } } }')).toEqual([]);
    expect(problems('{ jobs @stream(initialCount: 1) { id steps @stream } }')).toEqual([]);
  });

  it('refuses @defer and @stream in a subscription, directly or through a fragment it uses', () => {
    expect(problems('subscription { job { id ... @defer { status } } }')).toEqual([
      '`@defer` is not supported in a subscription: each event is delivered whole. Remove it or pass `if: false`.',
    ]);
    expect(problems('subscription { job { steps @stream } }')).toEqual([
      '`@stream` is not supported in a subscription: each event is delivered whole. Remove it or pass `if: false`.',
    ]);
    expect(
      problems(
        'subscription { job { ...J } } fragment J on Job { id ...S } fragment S on Job { ... @defer { status } }',
      ),
    ).toHaveLength(1);
  });

  it('allows @defer(if: false) in a subscription, and a deferring fragment used only by a query', () => {
    expect(problems('subscription { job { id ... @defer(if: false) { status } } }')).toEqual([]);
    expect(problems('subscription { job { steps @stream(if: false) } }')).toEqual([]);
    expect(
      problems(
        'query Q { job { ...J } } subscription S { job { id } } fragment J on Job { ... @defer { status } }',
      ),
    ).toEqual([]);
  });

  it('refuses @stream on a field that is not a list', () => {
    expect(problems('{ job @stream { id } }')).toEqual([
      '`@stream` is only for list fields: `Query.job` returns `Job`.',
    ]);
    expect(problems('{ jobs { status @stream(initialCount: 1) } }')).toEqual([
      '`@stream` is only for list fields: `Job.status` returns `String!`.',
    ]);
  });
});
