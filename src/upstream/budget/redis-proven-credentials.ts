/**
 * Tokens the upstream has accepted, known to every replica (with Redis): a tenant proven on one
 * replica is not an unproven token on another (`unproven-gate.ts`), so a flood of junk there cannot
 * hold it back. One key per credential, by its HMAC id only: `<prefix>:proven:{<credentialId>}`,
 * kept {@link PROVEN_TTL_MS} after the last replica that learnt it said so.
 *
 * Asked only for a credential this replica has not seen accepted (one `EXISTS`, then remembered in
 * memory); Redis unusable, slow past its command timeout or failing answers "not known", and the
 * credential proves itself with one call as it would without Redis.
 */
import type { RedisConnection } from '../../redis/redis-connection.ts';
import type { SharedProof } from './unproven-gate.ts';
import { redisKeys } from '../../redis/redis-keys.ts';

/** How long an accepted token stays known without a replica seeing it accepted again. */
export const PROVEN_TTL_MS = 24 * 60 * 60 * 1000;

export function createRedisProvenCredentials(redis: RedisConnection, prefix: string): SharedProof {
  const keyOf = (credentialId: string) => redisKeys.proven(prefix, credentialId);
  return {
    async has(credentialId) {
      try {
        if (!(await redis.usable())) return false;
        return (await redis.client.exists(keyOf(credentialId))) === 1;
      } catch {
        return false;
      }
    },
    remember(credentialId) {
      redis
        .usable()
        .then((usable) =>
          usable
            ? redis.client.set(keyOf(credentialId), '1', {
                expiration: { type: 'PX', value: PROVEN_TTL_MS },
              })
            : undefined,
        )
        .catch(() => undefined);
    },
  };
}
