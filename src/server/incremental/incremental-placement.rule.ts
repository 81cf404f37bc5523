/**
 * `@defer` may not be used in a subscription (graphql-js 17's rule, `DeferStreamDirectiveOnValid
 * OperationsRule`, unless its `if` is false): each event of a subscription is one answer, and no
 * transport of Weft's delivers an event in parts. Refused at validation, with the other shape
 * checks, so every transport refuses it the same way (GRAPHQL_VALIDATION_FAILED).
 *
 * Mutations are not refused: the spec allows `@defer` there, and Weft answers them whole
 * (incremental-delivery.plugin.ts serves queries only), which every client that sent it reads.
 */
import {
  GraphQLError,
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

export function DeferPlacementRule(context: ValidationContext): ASTVisitor {
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
      if (node.name.value !== 'defer' || isOff(node)) return;
      const definition = ancestors[2] as OperationDefinitionNode | FragmentDefinitionNode;
      const inSubscription =
        definition.kind === Kind.OPERATION_DEFINITION
          ? definition.operation === 'subscription'
          : usedBySubscriptions.has(definition.name.value);
      if (!inSubscription) return;
      context.reportError(
        new GraphQLError(
          '`@defer` is not supported in a subscription: each event is delivered whole. Remove it or pass `if: false`.',
          { nodes: node },
        ),
      );
    },
  };
}
