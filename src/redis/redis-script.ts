/**
 * A Lua script run by its SHA (`EVALSHA`, the SHA computed here, no `SCRIPT LOAD`, which on a
 * cluster reaches one random node): a node that answers `NOSCRIPT` — restarted, flushed, a replica
 * just promoted, one that never ran it — gets the script itself once (`EVAL`, which also keeps it).
 */
import { createHash } from 'node:crypto';
import type { RedisClient } from './redis-connection.ts';

export interface RedisScript {
  run(client: RedisClient, keys: string[], args: string[]): Promise<unknown>;
}

export function redisScript(lua: string): RedisScript {
  const sha = createHash('sha1').update(lua).digest('hex');
  return {
    async run(client, keys, args) {
      try {
        return await client.evalSha(sha, { keys, arguments: args });
      } catch (error) {
        if (!/NOSCRIPT/.test((error as Error).message)) throw error;
        return client.eval(lua, { keys, arguments: args });
      }
    },
  };
}

/**
 * Lua: `local now`, in ms — the caller's time in ARGV[argument] when it gives one (a test's clock),
 * else Redis's own `TIME`, which every replica shares whatever its own clock says.
 */
export const luaNow = (argument: number): string => `local now = tonumber(ARGV[${argument}])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end`;
