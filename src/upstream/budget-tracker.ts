/**
 * What the gateway knows of each credential's upstream budget, from the `RateLimit-*` headers of the
 * latest response. `viewer.rateLimit` reads it without an upstream call.
 */
import type { Credential } from './credential.js';
import type { RateLimitHeaders } from './upstream-call.js';

export interface BudgetSnapshot {
  limit: number;
  remaining: number;
  resetSec: number;
}

export interface BudgetTracker {
  record(credentialId: string, headers: RateLimitHeaders): void;
  snapshot(credential: Credential): BudgetSnapshot;
}

export function createBudgetTracker(
  defaults: { limit: number; windowSec: number },
  now: () => number = Date.now,
): BudgetTracker {
  const seen = new Map<string, { limit: number; remaining: number; resetAt: number }>();
  return {
    record(credentialId, headers) {
      seen.set(credentialId, {
        limit: headers.limit,
        remaining: headers.remaining,
        resetAt: now() + headers.resetSec * 1000,
      });
      // Bounded: forget the oldest credential once many have been seen.
      if (seen.size > 10_000) seen.delete(seen.keys().next().value as string);
    },
    snapshot(credential) {
      const entry = seen.get(credential.id);
      if (!entry || entry.resetAt <= now()) {
        return { limit: defaults.limit, remaining: defaults.limit, resetSec: defaults.windowSec };
      }
      return {
        limit: entry.limit,
        remaining: entry.remaining,
        resetSec: Math.max(0, Math.ceil((entry.resetAt - now()) / 1000)),
      };
    },
  };
}
