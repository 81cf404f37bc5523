/** Redis as replicas share it: where it is, its keys, its timeouts, one fetch across replicas. */
import { z } from 'zod';
import { configGroup } from '../config-group.ts';
import { onOff } from '../switches.ts';
import { int } from '../values.ts';

const REDIS_KEY_PREFIX_PATTERN = /^[A-Za-z0-9_.-]{1,32}$/;

export const REDIS = configGroup(
  'Redis and replicas',
  'Read with REDIS_URL or REDIS_CLUSTER_NODES ([replicas](replicas.md), [keys](redis-keys.md)).',
  {
    REDIS_CLUSTER_NODES: z
      .string()
      .transform((text) =>
        text
          .split(',')
          .map((node) => node.trim())
          .filter((node) => node !== ''),
      )
      .refine(
        (nodes) => nodes.length > 0 && nodes.every((node) => /^[^\s:/]+:\d{1,5}$/.test(node)),
        'must be host:port,host:port,… (the root nodes of the cluster)',
      )
      .optional()
      .describe(
        'A Redis Cluster instead of REDIS_URL: several of its nodes, `host:port,host:port`.',
      ),
    REDIS_KEY_PREFIX: z
      .string()
      .regex(
        REDIS_KEY_PREFIX_PATTERN,
        `must match ${REDIS_KEY_PREFIX_PATTERN.source} (1–32 letters, digits, "_", "." or "-")`,
      )
      .default('weft')
      .describe('Prefix of every key Weft writes; the replicas of one deployment share it.'),
    REDIS_CONNECT_TIMEOUT_MS: int(50, 60_000)
      .default(1_000)
      .describe('Connecting to Redis slower than this counts as Redis unreachable.'),
    REDIS_COMMAND_TIMEOUT_MS: int(10, 10_000)
      .default(200)
      .describe('A Redis command slower than this counts as Redis unreachable.'),
    UPSTREAM_CROSS_REPLICA_COALESCING: onOff('on').describe(
      'A cacheable read missed on several replicas at once is fetched by one; `off`: each fetches for itself.',
    ),
    UPSTREAM_COALESCING_LEASE_MS: int(100, 60_000)
      .default(2_000)
      .describe(
        'Lease of the replica fetching a read for the others; one that dies is replaced after this long.',
      ),
  },
);
