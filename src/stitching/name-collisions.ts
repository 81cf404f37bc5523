/**
 * The deterministic name-collision rule of the stitched graph (also in docs/graph.md, "Name
 * collisions"). The local SDL and the three subgraphs are independent schemas, and several names
 * clash (`PageInfo` in all four, `Money` in local, catalog and order, `Status` in catalog and tax,
 * `Node` and the root field `node` in local, catalog and order, `SimpleMoneyInput` in catalog and
 * order). The rule:
 *
 * 1. The local SDL (schema/*.graphql) owns every name it declares and is never renamed: clients of
 *    the contract see `Money`, `PageInfo`, `Node` and `node(id:)` exactly as written there.
 * 2. A named type of a subgraph is renamed to `<Prefix><Name>` (prefixes Catalog, Tax, Order) when
 *    the same name is declared by the local SDL or by ANY other subgraph. Every subgraph involved is
 *    renamed and none keeps the bare name, so the outcome never depends on the order in which the
 *    subgraphs are listed, and adding a subgraph can only rename the types that now collide.
 * 3. A root field of a subgraph is renamed to `<prefix><Name>` (`catalogNode`, `orderNode`) under
 *    the same condition, comparing root fields of the same operation type.
 * 4. Shared by all, never renamed: the root operation types (`Query`, `Mutation`, `Subscription`),
 *    the built-in scalars and the introspection types.
 * 5. When a new name is itself taken, start-up fails naming both: never a silent pick.
 *
 * Collisions are decided on names only, even where two types look alike (catalog's `PageInfo` has
 * the same fields as ours): equal shapes today can drift apart with the next snapshot.
 */
import {
  Kind,
  isSpecifiedScalarType,
  parse,
  type DocumentNode,
  type GraphQLSchema,
  type ObjectTypeDefinitionNode,
  type ObjectTypeExtensionNode,
} from 'graphql';
import type { RemoteSubgraph } from './remote-subgraphs.ts';

/** The renames the rule gives one subgraph. */
export interface SubgraphRenames {
  /** Original type name → new name (only the renamed ones). */
  readonly types: ReadonlyMap<string, string>;
  /** `Query` / `Mutation` → original root field name → new name (only the renamed ones). */
  readonly rootFields: ReadonlyMap<RootOperation, ReadonlyMap<string, string>>;
}

/** A root operation type name. */
export type RootOperation = 'Query' | 'Mutation' | 'Subscription';

const ROOT_OPERATIONS: readonly RootOperation[] = ['Query', 'Mutation', 'Subscription'];

/** The names a schema declares: its types, and the fields of each root type. */
interface DeclaredNames {
  readonly types: ReadonlySet<string>;
  readonly rootFields: ReadonlyMap<RootOperation, ReadonlySet<string>>;
}

const isShared = (name: string): boolean =>
  (ROOT_OPERATIONS as readonly string[]).includes(name) || name.startsWith('__');

/** Names declared by the local SDL, plus the fields of each of its object types. */
export interface LocalNames extends DeclaredNames {
  /** Object type (or extension) name → its field names, over every file. */
  readonly objectFields: ReadonlyMap<string, ReadonlySet<string>>;
}

/** Names declared by the local SDL files (several files may each extend `Query`). */
export function localNames(typeDefs: readonly (string | DocumentNode)[]): LocalNames {
  const types = new Set<string>();
  const objectFields = new Map<string, Set<string>>();
  for (const source of typeDefs) {
    const document = typeof source === 'string' ? parse(source) : source;
    for (const definition of document.definitions) {
      if (!('name' in definition) || definition.name === undefined) continue;
      if (definition.kind === Kind.DIRECTIVE_DEFINITION) continue;
      const name = definition.name.value;
      types.add(name);
      if (
        definition.kind === Kind.OBJECT_TYPE_DEFINITION ||
        definition.kind === Kind.OBJECT_TYPE_EXTENSION
      ) {
        const fields = objectFields.get(name) ?? new Set<string>();
        for (const field of (definition as ObjectTypeDefinitionNode | ObjectTypeExtensionNode)
          .fields ?? []) {
          fields.add(field.name.value);
        }
        objectFields.set(name, fields);
      }
    }
  }
  const rootFields = new Map<RootOperation, ReadonlySet<string>>(
    ROOT_OPERATIONS.map((operation) => [operation, objectFields.get(operation) ?? new Set()]),
  );
  return { types, rootFields, objectFields };
}

/** Names declared by a subgraph schema. */
function schemaNames(schema: GraphQLSchema): DeclaredNames {
  const types = new Set(
    Object.values(schema.getTypeMap())
      .filter((type) => !isSpecifiedScalarType(type))
      .map((type) => type.name)
      .filter((name) => !name.startsWith('__')),
  );
  const rootFields = new Map<RootOperation, Set<string>>();
  const roots: Record<RootOperation, ReturnType<GraphQLSchema['getQueryType']>> = {
    Query: schema.getQueryType(),
    Mutation: schema.getMutationType(),
    Subscription: schema.getSubscriptionType(),
  };
  for (const operation of ROOT_OPERATIONS) {
    rootFields.set(operation, new Set(Object.keys(roots[operation]?.getFields() ?? {})));
  }
  return { types, rootFields };
}

const lowerFirst = (text: string): string => text.charAt(0).toLowerCase() + text.slice(1);
const upperFirst = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * Applies the rule to the local SDL and the subgraphs. Pure and order-independent: the result for a
 * subgraph depends only on the set of names the others declare.
 */
export function planRenames(
  local: DeclaredNames,
  subgraphs: readonly { subgraph: RemoteSubgraph; schema: GraphQLSchema }[],
): Map<RemoteSubgraph['name'], SubgraphRenames> {
  const declared = subgraphs.map(({ subgraph, schema }) => ({
    subgraph,
    names: schemaNames(schema),
  }));
  const plan = new Map<RemoteSubgraph['name'], SubgraphRenames>();
  // Every final name, to enforce point 5.
  const finalTypes = new Map<string, string>([...local.types].map((name) => [name, 'local SDL']));
  const finalFields = new Map<string, string>();
  for (const operation of ROOT_OPERATIONS) {
    for (const field of local.rootFields.get(operation) ?? []) {
      finalFields.set(`${operation}.${field}`, 'local SDL');
    }
  }
  const claim = (registry: Map<string, string>, name: string, owner: string): void => {
    const holder = registry.get(name);
    if (holder !== undefined && holder !== owner) {
      throw new Error(
        `Name collision rule: ${owner} would declare ${name}, which ${holder} already declares`,
      );
    }
    registry.set(name, owner);
  };

  for (const { subgraph, names } of declared) {
    const others = declared.filter((entry) => entry.subgraph !== subgraph);
    const owner = `the ${subgraph.name} subgraph`;

    const types = new Map<string, string>();
    for (const name of names.types) {
      if (isShared(name)) continue;
      const collides = local.types.has(name) || others.some((other) => other.names.types.has(name));
      const finalName = collides ? `${subgraph.prefix}${name}` : name;
      if (collides) types.set(name, finalName);
      claim(finalTypes, finalName, owner);
    }

    const rootFields = new Map<RootOperation, Map<string, string>>();
    for (const operation of ROOT_OPERATIONS) {
      const renamed = new Map<string, string>();
      for (const field of names.rootFields.get(operation) ?? []) {
        const collides =
          (local.rootFields.get(operation)?.has(field) ?? false) ||
          others.some((other) => other.names.rootFields.get(operation)?.has(field));
        const finalName = collides ? `${lowerFirst(subgraph.prefix)}${upperFirst(field)}` : field;
        if (collides) renamed.set(field, finalName);
        claim(finalFields, `${operation}.${finalName}`, owner);
      }
      rootFields.set(operation, renamed);
    }
    plan.set(subgraph.name, { types, rootFields });
  }
  return plan;
}
