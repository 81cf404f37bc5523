/**
 * How the upstream stack is put together from a list of layers written outermost first
 * (`create-upstream-stack.ts` holds the list: the one statement of their order). Above the layer that
 * makes one call out of attempts (deadline and retries), a layer wraps calls; below it, attempts —
 * so what is below is paid for on every retry, and what is above (a cache hit) costs no attempt.
 */
import type { Transport } from './transport.ts';
import type { UpstreamClient } from './upstream-call.ts';
import type { RoutedCall } from './upstream-routes.ts';

type Calls = UpstreamClient<RoutedCall>;
type Attempts = Transport<RoutedCall>;

export type UpstreamLayer =
  | { readonly name: string; readonly wraps: 'calls'; readonly wrap: (inner: Calls) => Calls }
  | {
      readonly name: string;
      readonly wraps: 'attempts';
      readonly wrap: (inner: Attempts) => Attempts;
    }
  | {
      readonly name: string;
      readonly wraps: 'attempts-into-calls';
      readonly wrap: (inner: Attempts) => Calls;
    };

const misplaced = (layer: UpstreamLayer, where: 'before' | 'after') =>
  new Error(
    `upstream layer "${layer.name}" wraps ${layer.wraps === 'calls' ? 'calls' : 'attempts'}: it must come ${where} the one that makes calls out of attempts`,
  );

/**
 * Wraps `socket` in `layers`, the last one first, so that a call meets them in the order listed.
 * A list that is not calls, then one attempts-into-calls layer, then attempts is a programming error.
 */
export function assembleLayers(layers: readonly UpstreamLayer[], socket: Attempts): Calls {
  let attempts = socket;
  let calls: Calls | undefined;
  for (const layer of layers.toReversed()) {
    if (layer.wraps === 'calls') {
      if (!calls) throw misplaced(layer, 'before');
      calls = layer.wrap(calls);
    } else if (calls) {
      throw misplaced(layer, 'after');
    } else if (layer.wraps === 'attempts') {
      attempts = layer.wrap(attempts);
    } else {
      calls = layer.wrap(attempts);
    }
  }
  if (!calls) throw new Error('the upstream layers need one that makes calls out of attempts');
  return calls;
}
