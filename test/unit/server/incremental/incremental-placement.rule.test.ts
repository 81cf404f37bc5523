/** `@defer` in a subscription is refused at validation; elsewhere it is allowed. */
import { buildSchema, parse, specifiedRules, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { DeferPlacementRule } from '../../../../src/server/incremental/defer-placement.rule.ts';

const schema = buildSchema(`
  directive @defer(if: Boolean! = true, label: String) on FRAGMENT_SPREAD | INLINE_FRAGMENT
  type Job { id: ID! status: String! }
  type Query { job: Job }
  type Mutation { startJob: Job }
  type Subscription { job: Job }
`);
const problems = (source: string) =>
  validate(schema, parse(source), [...specifiedRules, DeferPlacementRule]).map((e) => e.message);

describe('DeferPlacementRule', () => {
  it('allows @defer in queries and mutations', () => {
    expect(problems('{ job { id ... @defer { status } } }')).toEqual([]);
    expect(problems('mutation { startJob { id ... @defer { status } } }')).toEqual([]);
  });

  it('refuses @defer in a subscription, directly or through a fragment it uses', () => {
    expect(problems('subscription { job { id ... @defer { status } } }')).toHaveLength(1);
    expect(
      problems(
        'subscription { job { ...J } } fragment J on Job { id ...S } fragment S on Job { ... @defer { status } }',
      ),
    ).toHaveLength(1);
  });

  it('allows @defer(if: false) in a subscription, and a deferring fragment used only by a query', () => {
    expect(problems('subscription { job { id ... @defer(if: false) { status } } }')).toEqual([]);
    expect(
      problems(
        'query Q { job { ...J } } subscription S { job { id } } fragment J on Job { ... @defer { status } }',
      ),
    ).toEqual([]);
  });
});
