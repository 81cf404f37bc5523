/**
 * Token buckets in Redis, shared by every replica: ONE Lua script does every operation (take,
 * correct, peek, release) atomically on Redis's own clock (`TIME`), so replicas with skewed clocks agree and
 * two of them can never both take the last token. It is the same algorithm as `token-bucket.ts`,
 * `send-window.ts` and `memory-bucket-store.ts` (the unit tests run both against the same cases).
 *
 * Keys (no token, no secret: the credential is its HMAC id):
 * - `<prefix>:bucket:<credentialId>`: hash {tokens, ts, resetAt, cap, freshUntil, window,
 *   lastAnswerAt};
 * - `<prefix>:in-flight:<credentialId>`: sorted set of the credential's calls not answered yet
 *   (the send window), scored by the end of their lease;
 * - `<prefix>:class:<class>[:<credentialId>]`: sorted set of the calls of the last window;
 * - `<prefix>:class-block:<class>[:<credentialId>]`: set while a route-class 429 lasts;
 * - for a class the gateway shares: `<prefix>:class:<class>:credential:<credentialId>` (each
 *   credential's fair share);
 * - `<prefix>:class-unproven:<class>`: the class's calls in flight for tokens never answered
 *   (a full class holding some asks again soon: their 401s give the room back).
 */
import type { BudgetSnapshot } from './budget-tracker.ts';
import type { RedisClient } from './redis-connection.ts';
import type { RouteClass } from './upstream-routes.ts';
import {
  CALL_LEASE_MS,
  INITIAL_SEND_WINDOW,
  WINDOW_IDLE_MS,
  WINDOW_POLL_MS,
} from './send-window.ts';
import { reserveShareOf, reservedCalls } from './call-priority.ts';
import {
  STALE_AFTER_MS,
  fairShareOf,
  newTicket,
  type BucketStore,
  type BudgetCorrection,
  type CredentialBudget,
  type DeniedBy,
  type TakeVerdict,
} from './token-bucket.ts';

/**
 * KEYS: bucket, class log, class block, fair-share log, class unproven calls, in-flight calls.
 * ARGV: see {@link createRedisBucketStore}; ARGV[18], when not empty, is the time in ms instead of
 * Redis's `TIME`.
 */
export const TOKEN_BUCKET_LUA = `
local now = tonumber(ARGV[18])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local op = ARGV[1]
local cfgCap = tonumber(ARGV[2])
local windowMs = tonumber(ARGV[3])
local classLimit = tonumber(ARGV[4])
local classWindowMs = tonumber(ARGV[5])
local ticket = ARGV[11]
local staleAfterMs = tonumber(ARGV[12])
local leaseMs = tonumber(ARGV[13])
local pollMs = tonumber(ARGV[14])
local fairLimit = tonumber(ARGV[15])
local floorShare = tonumber(ARGV[16])
local initialWindow = tonumber(ARGV[19])
local idleMs = tonumber(ARGV[20])

local h = redis.call('HMGET', KEYS[1], 'tokens', 'ts', 'resetAt', 'cap', 'freshUntil', 'window', 'lastAnswerAt')
local cap = tonumber(h[4]) or cfgCap
if cap > cfgCap then cap = cfgCap end
local tokens = tonumber(h[1]) or cap
if tokens > cap then tokens = cap end
local ts = tonumber(h[2]) or now
local resetAt = tonumber(h[3]) or 0
local freshUntil = tonumber(h[5]) or 0
local window = tonumber(h[6]) or initialWindow
local lastAnswerAt = tonumber(h[7]) or 0
if resetAt > 0 then
  if now >= resetAt then tokens = cap; resetAt = 0 end
elseif now > ts then
  tokens = math.min(cap, tokens + (now - ts) * cap / windowMs)
end
if now > ts then ts = now end
redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now)

-- The send window now (send-window.ts currentWindow).
local function currentWindow(fresh)
  if not fresh then return 1 end
  if window <= initialWindow then return math.max(1, window) end
  local halvings = math.min(30, math.floor(math.max(0, now - lastAnswerAt) / idleMs))
  return math.max(initialWindow, math.floor(window / 2 ^ halvings))
end

-- Wait until a call fits in a sliding-window log of this class (0: it fits now).
local function classRoom(key, limit)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - classWindowMs)
  if redis.call('ZCARD', key) >= limit then
    redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now)
    if redis.call('ZCARD', KEYS[5]) > 0 then return pollMs end
    local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    return math.max(1, tonumber(oldest[2]) + classWindowMs - now)
  end
  return 0
end

local allowed = 1
local waitMs = 0
local deniedBy = ''
if op == 'take' then
  local classWait = 0
  if classLimit > 0 then
    local blocked = tonumber(redis.call('PTTL', KEYS[3]))
    if blocked > 0 then
      classWait = blocked
    else
      classWait = classRoom(KEYS[2], classLimit)
      if fairLimit > 0 then classWait = math.max(classWait, classRoom(KEYS[4], fairLimit)) end
    end
  end
  local floor = math.floor(cap * floorShare)
  if tokens < 1 or tokens - floor < 1 then
    allowed = 0
    deniedBy = 'credential'
    local need = 1
    if tokens >= 1 then deniedBy = 'reserve'; need = floor + 1 end
    if resetAt > 0 then
      waitMs = math.max(1, resetAt - now)
    else
      waitMs = math.max(1, math.ceil((need - tokens) * windowMs / math.max(1, cap)))
    end
  elseif classWait > 0 then
    allowed = 0
    deniedBy = 'route-class'
    waitMs = classWait
  elseif redis.call('ZCARD', KEYS[6]) >= currentWindow(now < freshUntil) then
    allowed = 0
    deniedBy = 'window'
    local earliest = redis.call('ZRANGE', KEYS[6], 0, 0, 'WITHSCORES')
    waitMs = math.max(1, math.min(pollMs, tonumber(earliest[2]) - now))
  else
    tokens = tokens - 1
    redis.call('ZADD', KEYS[6], now + leaseMs, ticket)
    redis.call('PEXPIRE', KEYS[6], leaseMs)
    if classLimit > 0 then
      redis.call('ZADD', KEYS[2], now, ticket)
      redis.call('PEXPIRE', KEYS[2], classWindowMs)
      if fairLimit > 0 then
        redis.call('ZADD', KEYS[4], now, ticket)
        redis.call('PEXPIRE', KEYS[4], classWindowMs)
      end
      if freshUntil == 0 then
        redis.call('ZADD', KEYS[5], now + leaseMs, ticket)
        redis.call('PEXPIRE', KEYS[5], leaseMs)
      end
    end
  end
elseif op == 'correct' then
  -- The calls that were in flight, this one included.
  local answered = redis.call('ZREM', KEYS[6], ticket)
  local inFlight = redis.call('ZCARD', KEYS[6]) + answered
  local unauthenticated = ARGV[17] == '1'
  if classLimit > 0 then
    redis.call('ZREM', KEYS[5], ticket)
    if unauthenticated then
      -- The upstream never counted the call (a refused token): every log gets it back.
      redis.call('ZREM', KEYS[2], ticket)
      if fairLimit > 0 then redis.call('ZREM', KEYS[4], ticket) end
    end
  end
  local limit = tonumber(ARGV[6])
  local remaining = tonumber(ARGV[7])
  local resetMs = tonumber(ARGV[8])
  local blockMs = tonumber(ARGV[9])
  if limit >= 1 then
    cap = math.min(cfgCap, limit)
    if tokens > cap then tokens = cap end
  end
  if remaining >= 0 and remaining < tokens then tokens = remaining end
  if resetMs >= 0 then resetAt = now + resetMs end
  local windowSpent = false
  if blockMs >= 0 then
    if ARGV[10] == '1' then
      if classLimit > 0 then redis.call('SET', KEYS[3], '1', 'PX', math.max(1, blockMs)) end
    else
      windowSpent = true
      tokens = 0
      resetAt = now + math.min(math.max(1, blockMs), windowMs)
    end
  end
  if not unauthenticated then
    local freshFor = staleAfterMs
    if resetAt > 0 then freshFor = math.min(resetAt - now, staleAfterMs) end
    freshUntil = now + freshFor
    local current = currentWindow(true)
    if windowSpent then
      window = math.max(1, math.floor(current / 2))
    else
      window = math.min(current + 1, math.max(initialWindow, 2 * inFlight))
    end
    lastAnswerAt = now
  end
elseif op == 'release' then
  redis.call('ZREM', KEYS[6], ticket)
  if classLimit > 0 then redis.call('ZREM', KEYS[5], ticket) end
end

if op ~= 'peek' then
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(ts), 'resetAt', tostring(resetAt), 'cap', tostring(cap), 'freshUntil', tostring(freshUntil), 'window', tostring(window), 'lastAnswerAt', tostring(lastAnswerAt))
  local ttl = windowMs * 2
  if resetAt > 0 then ttl = math.max(ttl, resetAt - now + windowMs) end
  redis.call('PEXPIRE', KEYS[1], math.ceil(ttl))
end

local resetSec
if resetAt > 0 then
  resetSec = math.ceil((resetAt - now) / 1000)
else
  resetSec = math.ceil((cap - tokens) * windowMs / math.max(1, cap) / 1000)
end
return { allowed, math.floor(math.max(0, tokens)), cap, math.max(0, resetSec), math.ceil(waitMs), deniedBy }
`;
export interface RedisBucketStoreOptions {
  readonly client: RedisClient;
  readonly budget: CredentialBudget;
  /** Key prefix (`REDIS_KEY_PREFIX`). */
  readonly prefix: string;
  /**
   * The clock of the buckets and class logs; default Redis's own (`TIME`), which every replica
   * shares. A test passes one it moves. Key expiry stays on Redis's clock.
   */
  readonly now?: () => number;
}

type ScriptReply = [number, number, number, number, number, string];

export function createRedisBucketStore(options: RedisBucketStoreOptions): BucketStore {
  const { client, budget, prefix } = options;
  const writeReserveShare = budget.writeReserveShare ?? 0;
  let sha: string | undefined;

  const keysOf = (credentialId: string, routeClass: RouteClass | undefined): string[] => {
    const bucket = `${prefix}:bucket:${credentialId}`;
    const inFlight = `${prefix}:in-flight:${credentialId}`;
    const none = `${prefix}:class:none`;
    if (!routeClass) {
      return [
        bucket,
        none,
        `${prefix}:class-block:none`,
        none,
        `${prefix}:class-unproven:none`,
        inFlight,
      ];
    }
    const name = routeClass.perCredential ? `${routeClass.name}:${credentialId}` : routeClass.name;
    return [
      bucket,
      `${prefix}:class:${name}`,
      `${prefix}:class-block:${name}`,
      `${prefix}:class:${routeClass.name}:credential:${credentialId}`,
      `${prefix}:class-unproven:${name}`,
      inFlight,
    ];
  };

  const run = async (
    op: 'take' | 'correct' | 'peek' | 'release',
    credentialId: string,
    routeClass: RouteClass | undefined,
    correction: BudgetCorrection = {},
    floorShare = 0,
  ): Promise<ScriptReply> => {
    const keys = keysOf(credentialId, routeClass);
    const num = (value: number | undefined) => (value === undefined ? '-1' : String(value));
    const args = [
      op,
      String(budget.capacity),
      String(budget.windowMs),
      String(routeClass?.limit ?? 0),
      String(routeClass?.windowMs ?? 0),
      num(correction.limit),
      num(correction.remaining),
      num(correction.resetMs),
      num(correction.blockMs),
      correction.blockRouteClass ? '1' : '0',
      correction.ticket ?? '',
      String(STALE_AFTER_MS),
      String(CALL_LEASE_MS),
      String(WINDOW_POLL_MS),
      String(routeClass ? fairShareOf(routeClass, routeClass.limit) : 0),
      String(floorShare),
      correction.unauthenticated ? '1' : '0',
      options.now ? String(Math.floor(options.now())) : '',
      String(INITIAL_SEND_WINDOW),
      String(WINDOW_IDLE_MS),
    ];
    if (sha === undefined) sha = await client.scriptLoad(TOKEN_BUCKET_LUA);
    try {
      return (await client.evalSha(sha, { keys, arguments: args })) as ScriptReply;
    } catch (error) {
      // Redis restarted (or flushed its scripts): EVAL loads it again.
      if (!/NOSCRIPT/.test((error as Error).message)) throw error;
      return (await client.eval(TOKEN_BUCKET_LUA, { keys, arguments: args })) as ScriptReply;
    }
  };

  const snapshot = (reply: ScriptReply): BudgetSnapshot => ({
    limit: Number(reply[2]),
    remaining: Number(reply[1]),
    resetSec: Number(reply[3]),
    writeReserve: reservedCalls(Number(reply[2]), reserveShareOf('read', writeReserveShare)),
  });

  return {
    async take(credentialId, routeClass, request = {}): Promise<TakeVerdict> {
      const ticket = request.ticket ?? newTicket();
      const floorShare = reserveShareOf(request.priority ?? 'write', writeReserveShare);
      const reply = await run('take', credentialId, routeClass, { ticket }, floorShare);
      const allowed = Number(reply[0]) === 1;
      return {
        allowed,
        waitMs: Number(reply[4]),
        deniedBy: reply[5] === '' ? undefined : (reply[5] as DeniedBy),
        budget: snapshot(reply),
        ticket: allowed ? ticket : undefined,
      };
    },
    async correct(credentialId, routeClass, correction) {
      return snapshot(await run('correct', credentialId, routeClass, correction));
    },
    async peek(credentialId) {
      return snapshot(await run('peek', credentialId, undefined));
    },
    async release(credentialId, routeClass, ticket) {
      await run('release', credentialId, routeClass, { ticket });
    },
  };
}
