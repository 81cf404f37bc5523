/**
 * What a subscription's `resolve` makes of a shared poller's event (`watch-spec.ts`): its state
 * (an error event throws, so it reaches the client as that event's GraphQL error), and the event's
 * ledger handed to the transport when the subscriber asked for ledgers (docs/budget.md).
 *
 * A poller is shared, so its ledger cannot know whose budget to name: the subscriber's credential's
 * budget is read here, as the event is resolved for it (a snapshot: no upstream call, no token).
 */
import type { BudgetTracker } from '../upstream/budget-tracker.ts';
import type { RequestScope } from '../upstream/request-scope.ts';
import type { LedgerReport } from '../upstream/upstream-ledger.ts';
import type { WatchEvent } from './watch-spec.ts';

/** What an event's resolve reads of the request's context (kit/request-context.ts). */
export interface EventContext extends Pick<RequestScope, 'credential'> {
  /** Present when the subscriber asked for ledgers: the transport reads the event's from it. */
  readonly eventLedger?: { latest: LedgerReport | undefined } | undefined;
  readonly budget: Pick<BudgetTracker, 'snapshot'>;
}

export function eventState<T>(event: WatchEvent<T>, context: EventContext): T | Promise<T> {
  const { eventLedger, credential } = context;
  if (!eventLedger || !event.upstream || !credential) {
    if (eventLedger) eventLedger.latest = event.upstream;
    return stateOf(event);
  }
  const upstream = event.upstream;
  return context.budget.snapshot(credential).then(
    (budget) => {
      eventLedger.latest = { ...upstream, budget };
      return stateOf(event);
    },
    () => {
      // The store could not be read (Redis down): the event still goes, its ledger without budget.
      eventLedger.latest = upstream;
      return stateOf(event);
    },
  );
}

function stateOf<T>(event: WatchEvent<T>): T {
  if (event.kind === 'error') throw event.error;
  return event.state;
}
