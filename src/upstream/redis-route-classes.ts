/**
 * The route classes the whole gateway shares (the upstream's per-IP limits: hosting reads, writes,
 * uploads and deploys), in Redis: one sliding-window log per class for every replica, checked per
 * call by ONE Lua script on the class's own keys (tagged by the class, so on a cluster they live in
 * their own slot). The credential's budget is leased (`leased-bucket-store.ts`); a class is not: its
 * limits are per minute and small (10 to 120 calls), so a slice per replica would be a call or two.
 *
 * Keys, tagged by the class:
 * - `<prefix>:class:{<class>}`: sorted set of the calls of the last window;
 * - `<prefix>:class-block:{<class>}`: set while a route-class 429 lasts;
 * - `<prefix>:class:{<class>}:credential:<credentialId>`: each credential's fair share;
 * - `<prefix>:class-unproven:{<class>}`: the class's calls in flight for tokens never answered (a
 *   full class holding some asks again soon: their 401s give the room back).
 */
import { createHash } from 'node:crypto';
import type { RedisClient } from './redis-connection.ts';
import type { RouteClass } from './upstream-routes.ts';
import { CALL_LEASE_MS, WINDOW_POLL_MS } from './send-window.ts';
import { classRoomOf, type CallPriority } from './call-priority.ts';
import { fairShareOf, type BudgetCorrection } from './token-bucket.ts';

/**
 * KEYS: class log, class block, fair-share log, class unproven calls. ARGV: op, limit, window ms,
 * ticket, lease ms, poll ms, fair limit (both limits: the room of the call's priority,
 * `classRoomOf`), neverAnswered ('1': the credential's token has never been answered),
 * unauthenticated ('1'), block ms (-1: none), time in ms (empty: Redis's `TIME`). Replies
 * {fits, waitMs}: the wait until a call fits in the log with room for the call's limit (a full log
 * waits for the call that leaves `limit - 1` after it).
 */
export const ROUTE_CLASS_LUA = `
local now = tonumber(ARGV[11])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
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
end
return { 1, 0 }
`;

const ROUTE_CLASS_SHA = createHash('sha1').update(ROUTE_CLASS_LUA).digest('hex');

export interface RedisRouteClassesOptions {
  readonly client: RedisClient;
  readonly prefix: string;
  /** A test's clock; default Redis's `TIME`. */
  readonly now?: () => number;
}

export interface RedisRouteClasses {
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

export function createRedisRouteClasses(options: RedisRouteClassesOptions): RedisRouteClasses {
  const { client, prefix } = options;
  const keysOf = (credentialId: string, routeClass: RouteClass): string[] => {
    const tag = `{${routeClass.name}}`;
    return [
      `${prefix}:class:${tag}`,
      `${prefix}:class-block:${tag}`,
      `${prefix}:class:${tag}:credential:${credentialId}`,
      `${prefix}:class-unproven:${tag}`,
    ];
  };
  const run = async (
    op: 'take' | 'correct' | 'release',
    routeClass: RouteClass,
    credentialId: string,
    ticket: string,
    flags: {
      priority?: CallPriority;
      neverAnswered?: boolean;
      correction?: BudgetCorrection;
    },
  ): Promise<[number, number]> => {
    const correction = flags.correction ?? {};
    const priority = flags.priority ?? 'write';
    const fair = fairShareOf(routeClass, routeClass.limit);
    const args = [
      op,
      String(classRoomOf(routeClass.limit, priority)),
      String(routeClass.windowMs),
      ticket,
      String(CALL_LEASE_MS),
      String(WINDOW_POLL_MS),
      String(fair > 0 ? classRoomOf(fair, priority) : 0),
      flags.neverAnswered ? '1' : '0',
      correction.unauthenticated ? '1' : '0',
      correction.blockRouteClass && correction.blockMs !== undefined
        ? String(correction.blockMs)
        : '-1',
      options.now ? String(Math.floor(options.now())) : '',
    ];
    const keys = keysOf(credentialId, routeClass);
    try {
      return (await client.evalSha(ROUTE_CLASS_SHA, { keys, arguments: args })) as [number, number];
    } catch (error) {
      if (!/NOSCRIPT/.test((error as Error).message)) throw error;
      return (await client.eval(ROUTE_CLASS_LUA, { keys, arguments: args })) as [number, number];
    }
  };
  return {
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
