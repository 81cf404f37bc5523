/**
 * Tells the request's facts when an unpaged list arrives, with its length (docs/budget.md): the
 * bound assumed the list's maximum, and its real length refines the bound of what is still to run —
 * before any field below the list resolves, since graphql resolves them only once this resolver's
 * answer is there. Only the fields declared `unpaged` (`kit/call-bounds.ts`) are wrapped.
 */
import { isObjectType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import type { CallBoundDeclarations } from '../kit/call-bounds.ts';
import type { GatewayContext } from '../kit/request-context.ts';

/** Wraps, in place, the resolvers of the unpaged lists; returns the schema. */
export function withUnpagedListArrivals(
  schema: GraphQLSchema,
  declarations: CallBoundDeclarations,
): GraphQLSchema {
  for (const [key, bound] of Object.entries(declarations)) {
    if (!bound.unpaged) continue;
    const [typeName = '', fieldName = ''] = key.split('.');
    const type = schema.getType(typeName);
    const field = isObjectType(type) ? type.getFields()[fieldName] : undefined;
    const resolve = field?.resolve;
    if (!field || !resolve) throw new Error(`unpaged list ${key} has no resolver to observe`);
    const observed: GraphQLFieldResolver<unknown, GatewayContext | undefined> = async (
      source,
      args,
      context,
      info,
    ) => {
      const list: unknown = await resolve(source, args, context, info);
      if (Array.isArray(list)) context?.facts?.listArrived(key, list.length);
      return list;
    };
    field.resolve = observed;
  }
  return schema;
}
