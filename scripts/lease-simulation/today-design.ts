/**
 * Today's design, as `redis-bucket-store.ts` and `fallback-bucket-store.ts` run it: every call
 * takes its token in one script run (a Redis round trip before the call), and its answer corrects
 * the shared bucket in another. While Redis is unreachable each replica takes from its local
 * bucket: `REDIS_DOWN_BUDGET_SHARE` of the capacity, lowered to that share of what the shared
 * bucket said was left after the replica's own last take (`followShared`) and of every answer's
 * `RateLimit-Remaining`; at the switch each view is stale, so one call (the probe) goes before the
 * others. Left out: the send window under a fresh view (it does not bind at these rates) and the
 * route classes.
 */
import type { Design, World } from './world.ts';

interface Local {
  tokens: number;
  readonly floor: number;
  fresh: boolean;
  probing: boolean;
  readonly waiting: number[];
}

export function createTodayDesign(world: World, share: number): Design {
  const { scenario, clock } = world;
  const tokens = new Float64Array(scenario.credentials).fill(scenario.windowCalls);
  const localCap = Math.max(1, Math.floor(scenario.windowCalls * share));
  const localFloor = Math.floor(localCap * scenario.writeReserveShare);
  const locals = new Map<number, Local>();
  const onLocal = new Uint8Array(scenario.replicas);
  const halfRtt = scenario.redisRttMs / 2;

  const localOf = (replica: number, credential: number): Local => {
    const key = replica * scenario.credentials + credential;
    let local = locals.get(key);
    if (!local) {
      local = { tokens: localCap, floor: localFloor, fresh: true, probing: false, waiting: [] };
      locals.set(key, local);
    }
    return local;
  };

  const answered =
    (replica: number, credential: number) => (remaining: number, limited: boolean) => {
      // The local share always learns (a share of what is left); the shared bucket when it can.
      const local = localOf(replica, credential);
      local.tokens = Math.min(local.tokens, limited ? 0 : Math.floor(remaining * share));
      local.fresh = true;
      local.probing = false;
      const waiting = local.waiting.splice(0);
      if (world.redisUp(clock.now)) {
        world.scriptRun(credential);
        clock.at(clock.now + halfRtt, () => {
          tokens[credential] = Math.min(tokens[credential] ?? 0, limited ? 0 : remaining);
        });
      }
      for (const arrivedAt of waiting) take(replica, credential, arrivedAt);
    };

  const takeLocally = (replica: number, credential: number, arrivedAt: number) => {
    if (!onLocal[replica]) {
      onLocal[replica] = 1;
      // forgetFreshness: every view of this replica is stale; the next call of each is a probe.
      for (const [key, local] of locals) {
        if (Math.floor(key / scenario.credentials) === replica) local.fresh = false;
      }
    }
    const local = localOf(replica, credential);
    if (local.tokens - local.floor < 1) return world.refuse(replica, credential, false);
    if (!local.fresh && local.probing) return void local.waiting.push(arrivedAt);
    if (!local.fresh) local.probing = true;
    local.tokens -= 1;
    world.send(replica, credential, arrivedAt, false, answered(replica, credential));
  };

  const take = (replica: number, credential: number, arrivedAt: number) => {
    if (!world.redisUp(clock.now)) return takeLocally(replica, credential, arrivedAt);
    onLocal[replica] = 0;
    world.scriptRun(credential);
    clock.at(clock.now + halfRtt, () => {
      const left = tokens[credential] ?? 0;
      const allowed = left - world.floor >= 1;
      if (allowed) tokens[credential] = left - 1;
      const after = tokens[credential] ?? 0;
      clock.at(clock.now + halfRtt, () => {
        const local = localOf(replica, credential);
        local.tokens = Math.min(local.tokens, Math.max(0, Math.floor(after * share)));
        if (!allowed) return world.refuse(replica, credential, false);
        world.send(replica, credential, arrivedAt, true, answered(replica, credential));
      });
    });
  };

  return {
    name: `per call, before leases (REDIS_DOWN_BUDGET_SHARE ${share})`,
    call: (replica, credential) => take(replica, credential, clock.now),
  };
}
