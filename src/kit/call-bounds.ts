/**
 * What the upstream-call bound of an operation needs to know about each field (docs/budget.md):
 * declared by the domain next to its routes (`<domain>/<domain>.call-bounds.ts`), assembled by
 * `graph/call-bounds.ts`, read by `server/demand-control/upstream-call-bound.ts`. Every field whose resolver
 * may call the upstream has a declaration (a test lists the schema's resolvers against them), so a
 * new field cannot be added without saying what it costs.
 *
 * A declaration is an upper bound, never an estimate: with an empty cache, executing the field for
 * the parents the bound was given never makes more calls than it says.
 */

/** A field's argument values, as execution will see them (variables and defaults applied). */
export type FieldArgs = Readonly<Record<string, unknown>>;

/** How many upstream calls resolving a field makes, at most. */
export type CallCount = number | ((args: FieldArgs) => number);

export interface FieldCallBound {
  /** Calls per parent object the field is resolved for (0: answered from the parent's data). */
  readonly calls: CallCount;
  /**
   * The calls are made by a per-request loader whose key does not depend on the parent (e.g. "the
   * store's channels" for one store): however many parents ask, the request makes them once.
   */
  readonly oncePerRequest?: boolean;
  /**
   * A loader batches the parents' keys: `calls` per batch of at most this many parents, instead
   * of per parent.
   */
  readonly batchSize?: number;
  /**
   * For a list, or a connection whose lists sit below it: how many items it holds at most — from
   * its paging arguments, else the documented maximum of the upstream's page.
   */
  readonly items?: CallCount;
  /**
   * The list is not paged: `items` is an assumed maximum, not one the arguments set. Its real
   * length, known when it arrives, refines the bound of what is still to run (docs/budget.md).
   */
  readonly unpaged?: boolean;
  /**
   * Fields of one group share one load per parent (e.g. every detail field of a certificate reads
   * the one detail its loader fetched): selected together on one parent, they count once.
   */
  readonly group?: string;
  /**
   * The objects this field returns already hold what this group loads (a read of one certificate
   * returns its detail): their fields of the group count nothing.
   */
  readonly provides?: string;
}

/** Declarations by `Type.field` (the gateway's schema names, after stitching's renames). */
export type CallBoundDeclarations = Readonly<Record<string, FieldCallBound>>;

/** The value of a count for these arguments. */
export const countOf = (count: CallCount, args: FieldArgs): number =>
  typeof count === 'number' ? count : count(args);

/** A non-negative integer argument, or `fallback` when absent (null or not a number). */
export function intArg(args: FieldArgs, name: string, fallback: number): number {
  const value = args[name];
  return typeof value === 'number' && Number.isFinite(value)
    ? Math.max(0, Math.floor(value))
    : fallback;
}

/** A field answered from its parent's data: no call. */
export const FREE: FieldCallBound = { calls: 0 };

/** One call per parent. */
export const ONE_CALL: FieldCallBound = { calls: 1 };
