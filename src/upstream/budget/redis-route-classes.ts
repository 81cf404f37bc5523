/**
 * The route classes in Redis, for every replica: the ones the whole gateway shares (the upstream's
 * per-IP limits: hosting reads, writes, uploads and deploys) and a credential's own (the catalog's
 * burst limit). One sliding-window log per class, and ONE Lua script for every operation on it: a
 * lease of places for a replica's next calls (`leased-route-classes.ts`), their return, and the calls
 * of never-answered tokens, which take their place one by one.
 *
 * Keys of a shared class, tagged by the class (on a cluster, a slot of its own):
 * - `<prefix>:class:{<class>}`: sorted set of the calls of the last window and the leased places;
 * - `<prefix>:class-block:{<class>}`: set while a route-class 429 lasts;
 * - `<prefix>:class:{<class>}:credential:<credentialId>`: each credential's fair share;
 * - `<prefix>:class-unproven:{<class>}`: the class's calls in flight for tokens never answered (a
 *   full class holding some asks again soon: their 401s give the room back).
 * A credential's own class has the same keys named `<class>:{<credentialId>}`, in its slot.
 */
import type { RedisClient } from '../../redis/redis-connection.ts';
import { luaNow, redisScript } from '../../redis/redis-script.ts';
import type { ReplicaAcknowledgement } from '../../redis/replica-acknowledgement.ts';
import type { RouteClass } from '../upstream-routes.ts';
import { CALL_LEASE_MS, WINDOW_POLL_MS } from './send-window.ts';
import { classRoomOf, type CallPriority } from './call-priority.ts';
import { fairShareOf } from './bucket-state.ts';
import { type BudgetCorrection } from './bucket-store.ts';
import { redisKeys, routeClassTag } from '../../redis/redis-keys.ts';

/**
 * KEYS: class log, class block, fair-share log, class unproven calls. ARGV: op, limit, window ms,
 * ticket, lease ms, poll ms, fair limit (both limits: the room of the call's priority,
 * `classRoomOf`), neverAnswered ('1': the credential's token has never been answered),
 * unauthenticated ('1'), block ms (-1: none), time in ms (empty: Redis's `TIME`); for `lease`, the
 * places asked for and their names' base, then (`lease`, `return`) the places given back. `take`
 * replies {fits, waitMs}: the wait until a call fits in the log with room for the call's limit (a
 * full log waits for the call that leaves `limit - 1` after it); `lease` {granted, waitMs, the
 * class's count, the credential's count, the places other leases hold}, counts with the grant.
 */
export const ROUTE_CLASS_LUA = `
${luaNow(11)}
local op = ARGV[1]
local classLimit = tonumber(ARGV[2])
local classWindowMs = tonumber(ARGV[3])
local ticket = ARGV[4]
local leaseMs = tonumber(ARGV[5])
local pollMs = tonumber(ARGV[6])
local fairLimit = tonumber(ARGV[7])

local function classRoom(key, limit)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - classWindowMs)
  local count = redis.call('ZCARD', key)
  if count >= limit then
    redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
    if redis.call('ZCARD', KEYS[4]) > 0 then return pollMs end
    local leaving = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
    return math.max(1, tonumber(leaving[2]) + classWindowMs - now)
  end
  return 0
end

if op == 'take' then
  local blocked = tonumber(redis.call('PTTL', KEYS[2]))
  if blocked > 0 then return { 0, blocked } end
  local wait = classRoom(KEYS[1], classLimit)
  if fairLimit > 0 then wait = math.max(wait, classRoom(KEYS[3], fairLimit)) end
  if wait > 0 then return { 0, math.ceil(wait) } end
  redis.call('ZADD', KEYS[1], now, ticket)
  redis.call('PEXPIRE', KEYS[1], classWindowMs)
  if fairLimit > 0 then
    redis.call('ZADD', KEYS[3], now, ticket)
    redis.call('PEXPIRE', KEYS[3], classWindowMs)
  end
  if ARGV[8] == '1' then
    redis.call('ZADD', KEYS[4], now + leaseMs, ticket)
    redis.call('PEXPIRE', KEYS[4], leaseMs)
  end
elseif op == 'correct' then
  redis.call('ZREM', KEYS[4], ticket)
  if ARGV[9] == '1' then
    redis.call('ZREM', KEYS[1], ticket)
    if fairLimit > 0 then redis.call('ZREM', KEYS[3], ticket) end
  end
  local blockMs = tonumber(ARGV[10])
  if blockMs >= 0 then redis.call('SET', KEYS[2], '1', 'PX', math.max(1, blockMs)) end
elseif op == 'release' then
  redis.call('ZREM', KEYS[4], ticket)
elseif op == 'lease' then
  -- Places for a replica's next calls of this credential, each stamped at the lease's end (the
  -- latest its call may go out: the log never forgets a call before the upstream does). Places of
  -- the replica's last lease it did not use go back first.
  for i = 15, #ARGV do
    redis.call('ZREM', KEYS[1], ARGV[i])
    if fairLimit > 0 then redis.call('ZREM', KEYS[3], ARGV[i]) end
  end
  local blocked = tonumber(redis.call('PTTL', KEYS[2]))
  if blocked > 0 then return { 0, blocked, 0, 0 } end
  local ask = tonumber(ARGV[12])
  local wait = classRoom(KEYS[1], classLimit)
  if fairLimit > 0 then wait = math.max(wait, classRoom(KEYS[3], fairLimit)) end
  if wait > 0 or ask < 1 then
    -- Places stamped ahead of now are leases': the ones other replicas hold (named after them).
    local leased = 0
    local mine = ARGV[14] .. '.'
    for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')) do
      if string.sub(member, 1, #mine) ~= mine then leased = leased + 1 end
    end
    return { 0, math.ceil(wait), redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[3]), leased }
  end
  local count = redis.call('ZCARD', KEYS[1])
  local grant = math.min(ask, classLimit - count)
  local fairCount = 0
  if fairLimit > 0 then
    fairCount = redis.call('ZCARD', KEYS[3])
    grant = math.min(grant, fairLimit - fairCount)
  end
  local stamp = now + leaseMs
  for i = 1, grant do
    local member = ARGV[13] .. '.' .. i
    redis.call('ZADD', KEYS[1], stamp, member)
    if fairLimit > 0 then redis.call('ZADD', KEYS[3], stamp, member) end
  end
  redis.call('PEXPIRE', KEYS[1], classWindowMs + leaseMs)
  if fairLimit > 0 then redis.call('PEXPIRE', KEYS[3], classWindowMs + leaseMs) end
  return { grant, 0, count + grant, fairCount + grant, 0 }
elseif op == 'return' then
  for i = 15, #ARGV do
    redis.call('ZREM', KEYS[1], ARGV[i])
    if fairLimit > 0 then redis.call('ZREM', KEYS[3], ARGV[i]) end
  end
end
return { 1, 0 }
`;

const ROUTE_CLASS_SCRIPT = redisScript(ROUTE_CLASS_LUA);

export interface RedisRouteClassesOptions {
  readonly client: RedisClient;
  readonly prefix: string;
  /** A test's clock; default Redis's `TIME`. */
  readonly now?: () => number;
  /** On a Redis Cluster: places are used once a replica has them (`replica-acknowledgement.ts`). */
  readonly replicated?: ReplicaAcknowledgement;
}

/** What a lease of places in a class gave (names `<replica>.<run>.<n>`). */
export interface ClassLease {
  /** The places' names (each one call). */
  readonly places: readonly string[];
  /** None granted: the wait until one would be (0: none was asked). */
  readonly waitMs: number;
  /** The class's log and the credential's share of it, with the grant. */
  readonly classCount: number;
  readonly fairCount: number;
  /** None granted: the places other replicas' leases hold (unused, or their calls in flight). */
  readonly leasedElsewhere: number;
}

/** A call's place in a class, one by one (the calls of a never-answered token). */
export interface ClassPlaces {
  /** Records the call in its class when it fits; else the wait until it would (ms, > 0). */
  take(
    routeClass: RouteClass,
    credentialId: string,
    ticket: string,
    flags: { priority: CallPriority; neverAnswered: boolean },
  ): Promise<number>;
  /** The call's answer: a refused token gives its place back, a class 429 blocks the class. */
  correct(
    routeClass: RouteClass,
    credentialId: string,
    ticket: string,
    correction: BudgetCorrection,
  ): Promise<void>;
  /** The call ended without an answer: it is no longer in flight for a never-answered token. */
  release(routeClass: RouteClass, credentialId: string, ticket: string): Promise<void>;
}

export interface RedisRouteClasses extends ClassPlaces {
  /**
   * Places for `ask` calls of this credential in the class, at most `leaseMs` from now, for a call
   * of `priority`; the places of `giveBack` first leave the log.
   */
  lease(
    routeClass: RouteClass,
    credentialId: string,
    request: {
      ask: number;
      priority: CallPriority;
      leaseMs: number;
      /** The replica's name: its places are named `<replica>.<run>.<n>`. */
      replica: string;
      run: string;
      giveBack: readonly string[];
    },
  ): Promise<ClassLease>;
  /** Unused places leave the log. */
  giveBack(routeClass: RouteClass, credentialId: string, places: readonly string[]): Promise<void>;
}

export function createRedisRouteClasses(options: RedisRouteClassesOptions): RedisRouteClasses {
  const { client, prefix } = options;
  /** A shared class's keys are tagged by the class; a per-credential one's by the credential. */
  const keysOf = (credentialId: string, routeClass: RouteClass): string[] => {
    const tag = routeClassTag(routeClass.name, credentialId, routeClass.perCredential);
    return [
      redisKeys.routeClass(prefix, tag),
      redisKeys.routeClassBlock(prefix, tag),
      routeClass.perCredential
        ? // No fair share within one credential's class: never touched, in the same slot.
          redisKeys.routeClassFair(prefix, tag)
        : redisKeys.routeClassCredential(prefix, tag, credentialId),
      redisKeys.routeClassUnproven(prefix, tag),
    ];
  };
  const run = async (
    op: 'take' | 'correct' | 'release' | 'lease' | 'return',
    routeClass: RouteClass,
    credentialId: string,
    ticket: string,
    flags: {
      priority?: CallPriority;
      neverAnswered?: boolean;
      correction?: BudgetCorrection;
      leaseMs?: number;
      ask?: number;
      replica?: string;
      places?: readonly string[];
    },
  ): Promise<number[]> => {
    const correction = flags.correction ?? {};
    const priority = flags.priority ?? 'write';
    const fair = fairShareOf(routeClass, routeClass.limit);
    const args = [
      op,
      String(classRoomOf(routeClass.limit, priority)),
      String(routeClass.windowMs),
      ticket,
      String(flags.leaseMs ?? CALL_LEASE_MS),
      String(WINDOW_POLL_MS),
      String(fair > 0 ? classRoomOf(fair, priority) : 0),
      flags.neverAnswered ? '1' : '0',
      correction.unauthenticated ? '1' : '0',
      correction.blockRouteClass && correction.blockMs !== undefined
        ? String(correction.blockMs)
        : '-1',
      options.now ? String(Math.floor(options.now())) : '',
      String(flags.ask ?? 0),
      ticket,
      flags.replica ?? '',
      ...(flags.places ?? []),
    ];
    const keys = keysOf(credentialId, routeClass);
    return (await ROUTE_CLASS_SCRIPT.run(client, keys, args)) as number[];
  };
  return {
    async lease(routeClass, credentialId, request) {
      const [granted = 0, waitMs = 0, classCount = 0, fairCount = 0, leasedElsewhere = 0] = (
        await run('lease', routeClass, credentialId, `${request.replica}.${request.run}`, {
          priority: request.priority,
          leaseMs: request.leaseMs,
          ask: request.ask,
          replica: request.replica,
          places: request.giveBack,
        })
      ).map(Number);
      // Used only once a replica has them: a failover must not lose them and lease them again.
      if (granted > 0) await options.replicated?.(keysOf(credentialId, routeClass)[0]!);
      const name = `${request.replica}.${request.run}`;
      return {
        places: Array.from({ length: granted }, (_, i) => `${name}.${i + 1}`),
        waitMs,
        classCount,
        fairCount,
        leasedElsewhere,
      };
    },
    async giveBack(routeClass, credentialId, places) {
      if (places.length > 0) await run('return', routeClass, credentialId, '', { places });
    },
    async take(routeClass, credentialId, ticket, flags) {
      const [fits, waitMs] = await run('take', routeClass, credentialId, ticket, flags);
      return Number(fits) === 1 ? 0 : Math.max(1, Number(waitMs));
    },
    async correct(routeClass, credentialId, ticket, correction) {
      await run('correct', routeClass, credentialId, ticket, { correction });
    },
    async release(routeClass, credentialId, ticket) {
      await run('release', routeClass, credentialId, ticket, {});
    },
  };
}
