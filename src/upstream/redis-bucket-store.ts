/**
 * Token buckets in Redis, shared by every replica: ONE Lua script does every operation (take,
 * correct, peek, release) atomically on Redis's own clock (`TIME`), so replicas with skewed clocks agree and
 * two of them can never both take the last token. It is the same algorithm as `token-bucket.ts` /
 * `memory-bucket-store.ts` (the unit tests run both against the same cases).
 *
 * Keys (no token, no secret: the credential is its HMAC id):
 * - `<prefix>:bucket:<credentialId>`: hash {tokens, ts, resetAt, cap, freshUntil, probeUntil};
 * - `<prefix>:class:<class>[:<credentialId>]`: sorted set of the calls of the last window;
 * - `<prefix>:class-block:<class>[:<credentialId>]`: set while a route-class 429 lasts;
 * - for a class the gateway shares: `<prefix>:class:<class>:credential:<credentialId>` (each
 *   credential's fair share) and `<prefix>:class:<class>:unproven` (credentials never answered).
 */
import { randomBytes } from 'node:crypto';
import type { BudgetSnapshot } from './budget-tracker.ts';
import type { RedisClient } from './redis-connection.ts';
import type { RouteClass } from './upstream-routes.ts';
import {
  PROBE_LEASE_MS,
  PROBE_POLL_MS,
  STALE_AFTER_MS,
  sharedClassLimits,
  type BucketStore,
  type BudgetCorrection,
  type CredentialBudget,
  type DeniedBy,
  type TakeVerdict,
} from './token-bucket.ts';

/**
 * KEYS: bucket, class log, class block. ARGV: see {@link createRedisBucketStore}; ARGV[18], when
 * not empty, is the time in ms instead of Redis's `TIME`.
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
local staleAfterMs = tonumber(ARGV[12])
local probeLeaseMs = tonumber(ARGV[13])
local probePollMs = tonumber(ARGV[14])
local fairLimit = tonumber(ARGV[15])
local unprovenLimit = tonumber(ARGV[16])

-- Wait until a call fits in a sliding-window log of this class (0: it fits now).
local function classRoom(key, limit)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - classWindowMs)
  if redis.call('ZCARD', key) >= limit then
    local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    return math.max(1, tonumber(oldest[2]) + classWindowMs - now)
  end
  return 0
end

local h = redis.call('HMGET', KEYS[1], 'tokens', 'ts', 'resetAt', 'cap', 'freshUntil', 'probeUntil')
local cap = tonumber(h[4]) or cfgCap
if cap > cfgCap then cap = cfgCap end
local tokens = tonumber(h[1]) or cap
if tokens > cap then tokens = cap end
local ts = tonumber(h[2]) or now
local resetAt = tonumber(h[3]) or 0
local freshUntil = tonumber(h[5]) or 0
local probeUntil = tonumber(h[6]) or 0
if resetAt > 0 then
  if now >= resetAt then tokens = cap; resetAt = 0 end
elseif now > ts then
  tokens = math.min(cap, tokens + (now - ts) * cap / windowMs)
end
if now > ts then ts = now end

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
      if unprovenLimit > 0 and freshUntil == 0 then
        classWait = math.max(classWait, classRoom(KEYS[5], unprovenLimit))
      end
    end
  end
  if tokens < 1 then
    allowed = 0
    deniedBy = 'credential'
    if resetAt > 0 then
      waitMs = math.max(1, resetAt - now)
    else
      waitMs = math.max(1, math.ceil((1 - tokens) * windowMs / math.max(1, cap)))
    end
  elseif classWait > 0 then
    allowed = 0
    deniedBy = 'route-class'
    waitMs = classWait
  elseif now >= freshUntil and probeUntil > now then
    allowed = 0
    deniedBy = 'probe'
    waitMs = math.min(probePollMs, probeUntil - now)
  else
    if now >= freshUntil then probeUntil = now + probeLeaseMs end
    tokens = tokens - 1
    if classLimit > 0 then
      redis.call('ZADD', KEYS[2], now, ARGV[11])
      redis.call('PEXPIRE', KEYS[2], classWindowMs)
      if fairLimit > 0 then
        redis.call('ZADD', KEYS[4], now, ARGV[11])
        redis.call('PEXPIRE', KEYS[4], classWindowMs)
      end
      if unprovenLimit > 0 and freshUntil == 0 then
        redis.call('ZADD', KEYS[5], now, ARGV[11])
        redis.call('PEXPIRE', KEYS[5], classWindowMs)
      end
    end
  end
elseif op == 'correct' then
  local unauthenticated = ARGV[17] == '1'
  if unauthenticated and classLimit > 0 then
    -- The upstream never counted the call (401): the class and the credential's share get it
    -- back. The unproven tokens' pool does not: it is Weft's own bound on calls for unknown tokens.
    redis.call('ZREMRANGEBYRANK', KEYS[2], -1, -1)
    if fairLimit > 0 then redis.call('ZREMRANGEBYRANK', KEYS[4], -1, -1) end
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
  if blockMs >= 0 then
    if ARGV[10] == '1' then
      if classLimit > 0 then redis.call('SET', KEYS[3], '1', 'PX', math.max(1, blockMs)) end
    else
      tokens = 0
      resetAt = now + math.min(math.max(1, blockMs), windowMs)
    end
  end
  if not unauthenticated then
    local freshFor = staleAfterMs
    if resetAt > 0 then freshFor = math.min(resetAt - now, staleAfterMs) end
    freshUntil = now + freshFor
  end
  probeUntil = 0
elseif op == 'release' then
  probeUntil = 0
end

if op ~= 'peek' then
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(ts), 'resetAt', tostring(resetAt), 'cap', tostring(cap), 'freshUntil', tostring(freshUntil), 'probeUntil', tostring(probeUntil))
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
  let sha: string | undefined;

  const keysOf = (credentialId: string, routeClass: RouteClass | undefined): string[] => {
    const bucket = `${prefix}:bucket:${credentialId}`;
    const none = `${prefix}:class:none`;
    if (!routeClass) return [bucket, none, `${prefix}:class-block:none`, none, none];
    const name = routeClass.perCredential ? `${routeClass.name}:${credentialId}` : routeClass.name;
    return [
      bucket,
      `${prefix}:class:${name}`,
      `${prefix}:class-block:${name}`,
      `${prefix}:class:${routeClass.name}:credential:${credentialId}`,
      `${prefix}:class:${routeClass.name}:unproven`,
    ];
  };

  const run = async (
    op: 'take' | 'correct' | 'peek' | 'release',
    credentialId: string,
    routeClass: RouteClass | undefined,
    correction: BudgetCorrection = {},
  ): Promise<ScriptReply> => {
    const keys = keysOf(credentialId, routeClass);
    const shared = routeClass
      ? sharedClassLimits(routeClass, routeClass.limit)
      : { perCredential: 0, unproven: 0 };
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
      randomBytes(8).toString('hex'),
      String(STALE_AFTER_MS),
      String(PROBE_LEASE_MS),
      String(PROBE_POLL_MS),
      String(shared.perCredential),
      String(shared.unproven),
      correction.unauthenticated ? '1' : '0',
      options.now ? String(Math.floor(options.now())) : '',
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
  });

  return {
    async take(credentialId, routeClass): Promise<TakeVerdict> {
      const reply = await run('take', credentialId, routeClass);
      return {
        allowed: Number(reply[0]) === 1,
        waitMs: Number(reply[4]),
        deniedBy: reply[5] === '' ? undefined : (reply[5] as DeniedBy),
        budget: snapshot(reply),
      };
    },
    async correct(credentialId, routeClass, correction) {
      return snapshot(await run('correct', credentialId, routeClass, correction));
    },
    async peek(credentialId) {
      return snapshot(await run('peek', credentialId, undefined));
    },
    async release(credentialId) {
      await run('release', credentialId, undefined);
    },
  };
}
