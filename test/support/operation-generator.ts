/**
 * A seeded, reproducible generator of operations against the gateway's schema (the soundness corpus):
 * random selections of fields and arguments on `Query`, depth ≤ 5, valid against the schema, with
 * argument values the simulator can answer — the ids of its seed data (`sim-context.ts`), paging
 * arguments drawn from small and large values or left out, now and then an id that names nothing.
 * The same seed and count give the same operations (the fixtures are deterministic).
 *
 * The same draws answer from outside: `valueFor` gives a value for one argument or input field by
 * its name and type, `variablesFor` values for an operation's required variables by where each is
 * used (the soundness corpus of the tests' own operations runs them with these). Names only
 * mutations' inputs use (`csr`, `productType`, `period`, `label`, `percentage`, `customer: JSON`)
 * draw from the seeded records too; no argument reachable from `Query` has them, so a seed's
 * generated operations are the same as before they were added.
 */
import {
  astFromValue,
  getNamedType,
  getNullableType,
  isAbstractType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isInputType,
  isLeafType,
  isListType,
  isNonNullType,
  isScalarType,
  isUnionType,
  Kind,
  parse,
  print,
  typeFromAST,
  TypeInfo,
  validate,
  visit,
  visitWithTypeInfo,
  type ASTNode,
  type DocumentNode,
  type GraphQLArgument,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { encodeGlobalId } from '../../src/kit/global-id.ts';
import { createSimState, type SimState } from '../../src/simulator/sim-context.ts';

export interface GeneratedOperation {
  readonly query: string;
  readonly variables: Record<string, unknown>;
}

/** The deepest selection a generated operation has: a root field is at depth 1. */
export const MAX_DEPTH = 5;

/** mulberry32: a small seeded generator, enough for test data. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Record_ {
  readonly id: string;
  readonly storeId?: string;
}

/** What the simulator's seed data holds, by what an argument names. */
export interface SeedPools {
  readonly stores: readonly string[];
  /** Subgraph records by the map of `SubgraphState` they sit in (`skus`, `orders`, …). */
  readonly records: Readonly<Record<string, readonly Record_[]>>;
  readonly skuCodes: readonly Record_[];
  readonly categorySlugs: readonly Record_[];
  readonly orderNumbers: readonly Record_[];
  readonly certificateCustomers: readonly string[];
  readonly certificates: readonly { customerId: string; certificateId: string }[];
  readonly entitlements: readonly string[];
  readonly subscriptions: readonly string[];
  readonly domains: readonly string[];
  readonly apps: readonly string[];
  readonly jobs: readonly string[];
  readonly uploads: readonly string[];
  readonly channels: readonly Record_[];
  readonly storeCustomers: readonly Record_[];
  readonly transactions: readonly Record_[];
  readonly attributes: readonly Record_[];
  readonly exemptionCustomers: readonly string[];
  /** The seeded certificates' signing requests and products (for an order's `csr`, `productType`). */
  readonly csrs: readonly string[];
  readonly productTypes: readonly string[];
  /** The seeded tax rates' labels and percentages. */
  readonly rateLabels: readonly string[];
  readonly ratePercentages: readonly number[];
  /** The seeded store customers' records, without their ids (a `customer: JSON` to create or set). */
  readonly customerRecords: readonly { readonly storeId: string; readonly record: object }[];
}

/** The pools of a fresh simulator's seed data (the same data `startStack` serves). */
export async function seedPools(): Promise<SeedPools> {
  const state: SimState = await createSimState(() => Date.now());
  const sub = state.subgraphs as unknown as Record<string, unknown>;
  const records: Record<string, Record_[]> = {};
  for (const [name, value] of Object.entries(sub)) {
    if (!(value instanceof Map)) continue;
    records[name] = [...(value as Map<string, { storeId?: string }>)].map(([id, record]) => ({
      id,
      storeId: record.storeId,
    }));
  }
  const subgraphs = state.subgraphs;
  const certificates = [...state.certificates.certificates.values()];
  const apps = [...state.hosting.apps.values()];
  const commerce = state.commerce;
  return {
    stores: [...commerce.stores.keys()],
    records,
    skuCodes: [...subgraphs.skus.values()].map((s) => ({ id: s.code, storeId: s.storeId })),
    categorySlugs: [...subgraphs.categories.values()].map((c) => ({
      id: c.slug,
      storeId: c.storeId,
    })),
    orderNumbers: [...subgraphs.orders.values()].map((o) => ({ id: o.number, storeId: o.storeId })),
    certificateCustomers: [...state.certificates.customers.keys()],
    certificates: certificates.map((c) => ({
      customerId: c.customerId,
      certificateId: c.certificateId,
    })),
    entitlements: [...new Set(certificates.map((c) => c.entitlementId))],
    subscriptions: [...state.certificates.subscriptions.keys()],
    domains: [...new Set(certificates.flatMap((c) => c.subjectAlternativeNames))],
    // The demo token's account: another account's app answers 404 (drawn now and then as 'app-9999').
    apps: apps.filter((a) => a.accountId === 'A').map((a) => a.id),
    jobs: [...state.hosting.jobs.keys()],
    uploads: apps.flatMap((a) => a.uploads.map((u) => u.id)),
    channels: commerce.channels.map((c) => ({
      id: c.channel.channelId,
      storeId: (c.channel as { registeredStoreIds?: string[] }).registeredStoreIds?.[0],
    })),
    storeCustomers: [...commerce.customers].flatMap(([storeId, list]) =>
      list.map((c) => ({ id: c.customerId, storeId })),
    ),
    transactions: [...commerce.transactions].flatMap(([storeId, list]) =>
      list.map((t) => ({ id: t.transactionId, storeId })),
    ),
    attributes: [...commerce.attributes].flatMap(([storeId, names]) =>
      [...names.keys()].map((id) => ({ id, storeId })),
    ),
    exemptionCustomers: [...subgraphs.exemptions.values()].map((e) => e.customerId ?? ''),
    csrs: certificates.map((c) => c.csr),
    productTypes: [...new Set(certificates.map((c) => c.productType))],
    rateLabels: [...subgraphs.rates.values()].map((r) => r.label),
    ratePercentages: [...new Set([...subgraphs.rates.values()].map((r) => r.percentage))],
    customerRecords: [...commerce.customers].flatMap(([storeId, list]) =>
      list.map(({ email, givenName, familyName, phone, tags }) => ({
        storeId,
        record: { email, givenName, familyName, phone, tags },
      })),
    ),
  };
}

/** The subgraph map an `id` argument of a field returning this type names. */
const RECORDS_OF_TYPE: Readonly<Record<string, readonly string[]>> = {
  SKU: ['skus'],
  SKUGroup: ['skuGroups'],
  Category: ['categories'],
  Option: ['options'],
  PriceList: ['priceLists'],
  InventoryLocation: ['inventoryLocations'],
  MediaAsset: ['media'],
  ChannelListing: ['channelListings'],
  AttributeDefinition: ['attributeDefinitions'],
  BulkOperation: ['bulkOperations'],
  Classification: ['classifications'],
  Rate: ['rates'],
  TaxArea: ['taxAreas'],
  TaxExemption: ['exemptions'],
  Fulfillment: ['fulfillments'],
  Order: ['orders'],
  OrderReturn: ['returns'],
  Refund: ['refunds'],
  CatalogNode: [
    'skus',
    'skuGroups',
    'categories',
    'options',
    'priceLists',
    'inventoryLocations',
    'media',
    'channelListings',
    'attributeDefinitions',
    'bulkOperations',
  ],
  OrderNode: ['orders', 'fulfillments', 'returns', 'refunds'],
};

/** The subgraph map an argument names by its name (`skuId` → SKUs). */
const RECORDS_OF_ARGUMENT: Readonly<Record<string, string>> = {
  skuId: 'skus',
  locationId: 'inventoryLocations',
  classificationId: 'classifications',
  taxAreaId: 'taxAreas',
  orderId: 'orders',
  parentId: 'categories',
  priceListId: 'priceLists',
  categoryId: 'categories',
  groupId: 'skuGroups',
};

/** An id of the kind of `list`'s that names nothing (`sku_0001` → `sku_9999`). */
const missingOf = (list: readonly Record_[] | undefined): string =>
  (list?.[0]?.id ?? 'x_1').replace(/\d+$/, (digits) => '9'.repeat(digits.length));

const PAGE_SIZES = [0, 1, 2, 3, 5, 8, 10, 20, 25, 50, 100, 101, 200, 500, 1000];

/** Root fields answered by the REST domains (certificates, commerce, hosting) and the graph. */
const REST_ROOTS = new Set([
  'certificateCustomer',
  'certificatesByEntitlement',
  'certificateBundle',
  'certificateSubscriptions',
  'certificateSubscription',
  'store',
  'channels',
  'channel',
  'apps',
  'app',
  'appJob',
  'node',
]);

/** Omitted: the argument is left out of the operation. */
const OMIT = Symbol('omit');
/** No value the generator can make: the field is not selected. */
const CANNOT = Symbol('cannot');
type ArgValue = unknown | typeof OMIT | typeof CANNOT;

interface Scope {
  /** The store the parent belongs to (its `storeId` argument), for ids of that store. */
  readonly storeId: string | undefined;
}

class Generator {
  private readonly variables: Record<string, unknown> = {};
  private readonly definitions: string[] = [];
  /** The first required input field no value could be made for (`Input.field: Type`), for reports. */
  unmade: string | undefined;
  /** Fields drawn and then left out because a required argument of theirs could not be made. */
  dropped = 0;
  /** Fields drawn and selected. */
  selected = 0;

  private readonly schema: GraphQLSchema;
  private readonly pools: SeedPools;
  private readonly random: () => number;

  constructor(schema: GraphQLSchema, pools: SeedPools, random: () => number) {
    this.schema = schema;
    this.pools = pools;
    this.random = random;
  }

  private chance(p: number): boolean {
    return this.random() < p;
  }

  private int(n: number): number {
    return Math.floor(this.random() * n);
  }

  private pick<T>(list: readonly T[]): T | undefined {
    return list.length === 0 ? undefined : list[this.int(list.length)];
  }

  /** An id of this store's records, now and then another store's or one that names nothing. */
  private recordId(list: readonly Record_[], scope: Scope, missing: string): string {
    if (this.chance(0.05)) return missing;
    const own = list.filter((r) => r.storeId === undefined || r.storeId === scope.storeId);
    return (this.pick(own.length > 0 && this.chance(0.9) ? own : list) ?? { id: missing }).id;
  }

  private nodeId(): string {
    const p = this.pools;
    const store = this.pick(p.stores)!;
    switch (this.int(7)) {
      case 0: {
        const c = this.pick(p.certificates)!;
        return encodeGlobalId('Certificate', 'c', c.customerId, c.certificateId);
      }
      case 1:
        return encodeGlobalId('Certificate', 'e', this.pick(p.entitlements)!, 'cert-0001');
      case 2:
        return encodeGlobalId('Store', store);
      case 3: {
        const channel = this.pick(p.channels)!;
        return this.chance(0.5)
          ? encodeGlobalId('Channel', channel.id)
          : encodeGlobalId('Channel', channel.id, store);
      }
      case 4: {
        const c = this.pick(p.storeCustomers)!;
        return encodeGlobalId('StoreCustomer', c.storeId!, c.id);
      }
      case 5: {
        const t = this.pick(p.transactions)!;
        return encodeGlobalId('Transaction', t.storeId!, t.id);
      }
      default:
        return encodeGlobalId('App', this.pick(p.apps)!);
    }
  }

  /** A value for a String/ID argument by what it names. */
  private named(
    parent: string,
    field: GraphQLField<unknown, unknown>,
    name: string,
    scope: Scope,
  ): ArgValue {
    const p = this.pools;
    const returns = getNamedType(field.type).name;
    switch (name) {
      case 'storeId':
        if (!isNonNullType(field.args.find((a) => a.name === name)?.type) && this.chance(0.04))
          return OMIT; // no store: refused before any call
        // The demo token's account holds the first store; the second answers 404 (an error path).
        return scope.storeId ?? (this.chance(0.92) ? p.stores[0] : p.stores[1]);
      case 'id':
        if (parent === 'Query' && field.name === 'node') return this.nodeId();
        if (RECORDS_OF_TYPE[returns]) {
          const kind = this.pick(RECORDS_OF_TYPE[returns])!;
          return this.recordId(p.records[kind] ?? [], scope, missingOf(p.records[kind]));
        }
        return CANNOT;
      case 'code':
        return this.recordId(p.skuCodes, scope, 'NO-SUCH-CODE');
      case 'slug':
        return this.recordId(p.categorySlugs, scope, 'no-such-slug');
      case 'number':
        return this.recordId(p.orderNumbers, scope, 'A-9999');
      case 'currencyCode':
        return this.pick(['USD', 'USD', 'EUR', 'GBP']);
      case 'customerId':
        if (parent === 'Query')
          return this.chance(0.9)
            ? 'demo-customer' // the demo token's; the others answer 404
            : this.pick([...p.certificateCustomers, 'no-such-customer']);
        if (parent === 'TaxSettings') return this.pick(p.exemptionCustomers);
        return this.recordId(p.storeCustomers, scope, 'ca999999-0000-4000-8000-000000000000');
      case 'certificateId':
        return this.chance(0.05)
          ? 'cert-9999'
          : this.pick(p.certificates.filter((c) => c.customerId === 'demo-customer'))!
              .certificateId;
      case 'domain':
        return this.pick([...p.domains, 'nowhere.example.com']);
      case 'entitlementId':
        return this.pick([...p.entitlements, 'no-such-entitlement']);
      case 'guid':
        return this.pick(p.subscriptions);
      case 'appId':
        return this.pick([...p.apps, 'app-9999']);
      case 'jobId':
        return parent === 'App' ? this.pick([...p.uploads, 'upl-9999']) : this.pick(p.jobs);
      case 'channelId':
        return this.recordId(p.channels, scope, '00000000-0000-4000-8000-00000000dead');
      case 'transactionId':
        return this.recordId(p.transactions, scope, '00000000-0000-4000-8000-00000000beef');
      case 'name':
        return this.recordId(p.attributes, scope, 'noSuchAttribute');
      case 'since':
        return this.pick(['30m', '2h', '1d', '7d']);
      case 'source':
        return this.pick(['app', 'build', 'access']);
      case 'after':
        return OMIT; // a cursor of another run would name nothing
      case 'csr':
        return this.pick(p.csrs);
      case 'productType':
        return this.pick(p.productTypes);
      case 'label':
        return this.pick(p.rateLabels);
      default: {
        const kind = RECORDS_OF_ARGUMENT[name];
        if (kind) return this.recordId(p.records[kind] ?? [], scope, missingOf(p.records[kind]));
        return CANNOT;
      }
    }
  }

  /** A value for an input type: required fields always, optional ones now and then. */
  private inputValue(
    type: GraphQLInputType,
    name: string,
    parent: string,
    field: GraphQLField<unknown, unknown>,
    scope: Scope,
  ): ArgValue {
    const nullable = getNullableType(type);
    if (isListType(nullable)) {
      const items: unknown[] = [];
      const n = 1 + this.int(3);
      for (let i = 0; i < n; i += 1) {
        const item = this.inputValue(nullable.ofType, name, parent, field, scope);
        if (item === CANNOT) return CANNOT;
        if (item !== OMIT) items.push(item);
      }
      return items;
    }
    if (isEnumType(nullable)) return this.pick(nullable.getValues())!.value;
    if (isInputObjectType(nullable)) {
      const value: Record<string, unknown> = {};
      for (const inner of Object.values(nullable.getFields())) {
        const required = isNonNullType(inner.type) && inner.defaultValue === undefined;
        if (!required && !this.chance(0.35)) continue;
        const v = this.inputValue(inner.type, inner.name, parent, field, scope);
        if (v === CANNOT) {
          if (!required) continue;
          this.unmade ??= `${nullable.name}.${inner.name}: ${String(inner.type)}`;
          return CANNOT;
        }
        if (v !== OMIT) value[inner.name] = v;
      }
      return value;
    }
    if (isScalarType(nullable)) {
      switch (nullable.name) {
        case 'Int':
          if (name === 'amount') return 100 + this.int(100_000);
          if (name === 'quantity') return 1 + this.int(5);
          if (name === 'shippingAmount') return this.int(2000);
          if (name === 'offset') return this.pick([0, 1, 4, 10, 40, 100]);
          if (name === 'period') return 1 + this.int(3); // a certificate's years: 1 to 3
          if (this.chance(0.03)) return -1;
          return this.pick(PAGE_SIZES);
        case 'Boolean':
          return this.chance(0.5);
        case 'Float':
          return name === 'percentage' ? this.pick(this.pools.ratePercentages) : CANNOT;
        case 'JSON': {
          if (name !== 'customer') return CANNOT;
          const own = this.pools.customerRecords.filter((c) => c.storeId === scope.storeId);
          return this.pick(own.length > 0 ? own : this.pools.customerRecords)?.record ?? CANNOT;
        }
        case 'String':
        case 'ID': {
          const v = this.named(parent, field, name, scope);
          if (v !== CANNOT) return v;
          if (name === 'postalCode') return this.pick(['94107', '10001', '60601']);
          if (name === 'search') return this.pick(['jacket', 'shirt', 'x']);
          if (name === 'tag') return this.pick(['sale', 'new']);
          if (name === 'barcode') return '4006381330015';
          if (name === 'reference') return 'line-1';
          if (name === 'updatedAtAfter') return '2020-01-01T00:00:00Z';
          if (name === 'updatedAtBefore') return '2099-01-01T00:00:00Z';
          if (name === 'transactionIds') return this.recordId(this.pools.transactions, scope, '');
          return CANNOT;
        }
        default:
          return CANNOT;
      }
    }
    return CANNOT;
  }

  /** A value for `site`, drawn as for a generated operation's argument or input field there. */
  valueAt(site: ValueSite): ArgValue {
    const scope = { storeId: site.storeId };
    return this.inputValue(site.type, site.argument, site.parentType, site.field, scope);
  }

  private argument(
    parent: string,
    field: GraphQLField<unknown, unknown>,
    arg: GraphQLArgument,
    scope: Scope,
  ): ArgValue {
    const required = isNonNullType(arg.type) && arg.defaultValue === undefined;
    const named = getNamedType(arg.type);
    // Optional arguments: paging drawn or left out; filters now and then; ids often.
    if (!required) {
      const paging = ['first', 'limit', 'lines', 'offset'].includes(arg.name);
      const leave =
        arg.name === 'storeId' ? 0 : paging ? 0.3 : isInputObjectType(named) ? 0.6 : 0.5;
      if (this.chance(leave)) return OMIT;
    }
    if (named.name === 'ID' && arg.name === 'transactionIds') return CANNOT;
    return this.inputValue(arg.type, arg.name, parent, field, scope);
  }

  /** `name: value` or `name: $v` for one argument. */
  private render(arg: GraphQLArgument, value: unknown): string {
    if (this.chance(0.25)) {
      const variable = `v${this.definitions.length}`;
      this.definitions.push(`$${variable}: ${String(arg.type)}`);
      this.variables[variable] = value;
      return `${arg.name}: $${variable}`;
    }
    const ast = astFromValue(value, arg.type);
    if (!ast) throw new Error(`no literal for ${arg.name}`);
    return `${arg.name}: ${print(ast)}`;
  }

  /** A field with its arguments and selection, or undefined when its arguments cannot be made. */
  private field(
    parent: GraphQLCompositeType,
    field: GraphQLField<unknown, unknown>,
    depth: number,
    scope: Scope,
    alias: string | undefined,
  ): string | undefined {
    const args: string[] = [];
    let inner: Scope = scope;
    for (const arg of field.args) {
      const value = this.argument(parent.name, field, arg, scope);
      if (value === CANNOT) {
        if (isNonNullType(arg.type)) {
          this.dropped += 1;
          return undefined;
        }
        continue;
      }
      if (value === OMIT) continue;
      if (arg.name === 'storeId' && typeof value === 'string') inner = { storeId: value };
      args.push(this.render(arg, value));
    }
    const head = `${alias ? `${alias}: ` : ''}${field.name}${args.length ? `(${args.join(', ')})` : ''}`;
    const named = getNamedType(field.type);
    if (isLeafType(named)) return head;
    if (depth >= MAX_DEPTH) return undefined;
    return `${head} { ${this.selection(named as GraphQLCompositeType, depth + 1, inner)} }`;
  }

  /** A selection set on `type` whose fields sit at `depth`. */
  selection(type: GraphQLCompositeType, depth: number, scope: Scope, root = false): string {
    const parts: string[] = [];
    if (isUnionType(type)) {
      parts.push('__typename');
    } else {
      const fields = Object.values(
        (type as GraphQLObjectType).getFields() as Record<string, GraphQLField<unknown, unknown>>,
      ).filter((f) => !f.name.startsWith('__'));
      const leaves = fields.filter((f) => isLeafType(getNamedType(f.type)));
      const composite = fields.filter((f) => isCompositeType(getNamedType(f.type)));
      const want = root ? 1 + this.int(3) : 1 + this.int(4);
      const used = new Map<string, number>();
      for (let tries = 0; parts.length < want && tries < want * 4; tries += 1) {
        const deeper = composite.length > 0 && depth < MAX_DEPTH && (root || this.chance(0.55));
        // Half the root fields from the REST domains (paged lists, per-item loads, walks): the
        // subgraphs' fields cost one request per subgraph and store whatever they select.
        const rest =
          root && this.chance(0.5) ? composite.filter((f) => REST_ROOTS.has(f.name)) : [];
        const field = this.pick(
          rest.length ? rest : deeper ? composite : leaves.length ? leaves : composite,
        );
        if (!field) break;
        const seen = used.get(field.name) ?? 0;
        if (seen > 0 && (!this.chance(0.15) || field.args.length === 0)) continue;
        const text = this.field(
          type,
          field,
          depth,
          scope,
          seen > 0 ? `${field.name}${seen}` : undefined,
        );
        if (text === undefined) continue;
        this.selected += 1;
        used.set(field.name, seen + 1);
        parts.push(text);
      }
      if (parts.length === 0) parts.push('__typename');
    }
    if (isAbstractType(type) && (isUnionType(type) || this.chance(0.5))) {
      const possible = this.schema.getPossibleTypes(type);
      const n = isUnionType(type) ? 1 + this.int(2) : 1;
      for (let i = 0; i < n; i += 1) {
        const on = this.pick(possible);
        if (!on || depth > MAX_DEPTH) continue;
        parts.push(`... on ${on.name} { ${this.selection(on, depth, scope)} }`);
      }
    }
    return parts.join(' ');
  }

  operation(index: number): GeneratedOperation {
    const query = this.schema.getQueryType()!;
    const body = this.selection(query, 1, { storeId: undefined }, true);
    const head = this.definitions.length ? `(${this.definitions.join(', ')})` : '';
    return { query: `query Generated${index}${head} { ${body} }`, variables: this.variables };
  }
}

export interface Generated {
  readonly operations: readonly GeneratedOperation[];
  /** Drafts refused by the schema's validation and drawn again (should stay 0). */
  readonly invalid: readonly { query: string; errors: string[] }[];
  /** Fields drawn and left out because a required argument could not be made, and those selected. */
  readonly fields: { readonly dropped: number; readonly selected: number };
}

/** `count` operations from `seed`, each valid against `schema`. */
export function generateOperations(
  schema: GraphQLSchema,
  pools: SeedPools,
  seed: number,
  count: number,
): Generated {
  const random = seededRandom(seed);
  const operations: GeneratedOperation[] = [];
  const invalid: { query: string; errors: string[] }[] = [];
  const fields = { dropped: 0, selected: 0 };
  while (operations.length < count && invalid.length < count) {
    const generator = new Generator(schema, pools, random);
    const draft = generator.operation(operations.length + 1);
    fields.dropped += generator.dropped;
    fields.selected += generator.selected;
    const errors = validate(schema, parse(draft.query));
    if (errors.length > 0) {
      invalid.push({ query: draft.query, errors: errors.map((e) => e.message) });
      continue;
    }
    operations.push(draft);
  }
  return { operations, invalid, fields };
}

/**
 * Where a value goes: the argument of `parentType.field` it is passed as — or, inside an input
 * object, the input field — with the type it must have. The value is drawn by that name as the
 * generator draws it (a `skuId` is a SKU's id, a `storeId` the scope's store, …).
 */
export interface ValueSite {
  readonly parentType: string;
  readonly field: GraphQLField<unknown, unknown>;
  /** The argument's name, or the input field's when the value sits inside an input object. */
  readonly argument: string;
  readonly type: GraphQLInputType;
  /** The store the value's records belong to (ids of that store are drawn), when there is one. */
  readonly storeId?: string;
}

/** How many times a value that came out "left out" is drawn again (only `storeId` can, 4%). */
const DRAWS = 5;

/**
 * A value for `site` from the seed data's pools, or why none can be made. `random` is consumed
 * as the generator consumes it, so a seeded `random` gives the same values again.
 */
export function valueFor(
  schema: GraphQLSchema,
  pools: SeedPools,
  random: () => number,
  site: ValueSite,
): { value: unknown } | { unmade: string } {
  for (let draw = 0; draw < DRAWS; draw += 1) {
    const generator = new Generator(schema, pools, random);
    const value = generator.valueAt(site);
    if (value === OMIT) continue;
    if (value !== CANNOT) return { value };
    return { unmade: generator.unmade ?? String(site.type) };
  }
  return { unmade: `${site.argument} is always left out` };
}

export interface VariableValues {
  /** A value for every required variable that could be made one. */
  readonly variables: Record<string, unknown>;
  /** The required variables without one: `$name at Type.field(argument): why`. */
  readonly unmade: readonly string[];
  /** The variable that is a file (`Upload`): sent as the file of a multipart request. */
  readonly upload?: string;
}

/**
 * Values for the operation's required variables (non-null, no default); the others are left out.
 * Each is drawn with `valueFor` for the first place the variable is used: the argument it is
 * passed to, or the input field when it sits inside an input object (in a list: the list's).
 */
export function variablesFor(
  schema: GraphQLSchema,
  pools: SeedPools,
  random: () => number,
  document: DocumentNode,
  storeId: string | undefined,
): VariableValues {
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const required = new Map(
    (operation?.variableDefinitions ?? [])
      .filter((v) => v.type.kind === Kind.NON_NULL_TYPE && v.defaultValue === undefined)
      .map((v) => [v.variable.name.value, typeFromAST(schema, v.type)]),
  );
  const variables: Record<string, unknown> = {};
  const unmade: string[] = [];
  const placed = new Set<string>();
  let upload: string | undefined;
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Variable(node, _key, parent, _path, ancestors) {
        const name = node.name.value;
        const type = required.get(name);
        if (!type || placed.has(name) || (parent as ASTNode).kind === Kind.VARIABLE_DEFINITION)
          return;
        placed.add(name);
        const holder = [parent, ...[...ancestors].reverse()].find(
          (a): a is ASTNode & { name: { value: string } } =>
            !Array.isArray(a) &&
            ((a as ASTNode).kind === Kind.OBJECT_FIELD || (a as ASTNode).kind === Kind.ARGUMENT),
        );
        const parentType = typeInfo.getParentType();
        const field = typeInfo.getFieldDef();
        const at = `$${name} at ${parentType?.name}.${field?.name}(${holder?.name.value})`;
        if (!holder || !parentType || !field || !isInputType(type)) {
          unmade.push(`${at}: not an argument of a field`);
          return;
        }
        // A file travels in the request's multipart body, not among the variables' values.
        if (getNamedType(type).name === 'Upload' && upload === undefined) {
          upload = name;
          variables[name] = null;
          return;
        }
        const site = { parentType: parentType.name, field, argument: holder.name.value, type };
        const drawn = valueFor(schema, pools, random, { ...site, storeId });
        if ('value' in drawn) variables[name] = drawn.value;
        else unmade.push(`${at}: no value for ${drawn.unmade}`);
      },
    }),
  );
  for (const name of required.keys())
    if (!placed.has(name)) unmade.push(`$${name}: not used in the operation`);
  return { variables, unmade, ...(upload === undefined ? {} : { upload }) };
}
