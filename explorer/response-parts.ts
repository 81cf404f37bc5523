/**
 * What arrived of the last run, piece by piece, for the footer's "As it arrived" line
 * (docs/explorer.md "Subscriptions and @defer"). GraphiQL's response editor shows one merged result —
 * the parts of a `@defer` answer merged as they come, a subscription's latest event — so the
 * pieces themselves, and when each came, are noted here: a deferred answer's first part and each
 * deferred fragment (its label and path), a subscription's events. Read from the wire format
 * (`deferSpec=20220824`: a first part with `hasNext`, then parts with `incremental` entries), not
 * from a server type.
 */

/** How the last run's answer came: one response, parts of a `@defer` answer, or stream events. */
export type Delivery = 'single' | 'parts' | 'events';

/** A deferred fragment delivered in a part: its `@defer(label:)` and where it goes. */
export interface ArrivedFragment {
  readonly label: string | undefined;
  /** The path of the object it completes, dotted (`apps.0`); `(root)` for the operation's root. */
  readonly path: string;
}

export interface ArrivedPart {
  /** Its number in the run, from 1. */
  readonly index: number;
  /** Milliseconds after the request was sent. */
  readonly atMs: number;
  /** `first`: a deferred answer's first part; `deferred`: a later one; `event`: a subscription's. */
  readonly kind: 'first' | 'deferred' | 'event';
  /** The deferred fragments this part completes (a `deferred` part only). */
  readonly fragments: readonly ArrivedFragment[];
  /** Errors the part carries (its own, and its fragments'). */
  readonly errors: number;
}

/** Parts kept per run: a long subscription keeps its latest ones (the count goes on). */
export const KEPT_PARTS = 50;
/** Fragments named per part; the rest are counted. */
export const NAMED_FRAGMENTS = 8;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const countOf = (value: unknown): number => (Array.isArray(value) ? value.length : 0);

function fragmentOf(entry: Record<string, unknown>): ArrivedFragment {
  const path = Array.isArray(entry.path) ? entry.path.map(String).join('.') : '';
  return {
    label: typeof entry.label === 'string' ? entry.label : undefined,
    path: path === '' ? '(root)' : path,
  };
}

/**
 * One arrived piece as the footer shows it. `index` is its number in the run; a first part is the
 * one without `incremental` entries that comes first.
 */
export function readPart(
  result: unknown,
  delivery: Exclude<Delivery, 'single'>,
  index: number,
  atMs: number,
): ArrivedPart {
  const body = isObject(result) ? result : {};
  if (delivery === 'events') {
    return { index, atMs, kind: 'event', fragments: [], errors: countOf(body.errors) };
  }
  const entries = Array.isArray(body.incremental) ? body.incremental.filter(isObject) : [];
  if (index === 1 && entries.length === 0) {
    return { index, atMs, kind: 'first', fragments: [], errors: countOf(body.errors) };
  }
  return {
    index,
    atMs,
    kind: 'deferred',
    fragments: entries.map(fragmentOf),
    errors: entries.reduce((sum, entry) => sum + countOf(entry.errors), countOf(body.errors)),
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

/** The fragments of a part as one line: `"deployments" at apps.0, apps.1 +3 more`. */
export function describeFragments(fragments: readonly ArrivedFragment[]): string {
  const byLabel = new Map<string, string[]>();
  for (const fragment of fragments) {
    const label = fragment.label === undefined ? 'unlabelled' : `"${fragment.label}"`;
    const paths = byLabel.get(label) ?? [];
    paths.push(fragment.path);
    byLabel.set(label, paths);
  }
  return [...byLabel.entries()]
    .map(([label, paths]) => {
      const named = paths.slice(0, NAMED_FRAGMENTS).join(', ');
      const more = paths.length > NAMED_FRAGMENTS ? ` +${paths.length - NAMED_FRAGMENTS} more` : '';
      return `${label} at ${named}${more}`;
    })
    .join('; ');
}
