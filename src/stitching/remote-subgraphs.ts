/**
 * The three commerce GraphQL subgraphs stitched into the graph (commerce document, "GraphQL
 * endpoints"): where each one lives, whether it is store-scoped, and the prefix the name-collision
 * rule gives it (see name-collisions.ts).
 */

/** One remote subgraph. */
export interface RemoteSubgraph {
  /** Also the snapshot file name: `schema/remote/<name>.graphql`. */
  readonly name: 'catalog' | 'tax' | 'order';
  /** Prefix of a renamed type (`CatalogMoney`); lower-cased for a renamed root field (`catalogNode`). */
  readonly prefix: 'Catalog' | 'Tax' | 'Order';
  /** Route template of the POST that carries `{ query, variables, operationName }`. */
  readonly route: string;
  /**
   * Store-scoped subgraphs take the store in the path and in `x-store-id` (always the same value);
   * their root fields get an added `storeId` argument and are also reachable from `Store`.
   */
  readonly storeScoped: boolean;
}

/** Catalog: SKUs, SKU groups, categories (store-scoped; has a per-minute burst limit). */
export const CATALOG_SUBGRAPH: RemoteSubgraph = {
  name: 'catalog',
  prefix: 'Catalog',
  route: '/v2/commerce/stores/{storeId}/catalog-subgraph',
  storeScoped: true,
};

/** Tax: classifications, rates, areas, calculation (store-scoped). */
export const TAX_SUBGRAPH: RemoteSubgraph = {
  name: 'tax',
  prefix: 'Tax',
  route: '/v2/commerce/stores/{storeId}/tax-subgraph',
  storeScoped: true,
};

/** Orders (global: orders carry their store). */
export const ORDER_SUBGRAPH: RemoteSubgraph = {
  name: 'order',
  prefix: 'Order',
  route: '/v1/commerce/order-subgraph',
  storeScoped: false,
};

/** In a fixed order; the collision rule does not depend on it (no subgraph wins over another). */
export const REMOTE_SUBGRAPHS: readonly RemoteSubgraph[] = [
  CATALOG_SUBGRAPH,
  TAX_SUBGRAPH,
  ORDER_SUBGRAPH,
];

/** `schema/remote/` at the project root, from src/stitching. */
export const REMOTE_SCHEMA_DIR = new URL('../../schema/remote/', import.meta.url);

/** The checked-in SDL snapshot of a subgraph. */
export const snapshotUrl = (subgraph: RemoteSubgraph): URL =>
  new URL(`${subgraph.name}.graphql`, REMOTE_SCHEMA_DIR);
