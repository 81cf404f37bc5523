/**
 * What a subscription's `resolve` makes of a shared poller's event (`shared-pollers.ts`): its state
 * (an error event throws, so it reaches the client as that event's GraphQL error), and the event's
 * ledger handed to the transport when the subscriber asked for ledgers (docs/ledger.md).
 *
 * A poller is shared, so its ledger cannot know whose budget to name: the subscriber's credential's
 * budget is read here, as the event is resolved for it (a snapshot: no upstream call, no token).
 */
import type { GatewayContext } from './request-context.ts';
import type { WatchEvent } from './shared-pollers.ts';

export function eventState<T>(event: WatchEvent<T>, context: GatewayContext): T | Promise<T> {
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
