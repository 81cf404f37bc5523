/**
 * The parts of one execution in the `incrementalSpec=v0.2` format (graphql-js 17.0.0-alpha.9's, read
 * by Apollo Client 4's `GraphQL17Alpha9Handler`), from the executor's 2022 format:
 * - every part lists in `pending` the deferred fragments and streamed lists its data opens, each
 *   with an `id`, its `path` and `label` (found by the markers of pending-markers.ts);
 * - a deferred fragment's data comes as `incremental: [{ id, data }]` with `completed: [{ id }]` in
 *   the same part; a streamed list's items as `incremental: [{ id, items }]` (the items of one list
 *   that are ready together in one entry), and `completed: [{ id }]` once no more can come — with
 *   the executor's 2022 parts, which never say that a list is over, in the last part;
 * - a fragment or a list that failed as a whole (a non-null field or item was null) comes as
 *   `completed: [{ id, errors }]`, without data.
 * The execution is the same as for the 2022 format; only what is written differs.
 */
import type {
  GraphQLExperimentalFormattedCompletedResultAlpha9 as Completed,
  GraphQLExperimentalFormattedIncrementalDeferResultAlpha9 as DeferEntry,
  GraphQLExperimentalFormattedIncrementalStreamResultAlpha9,
  GraphQLExperimentalFormattedInitialIncrementalExecutionResultAlpha2 as Initial2022,
  GraphQLExperimentalFormattedInitialIncrementalExecutionResultAlpha9 as Initial,
  GraphQLExperimentalPendingResultAlpha9 as Pending,
  GraphQLExperimentalFormattedSubsequentIncrementalExecutionResultAlpha2 as Part2022,
  GraphQLExperimentalFormattedSubsequentIncrementalExecutionResultAlpha9 as Part,
} from '@apollo/server';
import type { GraphQLFormattedError } from 'graphql';
import {
  directiveArguments,
  takeMarkers,
  type FoundMarker,
  type MarkedDocument,
} from './pending-markers.ts';

type Path = readonly (string | number)[];
/**
 * An entry of `incremental`. (Apollo's `Alpha9` union gives a stream entry's `items` the type of a
 * deferred fragment's `data`, an object; they are a list.)
 */
type StreamEntry = GraphQLExperimentalFormattedIncrementalStreamResultAlpha9<unknown[]>;
type Entry = DeferEntry | StreamEntry;
/** A 2022 entry, either kind: a deferred fragment's `data`, or a streamed item's `items`. */
interface Entry2022 {
  readonly path?: Path;
  readonly label?: string;
  readonly data?: Record<string, unknown> | null;
  readonly items?: unknown[] | null;
  readonly errors?: readonly GraphQLFormattedError[];
  readonly extensions?: Record<string, unknown>;
}
type Kind = 'defer' | 'stream';
const isStreamEntry = (entry: Entry): entry is StreamEntry & { errors?: GraphQLFormattedError[] } =>
  'items' in entry;
const keyOf = (kind: Kind, path: Path, label: string | undefined) =>
  JSON.stringify([kind, path, label ?? null]);

/** What the client has been told is pending, by kind, path and label (their order kept). */
class PendingRecords {
  #nextId = 0;
  readonly #open = new Map<string, string[]>();
  /** Streams that failed: their later items are not written (the list ended with its error). */
  readonly #failed = new Set<string>();

  open(kind: Kind, path: Path, label: string | undefined): Pending {
    const id = String(this.#nextId++);
    const key = keyOf(kind, path, label);
    const ids = this.#open.get(key);
    if (ids) ids.push(id);
    else this.#open.set(key, [id]);
    return { id, path, ...(label === undefined ? {} : { label }) };
  }

  /**
   * The id of the first open record of this kind, path and label. Two records share all three
   * only when neither has a label, and nothing then tells the client which is which.
   */
  find(kind: Kind, path: Path, label: string | undefined): string | undefined {
    return this.#open.get(keyOf(kind, path, label))?.[0];
  }

  close(kind: Kind, path: Path, label: string | undefined, id: string): void {
    const key = keyOf(kind, path, label);
    const ids = this.#open.get(key)?.filter((open) => open !== id) ?? [];
    if (ids.length > 0) this.#open.set(key, ids);
    else this.#open.delete(key);
  }

  fail(kind: Kind, path: Path, label: string | undefined, id: string): void {
    this.close(kind, path, label, id);
    this.#failed.add(keyOf(kind, path, label));
  }

  failed(kind: Kind, path: Path, label: string | undefined): boolean {
    return this.#failed.has(keyOf(kind, path, label));
  }

  /** Every record still open (at the last part). */
  closeAll(): string[] {
    const ids = [...this.#open.values()].flat();
    this.#open.clear();
    return ids;
  }
}

export interface IncrementalSpecParts {
  readonly initialResult: Initial;
  readonly subsequentResults: AsyncGenerator<Part, void, void>;
}

export function inIncrementalSpec(
  initial: Initial2022,
  parts: AsyncIterable<Part2022>,
  marked: MarkedDocument,
  variables: Record<string, unknown> | undefined,
): IncrementalSpecParts {
  const records = new PendingRecords();

  /** The records a part's data opens, from the markers found in it. */
  const announce = (found: readonly FoundMarker[], pending: Pending[]) => {
    for (const { marked: directive, path, object } of found) {
      const { label, initialCount } = directiveArguments(directive, variables);
      if (directive.kind === 'defer') {
        pending.push(records.open('defer', path, label));
        continue;
      }
      // A list shorter than `initialCount` came whole; a null one has nothing to stream.
      const list = object[directive.responseKey!];
      if (Array.isArray(list) && list.length >= initialCount) {
        pending.push(records.open('stream', [...path, directive.responseKey!], label));
      }
    }
  };

  const { errors, data, extensions } = initial;
  const pending: Pending[] = [];
  announce(takeMarkers(data, [], marked.markers), pending);
  const initialResult: Initial = {
    ...(errors ? { errors } : {}),
    data: data as Initial['data'],
    pending,
    hasNext: true,
    ...(extensions ? { extensions } : {}),
  };

  async function* subsequentResults() {
    for await (const part of parts) {
      const pending: Pending[] = [];
      const incremental: Entry[] = [];
      const completed: Completed[] = [];
      for (const entry of part.incremental ?? []) {
        translate(entry as Entry2022, pending, incremental, completed);
      }
      if (!part.hasNext) for (const id of records.closeAll()) completed.push({ id });
      if (part.hasNext && !pending.length && !incremental.length && !completed.length) continue;
      yield {
        hasNext: part.hasNext,
        ...(pending.length ? { pending } : {}),
        ...(incremental.length ? { incremental } : {}),
        ...(completed.length ? { completed } : {}),
        ...(part.extensions ? { extensions: part.extensions } : {}),
      };
    }
  }

  /** One 2022 entry: a deferred fragment's data, or one streamed item (its path ends in its index). */
  function translate(
    entry: Entry2022,
    pending: Pending[],
    incremental: Entry[],
    completed: Completed[],
  ) {
    const path = entry.path ?? [];
    const label = entry.label;
    const errors = entry.errors;
    if ('items' in entry) {
      const listPath = path.slice(0, -1);
      // The executor may still deliver an item it had started before the list failed.
      if (records.failed('stream', listPath, label)) return;
      const id = idOf('stream', listPath, label, pending);
      if (entry.items == null) {
        // A non-null item was null: the list fails, and no item follows.
        completed.push({ id, ...(errors ? { errors } : {}) });
        records.fail('stream', listPath, label, id);
        return;
      }
      const first = path[path.length - 1] as number;
      const items = entry.items;
      items.forEach((item, offset) =>
        announce(takeMarkers(item, [...listPath, first + offset], marked.markers), pending),
      );
      const last = incremental[incremental.length - 1];
      if (last && last.id === id && isStreamEntry(last)) {
        // The next items of the same list, ready together: one entry, as graphql-js writes them.
        last.items.push(...items);
        if (errors) last.errors = [...(last.errors ?? []), ...errors];
      } else {
        incremental.push({ id, items: [...items], ...(errors ? { errors } : {}) });
      }
      return;
    }
    const id = idOf('defer', path, label, pending);
    records.close('defer', path, label, id);
    if (entry.data == null) {
      completed.push({ id, ...(errors ? { errors } : {}) });
      return;
    }
    announce(takeMarkers(entry.data, path, marked.markers), pending);
    incremental.push({
      id,
      data: entry.data,
      ...(errors ? { errors } : {}),
      ...(entry.extensions ? { extensions: entry.extensions } : {}),
    });
    completed.push({ id });
  }

  /**
   * The pending record an entry belongs to. One never announced (a case the markers do not foresee)
   * is announced in the part that delivers it, so the client can still place the data.
   */
  function idOf(kind: Kind, path: Path, label: string | undefined, pending: Pending[]): string {
    const id = records.find(kind, path, label);
    if (id !== undefined) return id;
    const opened = records.open(kind, path, label);
    pending.push(opened);
    return opened.id;
  }

  return {
    initialResult,
    subsequentResults: subsequentResults() as unknown as AsyncGenerator<Part, void, void>,
  };
}
