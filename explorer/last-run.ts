/**
 * The last operation the explorer ran and the ledger its response carried, for the ledger panel:
 * the fetcher writes it, the panel follows it (React's external-store protocol). The panel may be
 * closed while an operation runs, so this lives outside it.
 */
import type { Ledger } from './ledger.ts';
import type { ArrivedPart, Delivery } from './response-parts.ts';

export interface LastRun {
  /** The operation's name, or `anonymous`. */
  readonly operation: string;
  /** When it was sent (ms since the epoch). */
  readonly startedAt: number;
  /** `running` until the response (a stream: its first event) arrives. */
  readonly state: 'running' | 'done' | 'failed';
  /** The ledger of the response; of a stream, its latest event's. Undefined: none came. */
  readonly ledger: Ledger | undefined;
  /** Events of a stream with a ledger so far (1 for a plain response). */
  readonly events: number;
  /** How the answer came: one response, parts (`@defer`, `@stream`), or a subscription's events. */
  readonly delivery: Delivery;
  /** Parts or events that arrived so far (all of them, even beyond those kept in `parts`). */
  readonly arrived: number;
  /** The latest of them, at most `KEPT_PARTS` (response-parts.ts), in order. */
  readonly parts: readonly ArrivedPart[];
  /** More is to come: a part said `hasNext`, or the stream is still open. */
  readonly more: boolean;
}

export interface LastRunStore {
  get(): LastRun | undefined;
  set(run: LastRun): void;
  subscribe(listener: () => void): () => void;
}

export function createLastRunStore(): LastRunStore {
  let last: LastRun | undefined;
  let listeners: (() => void)[] = [];
  return {
    get: () => last,
    set(run) {
      last = run;
      for (const listener of [...listeners]) listener();
    },
    subscribe(listener) {
      listeners.push(listener);
      return () => {
        listeners = listeners.filter((other) => other !== listener);
      };
    },
  };
}
