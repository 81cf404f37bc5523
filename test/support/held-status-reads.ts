/**
 * Apps' runtime status reads held at the simulator until the test lets each go: a streamed or
 * deferred apps list then arrives item by item, in the order the test releases them. `held` maps
 * an app id to the read's release (an app not in it is answered at once); `onArrival` is the
 * simulator's hook.
 */
import { deferred, type Deferred } from './clock.ts';

const STATUS_READ = /\/apps\/([^/]+)\/status$/;

export function heldStatusReads() {
  const held = new Map<string, Deferred<void>>();
  return {
    held,
    hold: (appId: string) => held.set(appId, deferred()),
    onArrival: async ({ url }: { readonly url: string }): Promise<void> => {
      const appId = STATUS_READ.exec(url.split('?')[0]!)?.[1];
      if (appId) await held.get(appId)?.promise;
    },
  };
}
