/** The variables a deployment sets: the first table of docs/configuration.md. */
import { z } from 'zod';
import { configGroup } from '../config-group.ts';
import { httpUrl, int } from '../values.ts';

const PROXY_ADDRESSES =
  /^(true|[0-9A-Fa-f]*[.:][0-9A-Fa-f.:]*(\/\d{1,3})?(,[0-9A-Fa-f]*[.:][0-9A-Fa-f.:]*(\/\d{1,3})?)*)$/;
const ORIGINS = /^(none|(https?:\/\/[A-Za-z0-9.*[\]:-]+)(,https?:\/\/[A-Za-z0-9.*[\]:-]+)*)$/;

export const ESSENTIALS = configGroup(
  'Set these',
  'Production sets the first four; behind a load balancer, TRUST_PROXY; replicas, the last two. The rest have defaults.',
  {
    NODE_ENV: z
      .enum(['development', 'production', 'test'])
      .default('development')
      .describe('`production` refuses to guess an upstream or run unsafe settings.'),
    UPSTREAM_URL: httpUrl()
      .optional()
      .describe(
        "The provider's API base: scheme and host, no path ([provider](provider.md)). Unset outside production: the embedded simulator.",
      ),
    PORT: int(0, 65_535).default(4000).describe('HTTP port (`0`: any free port).'),
    CORS_ORIGINS: z
      .string()
      .regex(
        ORIGINS,
        'must be none, or origins separated by commas (https://app.example.com, https://*.example.com, http://localhost:*)',
      )
      .optional()
      .describe(
        'Web origins whose pages may call the graph: exact, or `*` for a host label or port; `none`. Unset: none in production, localhost otherwise.',
      ),
    TRUST_PROXY: z
      .string()
      .regex(PROXY_ADDRESSES, 'must be `true` or a comma-separated list of proxy addresses/CIDRs')
      .optional()
      .describe(
        "Your balancers' addresses/CIDRs, whose `X-Forwarded-For` names the client (`true`: any, not in production).",
      ),
    REDIS_URL: z
      .string()
      .url()
      .refine((u) => /^rediss?:\/\//.test(u), 'must be a redis:// or rediss:// URL')
      .optional()
      .describe(
        'Redis for what replicas share: budgets, cache, idempotency, persisted queries, leases ([replicas](replicas.md)). Unset: all in memory.',
      ),
    CREDENTIAL_HMAC_SECRET: z
      .string()
      .min(16)
      .optional()
      .describe(
        'Key of the HMAC that turns a token into an id. Required with Redis, the same on every replica; else random.',
      ),
  },
);
