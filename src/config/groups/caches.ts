/** The two caches: upstream reads, and whole responses replayed per credential. */
import { configGroup } from '../config-group.ts';
import { flag } from '../switches.ts';
import { int, ttlOverrides } from '../values.ts';

export const CACHES = configGroup(
  'Caches',
  'The upstream cache keeps reads per credential; the response cache replays whole answers ([budget](budget.md)).',
  {
    CACHE_MAX_BYTES: int(1024 * 1024)
      .default(32 * 1024 * 1024)
      .describe('Size of the in-memory upstream cache (LRU); unused with Redis.'),
    CACHE_STALE_MAX_AGE_SEC: int(0, 86_400)
      .default(600)
      .describe('How old a cached read may be when served because the upstream failed.'),
    CACHE_TTL_OVERRIDES: ttlOverrides()
      .optional()
      .transform((overrides) => overrides ?? (new Map() as ReadonlyMap<string, number>))
      .describe(
        'Per-kind TTLs, `kind=seconds,…` (e.g. `app=10,store=300`); the kinds are in [budget](budget.md#caches).',
      ),
    RESPONSE_CACHE: flag('on').describe(
      'Replay a whole query response when every upstream read it made was cached.',
    ),
    RESPONSE_CACHE_MAX_PER_CREDENTIAL: int(1, 1_000_000)
      .default(2_000)
      .describe('Whole responses one credential holds for replay; one more forgets the oldest.'),
  },
);
