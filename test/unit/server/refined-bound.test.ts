/**
 * The refined bound of an operation over unpaged lists (docs/budget.md § Unpaged lists) is walked
 * when someone reads it, not at every list's arrival: an arrival is on the way to the calls below
 * the list (a cold screen's second round), and only an answer that lists its ledger, or an operation
 * let in on what it spends before its lists arrive, reads it.
 */
import { HeaderMap } from '@apollo/server';
import { parse, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { demandControlPlugin } from '../../../src/server/demand-control/demand-control.plugin.ts';
import type { UpstreamCallPolicy } from '../../../src/server/demand-control/upstream-call-policy.ts';
import type { ListLengths } from '../../../src/server/demand-control/upstream-call-bound.ts';
import { createRequestFacts } from '../../../src/upstream/request-facts.ts';

const document = parse('{ apps { appId } }');
const operation = document.definitions[0] as OperationDefinitionNode;

/** A policy whose bound assumes 20 apps (41 calls), and that counts its walks with lengths. */
function countingPolicy() {
  const walks: number[] = [];
  const policy = {
    boundOf: () => ({ calls: 41, byField: [], unpaged: ['Query.apps'] }),
    boundWith: (...args: unknown[]) => {
      const apps = (args[4] as ListLengths).get('Query.apps') ?? 20;
      walks.push(apps);
      return { calls: 1 + 2 * apps, byField: [], unpaged: ['Query.apps'] };
    },
  } as unknown as UpstreamCallPolicy;
  return { policy, walks };
}

async function resolvedOperation(policy: UpstreamCallPolicy) {
  const facts = createRequestFacts(undefined, false);
  const hooks = (await demandControlPlugin(policy, () => true).requestDidStart!({} as never)) as {
    didResolveOperation(context: unknown): Promise<void>;
  };
  await hooks.didResolveOperation({
    schema: {},
    document,
    operation,
    request: { variables: {}, http: { headers: new HeaderMap() } },
    contextValue: { credential: undefined, facts },
  });
  return facts;
}

describe('the refined bound of an operation over an unpaged list', () => {
  it('is not walked when the list arrives, only when read, with the lengths arrived', async () => {
    const { policy, walks } = countingPolicy();
    const facts = await resolvedOperation(policy);
    expect(facts.estimate).toBe(41);
    expect(facts.refinedEstimate).toBeUndefined();
    facts.listArrived('Query.apps', 3);
    facts.listArrived('Query.apps', 2);
    expect(walks).toEqual([]);
    expect(facts.refinedEstimate).toBe(7);
    expect(walks).toEqual([3]);
  });
});
