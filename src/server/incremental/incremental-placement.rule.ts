/**
 * Where `@defer` and `@stream` may stand, refused at validation with the other shape checks, so
 * every transport refuses them the same way (GRAPHQL_VALIDATION_FAILED) — graphql-js 17's rules
 * `DeferStreamDirectiveOnValidOperationsRule` and `StreamDirectiveOnListFieldRule`:
 * - neither in a subscription (unless its `if` is false): each event of a subscription is one
 *   answer, and no transport of Weft's delivers an event in parts;
 * - `@stream` only on a list field: there is nothing else to stream.
 *
 * Mutations are not refused: the spec allows both there, and Weft answers them whole
 * (incremental-delivery.plugin.ts serves queries only), which every client that sent them reads.
 */
import {
  getNullableType,
  GraphQLError,
  isListType,
  Kind,
  type ASTVisitor,
  type DirectiveNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type ValidationContext,
} from 'graphql';

/** `if: false` turns the directive off: allowed anywhere. A variable may be true: refused. */
const isOff = (directive: DirectiveNode): boolean =>
  directive.arguments?.some(
    (argument) =>
      argument.name.value === 'if' &&
      argument.value.kind === Kind.BOOLEAN &&
      argument.value.value === false,
  ) ?? false;

export function IncrementalPlacementRule(context: ValidationContext): ASTVisitor {
  /** Fragments a subscription of the document uses, directly or through other fragments. */
  const usedBySubscriptions = new Set<string>();
  for (const definition of context.getDocument().definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION || definition.operation !== 'subscription')
      continue;
    for (const fragment of context.getRecursivelyReferencedFragments(definition)) {
      usedBySubscriptions.add(fragment.name.value);
    }
  }
  return {
    Directive(node, _key, _parent, _path, ancestors) {
      const name = node.name.value;
      if (name !== 'defer' && name !== 'stream') return;
      if (name === 'stream') {
        // The type of the field the directive stands on (its definition is known: an unknown field
        // is another rule's error).
        const type = context.getFieldDef() ? context.getType() : undefined;
        if (type && !isListType(getNullableType(type))) {
          context.reportError(
            new GraphQLError(
              `\`@stream\` is only for list fields: \`${context.getParentType()?.name}.${context.getFieldDef()?.name}\` returns \`${String(type)}\`.`,
              { nodes: node },
            ),
          );
        }
      }
      if (isOff(node)) return;
      const definition = ancestors[2] as OperationDefinitionNode | FragmentDefinitionNode;
      const inSubscription =
        definition.kind === Kind.OPERATION_DEFINITION
          ? definition.operation === 'subscription'
          : usedBySubscriptions.has(definition.name.value);
      if (!inSubscription) return;
      context.reportError(
        new GraphQLError(
          `\`@${name}\` is not supported in a subscription: each event is delivered whole. Remove it or pass \`if: false\`.`,
          { nodes: node },
        ),
      );
    },
  };
}
