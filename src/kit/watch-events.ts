/**
 * What a subscription's `resolve` makes of a shared poller's event (`shared-pollers.ts`): its state
 * (an error event throws, so it reaches the client as that event's GraphQL error), and the event's
 * ledger handed to the transport when the subscriber asked for ledgers (docs/ledger.md).
 */
import type { GatewayContext } from './request-context.ts';
import type { WatchEvent } from './shared-pollers.ts';

export function eventState<T>(event: WatchEvent<T>, context: GatewayContext): T {
  if (context.eventLedger) context.eventLedger.latest = event.upstream;
  if (event.kind === 'error') throw event.error;
  return event.state;
}
