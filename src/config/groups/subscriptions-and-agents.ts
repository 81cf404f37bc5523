/** Two ways clients hold on to the gateway: subscriptions (polling the upstream) and MCP agents. */
import { z } from 'zod';
import { configGroup } from '../config-group.ts';
import { onOff } from '../switches.ts';
import { int } from '../values.ts';

export const SUBSCRIPTIONS = configGroup(
  'Subscriptions',
  'Subscriptions poll the upstream for the resource they watch ([graph](graph.md)).',
  {
    SUBSCRIPTION_POLL_MIN_MS: int(50, 60_000)
      .default(500)
      .describe('First poll interval; it backs off towards the max while nothing changes.'),
    SUBSCRIPTION_POLL_MAX_MS: int(50, 300_000).default(5_000).describe('Longest poll interval.'),
    SUBSCRIPTION_MAX_LIFETIME_MS: int(1_000)
      .default(15 * 60_000)
      .describe('A watch whose resource never reaches a final state stops after this long.'),
    SUBSCRIPTION_SHARED_POLLING: z
      .enum(['replicas', 'process'])
      .default('replicas')
      .describe(
        'With Redis, `replicas`: one poll loop per watched resource for all replicas; `process`: one each.',
      ),
  },
);

export const AGENTS = configGroup(
  'Agents (MCP)',
  'The MCP endpoint for AI agents ([agents](agents.md)).',
  {
    MCP: onOff('off').describe('The MCP endpoint at `POST /mcp`: the chosen operations as tools.'),
    MCP_OPERATIONS_DIR: z
      .string()
      .min(1)
      .optional()
      .describe(
        'A folder of `.graphql` files whose operations become the tools (`examples/mcp`). Unset: the trusted manifest.',
      ),
    MCP_PRIORITY: z
      .enum(['user', 'background', 'explorer'])
      .default('background')
      .describe("The priority of the tools' upstream calls ([budget](budget.md#priorities))."),
  },
);
