/**
 * The structural limits as one graphql-js validation rule: depth, aliases, root fields and
 * directives of each operation, measured through fragment spreads and inline fragments exactly as
 * execution would expand them. Introspection fields count like any other field and an operation's
 * name changes nothing, so neither is a way around a limit.
 *
 * Fragments are measured once each (memoized): a "fragment bomb" (A spreads B twice, B spreads C
 * twice, …) yields huge totals, which are refused, instead of exponential work. A fragment cycle
 * counts as empty here; graphql-js's NoFragmentCyclesRule refuses it in the same validation pass.
 */
import {
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { GatewayError } from '../../errors/gateway-errors.ts';
import { limitExceeded, limitGraphQLError, type OperationLimits } from './operation-limits.ts';

/** What the rule measures of a selection set. */
export interface SelectionShape {
  /** Deepest field nesting: `{ a { b } }` is 2. */
  readonly depth: number;
  readonly aliases: number;
  readonly directives: number;
  /** Fields at this level (excluding `__typename`), through fragments: the root fields of an operation. */
  readonly fields: number;
}

const EMPTY: SelectionShape = { depth: 0, aliases: 0, directives: 0, fields: 0 };

/** Measures operations of one document; fragments are measured once. */
export function createShapeMeter(
  fragmentOf: (name: string) => FragmentDefinitionNode | undefined | null,
) {
  const measured = new Map<string, SelectionShape>();
  const inProgress = new Set<string>();

  function fragmentShape(name: string): SelectionShape {
    const known = measured.get(name);
    if (known) return known;
    const fragment = fragmentOf(name);
    if (!fragment || inProgress.has(name)) return EMPTY;
    inProgress.add(name);
    const inner = selectionShape(fragment.selectionSet);
    inProgress.delete(name);
    const shape = { ...inner, directives: inner.directives + (fragment.directives?.length ?? 0) };
    measured.set(name, shape);
    return shape;
  }

  function selectionShape(selectionSet: SelectionSetNode): SelectionShape {
    let depth = 0;
    let aliases = 0;
    let directives = 0;
    let fields = 0;
    for (const selection of selectionSet.selections) {
      directives += selection.directives?.length ?? 0;
      if (selection.kind === 'Field') {
        const child = selection.selectionSet ? selectionShape(selection.selectionSet) : EMPTY;
        depth = Math.max(depth, 1 + child.depth);
        aliases += (selection.alias ? 1 : 0) + child.aliases;
        directives += child.directives;
        if (selection.name.value !== '__typename') fields += 1;
        continue;
      }
      const inner =
        selection.kind === 'InlineFragment'
          ? selectionShape(selection.selectionSet)
          : fragmentShape(selection.name.value);
      depth = Math.max(depth, inner.depth);
      aliases += inner.aliases;
      directives += inner.directives;
      fields += inner.fields;
    }
    return { depth, aliases, directives, fields };
  }

  return {
    /** The shape of an operation, its own and its variables' directives included. */
    operation(operation: OperationDefinitionNode): SelectionShape {
      const shape = selectionShape(operation.selectionSet);
      const own =
        (operation.directives?.length ?? 0) +
        (operation.variableDefinitions ?? []).reduce(
          (sum, variable) => sum + (variable.directives?.length ?? 0),
          0,
        );
      return { ...shape, directives: shape.directives + own };
    },
  };
}

/** The limits an operation's shape passes, each as its typed refusal. */
function exceededLimits(shape: SelectionShape, limits: OperationLimits): GatewayError[] {
  const checks = [
    ['depth', limits.maxDepth, shape.depth],
    ['aliases', limits.maxAliases, shape.aliases],
    ['rootFields', limits.maxRootFields, shape.fields],
    ['directives', limits.maxDirectives, shape.directives],
  ] as const;
  return checks
    .filter(([, max, actual]) => actual > max)
    .map(([limit, max, actual]) => limitExceeded(limit, max, actual));
}

/**
 * The first structural limit a parsed document passes, measured on the AST alone: linear in the
 * document, so it runs before validation (whose rules are not) and a refused document never costs
 * a validation (operation-pipeline.ts, step 2).
 */
export function shapeRefusal(
  document: DocumentNode,
  limits: OperationLimits,
): GatewayError | undefined {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION)
      fragments.set(definition.name.value, definition);
  }
  const meter = createShapeMeter((name) => fragments.get(name));
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const [refusal] = exceededLimits(meter.operation(definition), limits);
    if (refusal) return refusal;
  }
  return undefined;
}

/**
 * The same limits as a validation rule: a backstop for a document that reaches validation without
 * the pipeline's document step (it reports every limit each operation passes).
 */
export function createOperationShapeRule(limits: OperationLimits): ValidationRule {
  return (context: ValidationContext) => {
    const meter = createShapeMeter((name) => context.getFragment(name));
    return {
      OperationDefinition(operation) {
        for (const refusal of exceededLimits(meter.operation(operation), limits)) {
          context.reportError(limitGraphQLError(refusal, operation));
        }
        // The operation's subtree needs no visit of this rule: it was measured above.
        return false;
      },
    };
  };
}
