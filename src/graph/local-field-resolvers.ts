/**
 * `stitchSchemas` wraps every field of the gateway's own types so that, when a resolver returns an
 * object of a *merged* type, the fields it lacks are fetched from the subschemas that can resolve
 * that type (`merge` config). No subschema of this graph declares `merge`: the wrapper finds nothing
 * to fetch, yet it still lists the missing selections of every object on every field of every
 * request: work every miss paid for nothing.
 *
 * This puts the domains' own resolvers back, unwrapped, on the fields where the wrapper can do
 * nothing: fields declared by the local SDL, on types no subschema defines, whose return type no
 * subschema can merge into. Root fields keep the wrapper (once per request), and so does everything
 * the stitching built itself (the `Store` extension, the proxying root fields of the subschemas).
 * Should a subschema ever declare `merge`, the types it merges keep their wrappers by the same rule.
 */
import type { StitchingInfo } from '@graphql-tools/delegate';
import {
  defaultFieldResolver,
  getNamedType,
  isObjectType,
  type DocumentNode,
  type GraphQLFieldResolver,
  type GraphQLSchema,
} from 'graphql';
import { localNames } from '../stitching/name-collisions.ts';

/** A resolver map as the domains write it: per type, a function or `{ resolve, … }` per field. */
type ResolverMap = Readonly<Record<string, unknown>>;

const resolveOf = (resolver: unknown): GraphQLFieldResolver<unknown, unknown> | undefined => {
  if (typeof resolver === 'function') return resolver as GraphQLFieldResolver<unknown, unknown>;
  const resolve = (resolver as { resolve?: unknown } | undefined)?.resolve;
  return typeof resolve === 'function'
    ? (resolve as GraphQLFieldResolver<unknown, unknown>)
    : undefined;
};

/**
 * The stitched schema with the no-op wrappers replaced, in place, by the resolvers in `resolvers`
 * (later maps win, as in `stitchSchemas`) or graphql's default field resolver.
 */
export function unwrapLocalFields(
  schema: GraphQLSchema,
  typeDefs: readonly (string | DocumentNode)[],
  resolvers: readonly ResolverMap[],
): GraphQLSchema {
  const stitching = schema.extensions['stitchingInfo'] as StitchingInfo | undefined;
  if (!stitching) return schema;
  const definedBySubschema = (typeName: string) =>
    (stitching.mergedTypes[typeName]?.typeMaps.size ?? 0) > 0;
  const mergeable = (typeName: string) =>
    (stitching.mergedTypes[typeName]?.resolvers.size ?? 0) > 0;
  const roots = new Set(
    [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].map(
      (type) => type?.name,
    ),
  );
  const domainResolve = (typeName: string, fieldName: string) => {
    for (let i = resolvers.length - 1; i >= 0; i -= 1) {
      const typeResolvers = resolvers[i]![typeName] as ResolverMap | undefined;
      const resolve = resolveOf(typeResolvers?.[fieldName]);
      if (resolve) return resolve;
    }
    return defaultFieldResolver;
  };

  // Set in place, as `addResolversToSchema` would, without its passes over every default value and
  // type of the schema (no scalar or enum changes here): a tenth of the schema's build.
  for (const [typeName, fieldNames] of localNames(typeDefs).objectFields) {
    const type = schema.getType(typeName);
    if (!isObjectType(type) || roots.has(typeName) || definedBySubschema(typeName)) continue;
    const fields = type.getFields();
    for (const fieldName of fieldNames) {
      const field = fields[fieldName];
      if (!field || mergeable(getNamedType(field.type).name)) continue;
      field.resolve = domainResolve(typeName, fieldName);
    }
  }
  return schema;
}
