/**
 * The read-only view of a credential's upstream budget that the graph exposes
 * (`viewer { rateLimit }`, `RateLimit-*` response headers, `extensions.rateLimit`). It is answered
 * by the token bucket (`token-bucket.ts`), which every upstream call spends from and every upstream
 * response corrects: reading it never costs an upstream call.
 */
import type { Credential } from './credential.ts';

export interface BudgetSnapshot {
  /** Requests allowed per window (the configured limit, or the upstream's when lower). */
  readonly limit: number;
  /** Requests the gateway may still send in the current window. */
  readonly remaining: number;
  /**
   * Seconds until the window resets; before any upstream answer, until the bucket is full again, or
   * for a full bucket (no window running) the whole window.
   */
  readonly resetSec: number;
  /** Of `remaining`, the calls kept for writes: reads stop when only these are left. */
  readonly writeReserve: number;
}

export interface BudgetTracker {
  /** The credential's budget now, without spending from it. */
  snapshot(credential: Credential): Promise<BudgetSnapshot>;
}
