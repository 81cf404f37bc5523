/**
 * The GraphQL path in each ledger line (`upstream/upstream-ledger.ts`): every field resolver the
 * schema defines runs, for a request that lists its ledger, with its field's path in
 * {@link fieldPath}, where the upstream layer reads it when a call opens — the domains pass nothing
 * down. The path is graphql's own `info.path`, kept as it is: only the calls a report lists name it
 * in text (`upstream/ledger-field-paths.ts`), so a field costs one small object, not a copy of every
 * alias above it. Fields on graphql's default resolver read a property and never call the upstream:
 * they are left as they are. A request that does not list its ledger pays a property check per
 * resolver.
 */
import {
  defaultFieldResolver,
  isObjectType,
  type GraphQLFieldResolver,
  type GraphQLSchema,
} from 'graphql';
import type { GatewayContext } from '../kit/request-context.ts';
import { fieldPath } from '../upstream/upstream-ledger.ts';
import { FieldAskers } from '../upstream/ledger-field-paths.ts';

/** Each wrapper's resolver (what a test of the schema's own resolvers looks through). */
const wrapped = new WeakMap<
  GraphQLFieldResolver<unknown, unknown>,
  GraphQLFieldResolver<unknown, unknown>
>();

/** The resolver a field runs inside its path wrapper (itself when it has none). */
export const resolverInside = <R extends GraphQLFieldResolver<unknown, unknown> | undefined>(
  resolve: R,
): R => ((resolve && wrapped.get(resolve)) ?? resolve) as R;

/** Wraps, in place, every resolver the schema defines; returns the schema. */
export function withFieldPaths(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve;
      if (!resolve || resolve === defaultFieldResolver) continue;
      const withPath: GraphQLFieldResolver<unknown, GatewayContext | undefined> = (
        source,
        args,
        context,
        info,
      ) =>
        context?.facts?.listed
          ? fieldPath.run(FieldAskers.of(info.path), resolve, source, args, context, info)
          : resolve(source, args, context, info);
      wrapped.set(withPath as GraphQLFieldResolver<unknown, unknown>, resolve);
      field.resolve = withPath;
    }
  }
  return schema;
}
