/** Settings for the embedded simulator and for benchmarks: never needed in production. */
import { z } from 'zod';
import { configGroup } from '../config-group.ts';
import { onOff } from '../switches.ts';
import { int } from '../values.ts';

export const SIMULATOR = configGroup(
  'Simulator',
  'Read with UPSTREAM=embedded and by `npm run simulator` ([simulator](simulator.md)).',
  {
    SIM_LATENCY_MS: int(0, 60_000).default(0).describe('Latency added to every answer.'),
    SIM_RATE_LIMIT: int(1).default(600).describe('Requests per window per credential.'),
    SIM_RATE_WINDOW_SEC: int(1).default(1399).describe('The window, seconds.'),
    SIM_FAULT_RATE: z.coerce
      .number()
      .min(0)
      .max(1)
      .default(0)
      .describe('Share of answers that fail with a 5xx (0–1).'),
  },
);

export const DEVELOPMENT = configGroup(
  'Development',
  'For benchmarks and debugging ([performance](performance.md)).',
  {
    UPSTREAM_LIMITER: onOff('on').describe(
      'The budget in front of every upstream call; `off` is refused in production.',
    ),
    UPSTREAM_CACHE: onOff('on').describe('The upstream cache and the one-fetch-per-read sharing.'),
  },
);
