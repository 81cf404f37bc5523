/**
 * Token buckets in Redis, shared by every replica: ONE Lua script does every operation (take,
 * correct, peek, release) atomically on Redis's own clock (`TIME`), so replicas with skewed clocks agree and
 * two of them can never both take the last token. It is the same algorithm as `token-bucket.ts`,
 * `send-window.ts` and `memory-bucket-store.ts` (the unit tests run both against the same cases).
 *
 * Keys (no token, no secret: the credential is its HMAC id). The part in braces is the key's hash
 * tag: on a Redis Cluster, keys with the same tag live in the same slot, so one script may touch
 * them together (docs/redis.md):
 * - `<prefix>:bucket:{<credentialId>}`: hash {tokens, ts, resetAt, cap, freshUntil, window,
 *   lastAnswerAt, rttMs};
 * - `<prefix>:in-flight:{<credentialId>}`: sorted set of the credential's calls not answered yet
 *   (the send window), scored by the end of their lease;
 * - a class the gateway shares (the upstream's per-IP limits), tagged by the class:
 *   `<prefix>:class:{<class>}`: sorted set of the calls of the last window;
 *   `<prefix>:class-block:{<class>}`: set while a route-class 429 lasts;
 *   `<prefix>:class:{<class>}:credential:<credentialId>`: each credential's fair share;
 *   `<prefix>:class-unproven:{<class>}`: the class's calls in flight for tokens never answered
 *   (a full class holding some asks again soon: their 401s give the room back);
 * - a per-credential class, tagged by the credential: `<prefix>:class:<class>:{<credentialId>}`,
 *   `<prefix>:class-block:<class>:{<credentialId>}`, `<prefix>:class-unproven:<class>:{<credentialId>}`.
 *
 * On one Redis every operation is one script. On a cluster, a call of a shared class touches two
 * slots (its credential's and its class's), which no script may do: the credential's part runs
 * first (tokens, send window; the call's ticket), then the class's ({@link ROUTE_CLASS_LUA}); a
 * class that has no room gives the credential's token back (`refund`). Between the two a token is
 * held that may be given back: other calls see one token fewer for a round trip, never one more.
 */
import { createHash } from 'node:crypto';
import type { BudgetSnapshot } from './budget-tracker.ts';
import type { RedisClient } from './redis-connection.ts';
import type { RouteClass } from './upstream-routes.ts';
import {
  CALL_LEASE_MS,
  CONFIRMED_SHARE_OF_RTT,
  CONFIRMED_WINDOW,
  INITIAL_SEND_WINDOW,
  RTT_GAIN,
  WINDOW_IDLE_MS,
  WINDOW_POLL_MS,
} from './send-window.ts';
import { classRoomOf, reserveShareOf, reservedCalls, type CallPriority } from './call-priority.ts';
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

/** Lua: `now` in ms — the caller's time in ARGV[argument] when given, else Redis's `TIME`. */
const nowFrom = (argument: number): string => `local now = tonumber(ARGV[${argument}])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end`;

/**
 * Lua: `classRoom(key, limit)`, the wait until a call fits in a route class's sliding-window log (0:
 * it fits now). `limit` is the room the call's priority may use (`classRoomOf`): a full log waits
 * for the call that leaves `limit - 1` after it. While calls for never-answered tokens are in flight
 * (KEYS[unproven]) a full class is asked again after a poll. Needs the locals `now`,
 * `classWindowMs` and `pollMs`.
 */
const classRoomFunction = (unproven: number): string => `local function classRoom(key, limit)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - classWindowMs)
  local count = redis.call('ZCARD', key)
  if count >= limit then
    redis.call('ZREMRANGEBYSCORE', KEYS[${unproven}], '-inf', now)
    if redis.call('ZCARD', KEYS[${unproven}]) > 0 then return pollMs end
    local leaving = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
    return math.max(1, tonumber(leaving[2]) + classWindowMs - now)
  end
  return 0
end`;

/**
 * KEYS: bucket, class log, class block, fair-share log, class unproven calls, in-flight calls.
 * ARGV: see {@link createRedisBucketStore} (ARGV[4] and ARGV[15], the class's and the fair share's
 * limits, are the room of the call's priority; ARGV[16] the share of the window it leaves); ARGV[18],
 * when not empty, is the time in ms instead of Redis's `TIME`. Replies {allowed, tokens, cap,
 * resetSec, waitMs, deniedBy, neverAnswered}.
 */
export const TOKEN_BUCKET_LUA = `
${nowFrom(18)}
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
local confirmedWindow = tonumber(ARGV[21])
local confirmedShare = tonumber(ARGV[22])
local rttGain = tonumber(ARGV[23])

local h = redis.call('HMGET', KEYS[1], 'tokens', 'ts', 'resetAt', 'cap', 'freshUntil', 'window', 'lastAnswerAt', 'rttMs')
local cap = tonumber(h[4]) or cfgCap
if cap > cfgCap then cap = cfgCap end
local tokens = tonumber(h[1]) or cap
if tokens > cap then tokens = cap end
local ts = tonumber(h[2]) or now
local resetAt = tonumber(h[3]) or 0
local freshUntil = tonumber(h[5]) or 0
local window = tonumber(h[6]) or initialWindow
local lastAnswerAt = tonumber(h[7]) or 0
local rttMs = tonumber(h[8]) or 0
if resetAt > 0 then
  if now >= resetAt then tokens = cap; resetAt = 0 end
elseif now > ts then
  tokens = math.min(cap, tokens + (now - ts) * cap / windowMs)
end
if now > ts then ts = now end
redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now)

-- The send window (send-window.ts): aged by silence, and now.
local function agedWindow()
  if window <= initialWindow then return math.max(1, window) end
  local halvings = math.min(30, math.floor(math.max(0, now - lastAnswerAt) / math.max(idleMs, 2 * rttMs)))
  return math.max(initialWindow, math.floor(window / 2 ^ halvings))
end
local function currentWindow(fresh)
  if not fresh then return 1 end
  local aged = agedWindow()
  if window >= initialWindow and now - lastAnswerAt < confirmedShare * rttMs then
    return math.max(aged, confirmedWindow)
  end
  return aged
end

${classRoomFunction(5)}

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
  -- The calls that were in flight, this one included; a call is taken a lease before its end.
  local leaseEnd = redis.call('ZSCORE', KEYS[6], ticket)
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
    local current = agedWindow()
    if windowSpent then
      window = math.max(1, math.floor(current / 2))
    else
      window = math.min(current + 1, math.max(initialWindow, 2 * inFlight))
    end
    lastAnswerAt = now
    if leaseEnd then
      local rtt = math.min(math.max(0, now - (tonumber(leaseEnd) - leaseMs)), leaseMs)
      if rttMs > 0 then rttMs = rttMs + (rtt - rttMs) * rttGain else rttMs = rtt end
    end
  end
elseif op == 'release' then
  redis.call('ZREM', KEYS[6], ticket)
  if classLimit > 0 then redis.call('ZREM', KEYS[5], ticket) end
elseif op == 'refund' then
  -- A take whose route class had no room (cluster: checked after): its token and place come back.
  if redis.call('ZREM', KEYS[6], ticket) == 1 then tokens = math.min(cap, tokens + 1) end
end

if op ~= 'peek' then
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(ts), 'resetAt', tostring(resetAt), 'cap', tostring(cap), 'freshUntil', tostring(freshUntil), 'window', tostring(window), 'lastAnswerAt', tostring(lastAnswerAt), 'rttMs', tostring(rttMs))
  local ttl = windowMs * 2
  if resetAt > 0 then ttl = math.max(ttl, resetAt - now + windowMs) end
  redis.call('PEXPIRE', KEYS[1], math.ceil(ttl))
end

local resetSec
if resetAt > 0 then
  resetSec = math.ceil((resetAt - now) / 1000)
elseif tokens >= cap then
  -- A full bucket has no window running: the next call starts one (token-bucket.ts, snapshotOf).
  resetSec = math.ceil(windowMs / 1000)
else
  resetSec = math.ceil((cap - tokens) * windowMs / math.max(1, cap) / 1000)
end
local neverAnswered = 0
if freshUntil == 0 then neverAnswered = 1 end
return { allowed, math.floor(math.max(0, tokens)), cap, math.max(0, resetSec), math.ceil(waitMs), deniedBy, neverAnswered }
`;

/**
 * The route-class part of an operation, on a cluster where the class's keys are in their own slot
 * (the same steps as in {@link TOKEN_BUCKET_LUA}). KEYS: class log, class block, fair-share log,
 * class unproven calls. ARGV: op, limit, window ms, ticket, lease ms, poll ms, fair limit (both
 * limits: the room of the call's priority, `classRoomOf`),
 * neverAnswered ('1': the credential's token has never been answered), unauthenticated ('1'),
 * block ms (-1: none), time in ms (empty: Redis's `TIME`). Replies {fits, waitMs}.
 */
export const ROUTE_CLASS_LUA = `
${nowFrom(11)}
local op = ARGV[1]
local classLimit = tonumber(ARGV[2])
local classWindowMs = tonumber(ARGV[3])
local ticket = ARGV[4]
local leaseMs = tonumber(ARGV[5])
local pollMs = tonumber(ARGV[6])
local fairLimit = tonumber(ARGV[7])

${classRoomFunction(4)}

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

const sha1 = (script: string): string => createHash('sha1').update(script).digest('hex');
const TOKEN_BUCKET_SHA = sha1(TOKEN_BUCKET_LUA);
const ROUTE_CLASS_SHA = sha1(ROUTE_CLASS_LUA);

/**
 * Runs a script by its SHA, sending the script itself only when the node answers NOSCRIPT (a node
 * that restarted, flushed its scripts, or, on a cluster, never ran it): EVAL runs it and keeps it.
 */
async function runScript(
  client: RedisClient,
  script: string,
  sha: string,
  keys: string[],
  args: string[],
): Promise<unknown> {
  try {
    return await client.evalSha(sha, { keys, arguments: args });
  } catch (error) {
    if (!/NOSCRIPT/.test((error as Error).message)) throw error;
    return client.eval(script, { keys, arguments: args });
  }
}
export interface RedisBucketStoreOptions {
  readonly client: RedisClient;
  readonly budget: CredentialBudget;
  /** Key prefix (`REDIS_KEY_PREFIX`). */
  readonly prefix: string;
  /**
   * A Redis Cluster: a call of a route class the gateway shares runs as two scripts, one per slot
   * (see the top of this file). False on one Redis: always one script.
   */
  readonly cluster?: boolean;
  /**
   * The clock of the buckets and class logs; default Redis's own (`TIME`), which every replica
   * shares. A test passes one it moves. Key expiry stays on Redis's clock.
   */
  readonly now?: () => number;
}

type ScriptReply = [number, number, number, number, number, string, number];

export function createRedisBucketStore(options: RedisBucketStoreOptions): BucketStore {
  const { client, budget, prefix } = options;
  const writeReserveShare = budget.writeReserveShare ?? 0;

  /** The class's four keys: tagged by the class when shared, by the credential otherwise. */
  const classKeysOf = (credentialId: string, routeClass: RouteClass): string[] => {
    const tag = routeClass.perCredential ? `{${credentialId}}` : `{${routeClass.name}}`;
    const name = routeClass.perCredential ? `${routeClass.name}:${tag}` : tag;
    const fairShare = routeClass.perCredential
      ? `${prefix}:class:${routeClass.name}:credential:${tag}`
      : `${prefix}:class:${tag}:credential:${credentialId}`;
    return [
      `${prefix}:class:${name}`,
      `${prefix}:class-block:${name}`,
      fairShare,
      `${prefix}:class-unproven:${name}`,
    ];
  };

  const keysOf = (credentialId: string, routeClass: RouteClass | undefined): string[] => {
    const tag = `{${credentialId}}`;
    const bucket = `${prefix}:bucket:${tag}`;
    const inFlight = `${prefix}:in-flight:${tag}`;
    if (!routeClass) {
      // Never touched without a class (its limit is 0); in the credential's slot all the same.
      const none = `${prefix}:class:none:${tag}`;
      return [
        bucket,
        none,
        `${prefix}:class-block:none:${tag}`,
        none,
        `${prefix}:class-unproven:none:${tag}`,
        inFlight,
      ];
    }
    return [bucket, ...classKeysOf(credentialId, routeClass), inFlight];
  };

  const num = (value: number | undefined) => (value === undefined ? '-1' : String(value));
  /** A class's limit and its fair share's (0: none), as the room a call of `priority` may use. */
  const roomsOf = (
    routeClass: RouteClass | undefined,
    priority: CallPriority,
  ): [string, string] => {
    if (!routeClass) return ['0', '0'];
    const fair = fairShareOf(routeClass, routeClass.limit);
    return [
      String(classRoomOf(routeClass.limit, priority)),
      String(fair > 0 ? classRoomOf(fair, priority) : 0),
    ];
  };
  const clock = () => (options.now ? String(Math.floor(options.now())) : '');

  const run = async (
    op: 'take' | 'correct' | 'peek' | 'release' | 'refund',
    credentialId: string,
    routeClass: RouteClass | undefined,
    correction: BudgetCorrection = {},
    priority: CallPriority = 'write',
  ): Promise<ScriptReply> => {
    const keys = keysOf(credentialId, routeClass);
    const [classLimit, fairLimit] = roomsOf(routeClass, priority);
    const args = [
      op,
      String(budget.capacity),
      String(budget.windowMs),
      classLimit,
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
      fairLimit,
      String(reserveShareOf(priority, writeReserveShare)),
      correction.unauthenticated ? '1' : '0',
      clock(),
      String(INITIAL_SEND_WINDOW),
      String(WINDOW_IDLE_MS),
      String(CONFIRMED_WINDOW),
      String(CONFIRMED_SHARE_OF_RTT),
      String(RTT_GAIN),
    ];
    return (await runScript(client, TOKEN_BUCKET_LUA, TOKEN_BUCKET_SHA, keys, args)) as ScriptReply;
  };

  /** The class's part on a cluster: {fits (1/0), waitMs}. */
  const runClass = async (
    op: 'take' | 'correct' | 'release',
    credentialId: string,
    routeClass: RouteClass,
    ticket: string,
    flags: {
      neverAnswered?: boolean;
      correction?: BudgetCorrection;
      priority?: CallPriority;
    } = {},
  ): Promise<[number, number]> => {
    const correction = flags.correction ?? {};
    const [classLimit, fairLimit] = roomsOf(routeClass, flags.priority ?? 'write');
    const args = [
      op,
      classLimit,
      String(routeClass.windowMs),
      ticket,
      String(CALL_LEASE_MS),
      String(WINDOW_POLL_MS),
      fairLimit,
      flags.neverAnswered ? '1' : '0',
      correction.unauthenticated ? '1' : '0',
      correction.blockRouteClass ? num(correction.blockMs) : '-1',
      clock(),
    ];
    const keys = classKeysOf(credentialId, routeClass);
    return (await runScript(client, ROUTE_CLASS_LUA, ROUTE_CLASS_SHA, keys, args)) as [
      number,
      number,
    ];
  };

  /** Whether this call's class keys are in another slot than its credential's (cluster only). */
  const split = (routeClass: RouteClass | undefined): routeClass is RouteClass =>
    options.cluster === true &&
    routeClass !== undefined &&
    routeClass.limit > 0 &&
    !routeClass.perCredential;

  const snapshot = (reply: ScriptReply): BudgetSnapshot => ({
    limit: Number(reply[2]),
    remaining: Number(reply[1]),
    resetSec: Number(reply[3]),
    writeReserve: reservedCalls(Number(reply[2]), reserveShareOf('read', writeReserveShare)),
  });

  return {
    async take(credentialId, routeClass, request = {}): Promise<TakeVerdict> {
      const ticket = request.ticket ?? newTicket();
      const priority = request.priority ?? 'write';
      let reply: ScriptReply;
      let classWaitMs = 0;
      if (split(routeClass)) {
        reply = await run('take', credentialId, undefined, { ticket }, priority);
        if (Number(reply[0]) === 1) {
          const neverAnswered = Number(reply[6]) === 1;
          const [fits, waitMs] = await runClass('take', credentialId, routeClass, ticket, {
            neverAnswered,
            priority,
          });
          if (Number(fits) !== 1) {
            classWaitMs = Math.max(1, Number(waitMs));
            reply = await run('refund', credentialId, undefined, { ticket });
          }
        }
      } else {
        reply = await run('take', credentialId, routeClass, { ticket }, priority);
      }
      const allowed = Number(reply[0]) === 1 && classWaitMs === 0;
      return {
        allowed,
        waitMs: classWaitMs > 0 ? classWaitMs : Number(reply[4]),
        deniedBy:
          classWaitMs > 0 ? 'route-class' : reply[5] === '' ? undefined : (reply[5] as DeniedBy),
        budget: snapshot(reply),
        ticket: allowed ? ticket : undefined,
      };
    },
    async correct(credentialId, routeClass, correction) {
      if (split(routeClass)) {
        const [reply] = await Promise.all([
          run('correct', credentialId, undefined, correction),
          runClass('correct', credentialId, routeClass, correction.ticket ?? '', { correction }),
        ]);
        return snapshot(reply);
      }
      return snapshot(await run('correct', credentialId, routeClass, correction));
    },
    async peek(credentialId) {
      return snapshot(await run('peek', credentialId, undefined));
    },
    async release(credentialId, routeClass, ticket) {
      if (split(routeClass)) {
        await Promise.all([
          run('release', credentialId, undefined, { ticket }),
          runClass('release', credentialId, routeClass, ticket),
        ]);
        return;
      }
      await run('release', credentialId, routeClass, { ticket });
    },
  };
}
