/**
 * What a domain asks the shared pollers to watch, and what each subscriber hears back. The upstream
 * has no events, so the gateway polls: a watch names one read of a resource through the upstream
 * client (it spends the same per-credential budget as every other call), when the resource is
 * done, and which states are the same.
 */
import type { LedgerReport } from '../upstream/upstream-ledger.ts';

export interface WatchSpec<T> {
  /** Identity of the poller: credential id + resource kind + ids. */
  readonly key: string;
  /**
   * The credential's HMAC id (never its token): across replicas, the hash tag of the watch's Redis
   * keys, so that one credential's watches share a slot.
   */
  readonly credentialId: string;
  /** One read of the resource through the upstream client. */
  readonly poll: (signal: AbortSignal) => Promise<T>;
  readonly isTerminal: (state: T) => boolean;
  /** Equal fingerprints are the same state (pushed once); default: JSON. */
  readonly fingerprint?: (state: T) => string;
}

/**
 * An event's ledger (docs/budget.md). `relayed`: the polls listed were made by the replica holding
 * the watch's lease, and this replica passed their result on (it made no poll of its own).
 */
export type EventLedger = LedgerReport & { readonly relayed?: true };

export type WatchEvent<T> = (
  | { readonly kind: 'state'; readonly state: T }
  | { readonly kind: 'error'; readonly error: unknown }
) & {
  /** The polls this event took (since the previous one): its ledger (docs/budget.md). */
  readonly upstream?: EventLedger;
};
