/**
 * The lease script, in Lua (docs/budget.md "Across replicas: leases"): one run grants a replica a
 * slice of a credential's bucket, settles what it gives back and folds in the upstream answers it
 * reports, on Redis's clock. It mirrors the pure policy (`lease-policy.ts`, `lease-grants.ts`); the
 * keys it touches and the way it is run are `redis-leases.ts`'s.
 */
import { luaNow } from '../../redis/redis-script.ts';

/** Lua: the lease script. KEYS: bucket, leases. ARGV: as `createRedisLeases` (`redis-leases.ts`) passes them. */
export const LEASE_LUA = `
${luaNow(19)}
local op = ARGV[1]
local cfgCap = tonumber(ARGV[2])
local windowMs = tonumber(ARGV[3])
local replica = ARGV[4]
local ask = tonumber(ARGV[5])
local demand = tonumber(ARGV[6])
local held = tonumber(ARGV[7])
local live = ARGV[8] == '1'
local floor = tonumber(ARGV[9])
local waiting = tonumber(ARGV[10])
local askedMs = tonumber(ARGV[11])
local limit = tonumber(ARGV[12])
local remaining = tonumber(ARGV[13])
local resetMs = tonumber(ARGV[14])
local blockMs = tonumber(ARGV[15])
local outstanding = tonumber(ARGV[16])
local reserveShare = tonumber(ARGV[17])
local staleAfterMs = tonumber(ARGV[18])
local debt = tonumber(ARGV[20])
local minLeaseMs = tonumber(ARGV[21])
local maxLeaseMs = tonumber(ARGV[22])
local singlesBelow = tonumber(ARGV[23])
local maxShareOfFree = tonumber(ARGV[24])
local graceMs = tonumber(ARGV[25])
local tauMs = tonumber(ARGV[26])
local poolTimeShare = tonumber(ARGV[27])

local h = redis.call('HMGET', KEYS[1], 'tokens', 'ts', 'resetAt', 'cap', 'freshUntil', 'drain', 'drainAt', 'epoch', 'probeUntil')
local cap = math.min(tonumber(h[4]) or cfgCap, cfgCap)
local tokens = math.min(tonumber(h[1]) or cap, cap)
local ts = tonumber(h[2]) or now
local resetAt = tonumber(h[3]) or 0
local freshUntil = tonumber(h[5]) or 0
local drain = tonumber(h[6]) or 0
local drainAt = tonumber(h[7]) or now
local epoch = tonumber(h[8]) or 0
-- While the view is stale, one call of every replica's goes out at a time (the probe), until this.
local probeUntil = tonumber(h[9]) or 0
local probeMs = tonumber(ARGV[28])

-- Every replica's record: held, end, demand. Ended ones (past the grace) are not live holders.
local records = {}
local flat = redis.call('HGETALL', KEYS[2])
for i = 1, #flat, 2 do
  local a, b, c = string.match(flat[i + 1], '^(%S+) (%S+) (%S+)$')
  records[flat[i]] = { held = tonumber(a), endsAt = tonumber(b), demand = tonumber(c) }
end
local function liveHeld()
  local sum = 0
  for _, r in pairs(records) do
    if now <= r.endsAt + graceMs then sum = sum + r.held end
  end
  return sum
end

-- The window: at its end the bucket is full again less what running leases hold; ended leases'
-- records go (they settle for nothing). Never answered: a continuous refill, leases left out.
if resetAt > 0 then
  if now >= resetAt then
    tokens = math.max(0, cap - liveHeld())
    resetAt = 0
    epoch = epoch + 1
    for name, r in pairs(records) do
      if now > r.endsAt + graceMs then
        records[name] = nil
        redis.call('HDEL', KEYS[2], name)
      end
    end
  end
elseif now > ts then
  tokens = math.max(tokens, math.min(cap - liveHeld(), tokens + (now - ts) * cap / windowMs))
end
if now > ts then ts = now end

-- The answer the replica reports: Remaining less what the reporter held or had in flight then is
-- at most what no replica holds (what others spent behind Weft's back comes off; only lowers).
local answered = false
if limit >= 1 then
  cap = math.min(cfgCap, limit)
  tokens = math.min(tokens, cap)
  answered = true
end
if remaining >= 0 then
  tokens = math.min(tokens, math.max(0, remaining - outstanding))
  answered = true
end
if resetMs >= 0 then resetAt = now + resetMs end
if blockMs >= 0 then
  tokens = 0
  resetAt = now + math.min(math.max(1, blockMs), windowMs)
  answered = true
end
-- An answer without RateLimit headers confirms the view all the same.
if ARGV[29] == '1' then answered = true end
-- The probe ended without an answer that says anything (no answer, or a refused token's 401):
-- the next call may probe.
if ARGV[30] == '1' then probeUntil = 0 end
if answered then
  probeUntil = 0
  local freshFor = staleAfterMs
  if resetAt > 0 then freshFor = math.min(resetAt - now, staleAfterMs) end
  freshUntil = now + freshFor
end

-- The asker's own lease: an ended one settles (what it did not spend comes back, never more than
-- it was granted); a live one is carried; one this Redis does not know (a failover lost it) is
-- re-registered: its tokens are the holder's, not the bucket's. Tokens it spent out of a give-back
-- that crossed a call (its debt) come off.
local mine = records[replica]
records[replica] = nil
if mine then
  if live then
    held = math.min(held, mine.held)
  else
    tokens = tokens + math.max(0, math.min(mine.held, held))
    held = 0
  end
elseif live then
  tokens = math.max(0, tokens - held)
else
  held = 0
end
tokens = math.max(0, tokens - debt)

-- What the others hold: their live leases (for the shares), and every record of theirs, ended ones
-- included, whose unspent tokens come back only when their holders settle them (for the reply).
local othersHeld, othersDemand, holders, othersRecorded = 0, 0, 1, 0
for _, r in pairs(records) do
  othersRecorded = othersRecorded + r.held
end
for _, r in pairs(records) do
  if now <= r.endsAt + graceMs then
    othersHeld = othersHeld + r.held
    othersDemand = othersDemand + r.demand
    holders = holders + 1
  end
end
drain = drain * math.exp(-math.max(0, now - drainAt) / tauMs)
local writeReserve = math.floor(cap * reserveShare)
local fresh = now < freshUntil

local grant, carried, durationMs, probing = 0, 0, 0, 0
if op == 'lease' then
  -- leaseOf: the lease's length, what it should hold, what the asker keeps, and grantOf the rest.
  local totalDemand = math.max(othersDemand + demand, drain)
  local aboveReserve = tokens - writeReserve
  local capMs = maxLeaseMs
  if totalDemand > 0 then
    capMs = math.min(maxLeaseMs, math.max(minLeaseMs, math.max(0, aboveReserve) / totalDemand * 1000 * poolTimeShare))
  end
  durationMs = math.min(askedMs, capMs)
  local nearReserve = aboveReserve <= singlesBelow * holders
  local target = waiting
  if not nearReserve then target = waiting + math.max(0, math.floor(demand * durationMs / 1000)) end
  carried = math.max(0, math.min(held, target))
  tokens = tokens + (held - carried)
  local want = math.min(ask, target - carried)
  local free = math.floor(tokens - floor)
  if want >= 1 and free >= 1 then
    local single = 0
    if waiting >= 1 then single = 1 end
    local above = math.max(0, math.floor(tokens - writeReserve))
    if not fresh then
      -- Nothing has said lately what is left (another client may have spent it, or Redis came
      -- back empty): one call goes out, whose answer says, and the others wait for it.
      if probeUntil > now then
        probing = 1
      elseif single == 1 then
        grant = 1
        probeUntil = now + probeMs
      end
    elseif above <= singlesBelow * holders then
      grant = single
    else
      local totalNow = othersDemand + demand
      local share = 1 / holders
      if totalNow > 0 then share = demand / totalNow end
      local fair = math.floor((above + othersHeld + carried) * share) - carried
      if carried < 1 then fair = math.max(fair, single) end
      local slice = math.max(1, math.floor(free * maxShareOfFree))
      local forDemand = waiting + math.ceil(demand * maxLeaseMs / 1000) + 1
      grant = math.max(0, math.min(want, free, slice, forDemand, fair))
    end
  end
  tokens = tokens - grant
  drain = drain + grant * 1000 / tauMs
  local newHeld = carried + grant
  if newHeld > 0 then
    redis.call('HSET', KEYS[2], replica, newHeld .. ' ' .. (now + durationMs) .. ' ' .. demand)
    redis.call('PEXPIRE', KEYS[2], windowMs * 2)
  else
    redis.call('HDEL', KEYS[2], replica)
  end
elseif mine then
  -- peek: the asker's record is untouched.
  records[replica] = mine
end

if op ~= 'peek' then
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(ts), 'resetAt', tostring(resetAt), 'cap', tostring(cap), 'freshUntil', tostring(freshUntil), 'drain', tostring(drain), 'drainAt', tostring(now), 'epoch', tostring(epoch), 'probeUntil', tostring(probeUntil))
  local ttl = windowMs * 2
  if resetAt > 0 then ttl = math.max(ttl, resetAt - now + windowMs) end
  redis.call('PEXPIRE', KEYS[1], math.ceil(ttl))
end

-- Until the window's end; never answered, until the bucket is full (a full one: a whole window,
-- which the next call starts). And the wait until a token above the asker's floor is free.
local resetIn = windowMs
local waitIn = 0
if resetAt > 0 then
  resetIn = resetAt - now
  waitIn = resetIn
elseif tokens < cap then
  resetIn = math.ceil((cap - tokens) * windowMs / math.max(1, cap))
  waitIn = math.ceil(math.max(0, floor + 1 - tokens) * windowMs / math.max(1, cap))
end
local freshFlag = 0
if fresh then freshFlag = 1 end
return { grant, carried, math.floor(math.max(0, tokens)), cap, math.max(0, math.ceil(resetIn)), durationMs, freshFlag, othersRecorded, math.max(0, math.ceil(waitIn)), probing }
`;
