/**
 * The bounds of numeric arguments, declared in the SDL with `@range(min:, max:)` and checked before
 * the operation's cost is estimated: `first: 500` is refused as "`first` must be a whole number from
 * 1 to 100", naming the argument, rather than as an estimated cost the client cannot act on. The
 * resolvers keep their own checks; this one answers first and for every transport.
 *
 * Only the operation that runs and the fragments it spreads are read, so another operation of the
 * same document cannot get it refused. Messages name the argument and its bounds, never the value
 * (it may come from a variable).
 */
import { getDirective } from '@graphql-tools/utils';
import {
  Kind,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type ArgumentNode,
  type ASTNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLError,
  type GraphQLArgument,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { ErrorCode } from '../../errors/error-codes.ts';
import { GatewayError } from '../../errors/gateway-errors.ts';
import { numberGiven } from './int-argument.ts';
import { limitGraphQLError } from '../limits/operation-limits.ts';

export interface Range {
  readonly min?: number;
  readonly max?: number;
}

/** Argument definition → its declared range (null: none); read once per schema object. */
const rangeCache = new WeakMap<GraphQLArgument, Range | null>();

export function rangeOf(schema: GraphQLSchema, argument: GraphQLArgument): Range | null {
  const known = rangeCache.get(argument);
  if (known !== undefined) return known;
  const [declared] = getDirective(schema, argument, 'range') ?? [];
  const range =
    declared === undefined
      ? null
      : {
          ...(typeof declared['min'] === 'number' ? { min: declared['min'] } : {}),
          ...(typeof declared['max'] === 'number' ? { max: declared['max'] } : {}),
        };
  rangeCache.set(argument, range);
  return range;
}

/** The fragments the operation spreads, directly or through other fragments. */
function fragmentsUsedBy(
  document: DocumentNode,
  operation: OperationDefinitionNode,
): FragmentDefinitionNode[] {
  const byName = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) byName.set(definition.name.value, definition);
  }
  const used = new Map<string, FragmentDefinitionNode>();
  const pending: ASTNode[] = [operation];
  while (pending.length > 0) {
    visit(pending.pop()!, {
      FragmentSpread(spread) {
        const fragment = byName.get(spread.name.value);
        if (fragment && !used.has(fragment.name.value)) {
          used.set(fragment.name.value, fragment);
          pending.push(fragment);
        }
      },
    });
  }
  return [...used.values()];
}

function outOfRange(argument: ArgumentNode, range: Range): GraphQLError {
  const name = argument.name.value;
  const bounds =
    range.min !== undefined && range.max !== undefined
      ? `from ${range.min} to ${range.max}`
      : range.min !== undefined
        ? `of at least ${range.min}`
        : `of at most ${range.max}`;
  const refusal = new GatewayError(
    ErrorCode.BAD_USER_INPUT,
    `\`${name}\` must be a whole number ${bounds}`,
    { field: name, ...range },
  );
  return limitGraphQLError(refusal, argument);
}

interface RangedArgument {
  readonly node: ArgumentNode;
  readonly range: Range;
}

/**
 * Operation → its arguments that have a declared range, found once: Apollo and the subscription
 * transports hand over the same parsed document for the same text, so a request only reads values.
 */
const rangedArgumentsCache = new WeakMap<
  GraphQLSchema,
  WeakMap<OperationDefinitionNode, readonly RangedArgument[]>
>();

function rangedArguments(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): readonly RangedArgument[] {
  let bySchema = rangedArgumentsCache.get(schema);
  if (!bySchema) {
    bySchema = new WeakMap();
    rangedArgumentsCache.set(schema, bySchema);
  }
  const known = bySchema.get(operation);
  if (known) return known;
  const found: RangedArgument[] = [];
  const typeInfo = new TypeInfo(schema);
  const visitor = visitWithTypeInfo(typeInfo, {
    Argument(node) {
      const definition = typeInfo.getArgument();
      const range = definition ? rangeOf(schema, definition) : null;
      if (range) found.push({ node, range });
    },
  });
  for (const part of [operation, ...fragmentsUsedBy(document, operation)]) visit(part, visitor);
  bySchema.set(operation, found);
  return found;
}

/** The first argument of the operation outside its declared range, as an error; else undefined. */
export function argumentRangeProblem(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> | null | undefined,
): GraphQLError | undefined {
  for (const { node, range } of rangedArguments(schema, document, operation)) {
    const value = numberGiven(node.value, variables ?? {}, operation);
    if (value === undefined) continue;
    if (
      (range.min !== undefined && value < range.min) ||
      (range.max !== undefined && value > range.max)
    ) {
      return outOfRange(node, range);
    }
  }
  return undefined;
}
