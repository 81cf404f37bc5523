/**
 * Builds an executable subgraph schema from SDL and a resolver map with graphql-js alone.
 *
 * Why not `makeExecutableSchema` from `@graphql-tools/schema`: under vitest our sources load
 * graphql's ESM build (`index.mjs`, Vite honours the `module` field) while the externalized
 * `@graphql-tools/*` packages load its CommonJS build (`index.js`, Node honours `main`), so a schema
 * built there cannot be validated or executed here ("Cannot use GraphQLSchema from another module
 * or realm"). Using only `graphql` keeps the schema, validation and execution in one copy under
 * every runner (tsx, node, vitest).
 */
import {
  buildSchema,
  isInterfaceType,
  isObjectType,
  isUnionType,
  type GraphQLFieldResolver,
  type GraphQLSchema,
  type GraphQLTypeResolver,
} from 'graphql';

/** `{ TypeName: { field: resolver } }`; interfaces and unions take `__resolveType`. */
export type ResolverMap = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

export function createSubgraphSchema(typeDefs: string, resolvers: ResolverMap): GraphQLSchema {
  const schema = buildSchema(typeDefs);
  for (const [typeName, fieldResolvers] of Object.entries(resolvers)) {
    const type = schema.getType(typeName);
    if (isObjectType(type)) {
      const fields = type.getFields();
      for (const [fieldName, resolver] of Object.entries(fieldResolvers)) {
        const field = fields[fieldName];
        if (!field || typeof resolver !== 'function') {
          throw new Error(`resolver ${typeName}.${fieldName} does not match the SDL`);
        }
        field.resolve = resolver as GraphQLFieldResolver<unknown, unknown>;
      }
    } else if (isInterfaceType(type) || isUnionType(type)) {
      const { __resolveType: resolveType, ...rest } = fieldResolvers;
      if (typeof resolveType !== 'function' || Object.keys(rest).length > 0) {
        throw new Error(`${typeName} takes only __resolveType`);
      }
      type.resolveType = resolveType as GraphQLTypeResolver<unknown, unknown>;
    } else {
      throw new Error(
        `resolvers given for ${typeName}, which is not an object, interface or union`,
      );
    }
  }
  return schema;
}
