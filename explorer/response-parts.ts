/**
 * What arrived of the last run, piece by piece, for the footer's "As it arrived" line
 * (docs/try-it.md "The explorer"). GraphiQL's response editor shows one
 * merged result — the parts of an answer in parts merged as they come, a subscription's latest event
 * — so the pieces themselves, and when each came, are noted here: an answer's first part, each
 * deferred fragment (its label and path) and each batch of a streamed list's items (its label, the
 * list's path, how many), a subscription's events. Read from the wire, in either incremental format
 * Weft writes: `deferSpec=20220824` (entries with their `path`; a streamed item's path ends in its
 * index) and `incrementalSpec=v0.2` (entries with the `id` of a `pending` record that gave the path
 * and label) — not from a server type.
 */

/** How the last run's answer came: one response, parts (`@defer`, `@stream`), or stream events. */
export type Delivery = 'single' | 'parts' | 'events';

/** What a later part delivers: a deferred fragment, or items of a streamed list. */
export type ArrivedPiece =
  | {
      readonly kind: 'fragment';
      readonly label: string | undefined;
      /** The path of the object it completes, dotted (`apps.0`); `(root)` for the operation's root. */
      readonly path: string;
    }
  | {
      readonly kind: 'items';
      readonly label: string | undefined;
      /** The path of the list, dotted (`store.transactions.edges`). */
      readonly path: string;
      /** How many of its items this part brings. */
      readonly count: number;
    };

export interface ArrivedPart {
  /** Its number in the run, from 1. */
  readonly index: number;
  /** Milliseconds after the request was sent. */
  readonly atMs: number;
  /** `first`: an answer's first part; `later`: one after it; `event`: a subscription's. */
  readonly kind: 'first' | 'later' | 'event';
  /** The deferred fragments and streamed items this part brings (a `later` part only). */
  readonly pieces: readonly ArrivedPiece[];
  /** Errors the part carries (its own, its entries', and those of what failed as a whole). */
  readonly errors: number;
}

/** Parts kept per run: a long subscription keeps its latest ones (the count goes on). */
export const KEPT_PARTS = 50;
/** Paths named per label; the rest are counted. */
export const NAMED_FRAGMENTS = 8;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const countOf = (value: unknown): number => (Array.isArray(value) ? value.length : 0);

const dotted = (path: readonly unknown[]): string =>
  path.length === 0 ? '(root)' : path.map(String).join('.');

interface Pending {
  readonly path: readonly unknown[];
  readonly label: string | undefined;
}

/**
 * Reads the pieces of one run: the `pending` records of the v0.2 format are remembered from part to
 * part (a later part names them only by id).
 */
export function createPartReader() {
  const pending = new Map<string, Pending>();

  const pieceOf = (entry: Record<string, unknown>): ArrivedPiece => {
    const known = typeof entry.id === 'string' ? pending.get(entry.id) : undefined;
    const label = known ? known.label : typeof entry.label === 'string' ? entry.label : undefined;
    const subPath = Array.isArray(entry.subPath) ? entry.subPath : [];
    const path = known
      ? [...known.path, ...subPath]
      : Array.isArray(entry.path)
        ? (entry.path as unknown[])
        : [];
    if (!Array.isArray(entry.items)) return { kind: 'fragment', label, path: dotted(path) };
    // The 2022 format names the item's own path, its index last; v0.2 the list's.
    const listPath = known ? path : path.slice(0, -1);
    return { kind: 'items', label, path: dotted(listPath), count: entry.items.length };
  };

  return {
    /**
     * One arrived piece as the footer shows it. `index` is its number in the run; a first part is
     * the one without `incremental` entries that comes first.
     */
    read(
      result: unknown,
      delivery: Exclude<Delivery, 'single'>,
      index: number,
      atMs: number,
    ): ArrivedPart {
      const body = isObject(result) ? result : {};
      if (delivery === 'events') {
        return { index, atMs, kind: 'event', pieces: [], errors: countOf(body.errors) };
      }
      for (const record of Array.isArray(body.pending) ? body.pending.filter(isObject) : []) {
        if (typeof record.id !== 'string') continue;
        pending.set(record.id, {
          path: Array.isArray(record.path) ? record.path : [],
          label: typeof record.label === 'string' ? record.label : undefined,
        });
      }
      const entries = Array.isArray(body.incremental) ? body.incremental.filter(isObject) : [];
      const completed = Array.isArray(body.completed) ? body.completed.filter(isObject) : [];
      if (index === 1 && entries.length === 0) {
        return { index, atMs, kind: 'first', pieces: [], errors: countOf(body.errors) };
      }
      const errors = [...entries, ...completed].reduce(
        (sum, entry) => sum + countOf(entry.errors),
        countOf(body.errors),
      );
      return { index, atMs, kind: 'later', pieces: entries.map(pieceOf), errors };
    },
  };
}

/** Whether more parts are announced after this one (`hasNext: true`). */
export function announcesMore(result: unknown): boolean {
  return isObject(result) && result.hasNext === true;
}

/** A multipart answer is yielded as a list of parts per chunk, or as one part with `hasNext`. */
export function isIncremental(result: unknown): boolean {
  return Array.isArray(result) || (isObject(result) && 'hasNext' in result);
}

const nameOf = (label: string | undefined) => (label === undefined ? 'unlabelled' : `"${label}"`);
const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/**
 * The pieces of a part as one line: fragments by label (`"deployments" at apps.0, apps.1 +3 more`),
 * items by list (`"page": 3 items at store.transactions.edges`).
 */
export function describePieces(pieces: readonly ArrivedPiece[]): string {
  const fragments = new Map<string, string[]>();
  const items = new Map<string, { label: string; path: string; count: number }>();
  for (const piece of pieces) {
    const label = nameOf(piece.label);
    if (piece.kind === 'fragment') {
      const paths = fragments.get(label) ?? [];
      paths.push(piece.path);
      fragments.set(label, paths);
      continue;
    }
    const key = `${label} ${piece.path}`;
    const known = items.get(key);
    if (known) known.count += piece.count;
    else items.set(key, { label, path: piece.path, count: piece.count });
  }
  return [
    ...[...fragments.entries()].map(([label, paths]) => {
      const named = paths.slice(0, NAMED_FRAGMENTS).join(', ');
      const more = paths.length > NAMED_FRAGMENTS ? ` +${paths.length - NAMED_FRAGMENTS} more` : '';
      return `${label} at ${named}${more}`;
    }),
    ...[...items.values()].map(
      ({ label, path, count }) => `${label}: ${plural(count, 'item')} at ${path}`,
    ),
  ].join('; ');
}
