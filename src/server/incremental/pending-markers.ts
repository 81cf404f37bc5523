/**
 * What the `incrementalSpec=v0.2` format needs and the executor does not tell: which deferred
 * fragments and streamed lists are still to come when a part is written (that part's `pending`
 * entries, each with the path where its data will go). `@graphql-tools/executor` writes the 2022
 * format, where a part names its path only when it arrives; whether a fragment is deferred at a given
 * object depends on the object's runtime type, `@skip`/`@include` and the `if` arguments — decisions
 * the executor makes while it completes the object.
 *
 * So the executor is asked to say it: next to every `@defer` and `@stream`, the executed document
 * carries a marker — `__typename` under an alias of Weft's — selected under the same conditions as
 * the directive (the same type conditions, `@skip`/`@include`, and the directive's `if`), in the part
 * whose data holds the directive's path:
 * - for a deferred fragment, in the object it is deferred in, outside every deferred fragment of
 *   that object (the executor makes a fragment deferred inside another one of the same object a
 *   fragment of that object too, pending from the same part);
 * - for a streamed field, beside the field, so in the part that carries the list's first items.
 * The markers are taken out of each part before it is written ({@link takeMarkers}): the client sees
 * what it asked for. A marker costs nothing upstream (`__typename` is answered by the gateway, or
 * by a subgraph with the rest of its answer).
 */
import { GraphQLDeferDirective, GraphQLStreamDirective } from '@graphql-tools/utils';
import {
  getDirectiveValues,
  Kind,
  type ArgumentNode,
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type InlineFragmentNode,
  type NamedTypeNode,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';

const PREFIX = '__weftPending';

/** A marked `@defer` or `@stream`, by its marker's alias. */
export interface MarkedDirective {
  readonly kind: 'defer' | 'stream';
  readonly directive: DirectiveNode;
  /** A streamed field's response key (its alias or name). */
  readonly responseKey?: string;
}

export interface MarkedDocument {
  readonly document: DocumentNode;
  readonly markers: ReadonlyMap<string, MarkedDirective>;
}

/** A marker found in a part: the directive, and the path of the object it was selected in. */
export interface FoundMarker {
  readonly marked: MarkedDirective;
  readonly path: readonly (string | number)[];
  readonly object: Record<string, unknown>;
}

const named = (directives: readonly DirectiveNode[] | undefined, name: string) =>
  directives?.find((directive) => directive.name.value === name);

/** `@skip` and `@include`: the conditions a marker shares with the selection it stands beside. */
const conditions = (directives: readonly DirectiveNode[] | undefined): DirectiveNode[] =>
  directives?.filter((d) => d.name.value === 'skip' || d.name.value === 'include') ?? [];

function inlineFragment(
  selections: readonly SelectionNode[],
  directives: readonly DirectiveNode[] = [],
  typeCondition?: NamedTypeNode,
): InlineFragmentNode {
  return {
    kind: Kind.INLINE_FRAGMENT,
    ...(typeCondition ? { typeCondition } : {}),
    directives,
    selectionSet: { kind: Kind.SELECTION_SET, selections },
  };
}

/** The directive's `if` as an `@include`: a marker is selected only when the directive applies. */
function includedIf(directive: DirectiveNode, selection: SelectionNode): SelectionNode {
  const condition = directive.arguments?.find((argument) => argument.name.value === 'if');
  if (!condition) return selection;
  const include: DirectiveNode = {
    kind: Kind.DIRECTIVE,
    name: { kind: Kind.NAME, value: 'include' },
    arguments: [{ ...condition } satisfies ArgumentNode],
  };
  return inlineFragment([selection], [include]);
}

/** Marks the `@defer`s and `@stream`s of a document (once per parsed document). */
const marked = new WeakMap<DocumentNode, MarkedDocument>();

export function markPending(document: DocumentNode): MarkedDocument {
  const known = marked.get(document);
  if (known) return known;
  const markers = new Map<string, MarkedDirective>();
  const aliases = new Map<DirectiveNode, string>();
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION)
      fragments.set(definition.name.value, definition);
  }

  const marker = (directive: DirectiveNode, entry: MarkedDirective): FieldNode => {
    let alias = aliases.get(directive);
    if (alias === undefined) {
      alias = `${PREFIX}${aliases.size}`;
      aliases.set(directive, alias);
      markers.set(alias, entry);
    }
    return {
      kind: Kind.FIELD,
      alias: { kind: Kind.NAME, value: alias },
      name: { kind: Kind.NAME, value: '__typename' },
    };
  };

  /**
   * The markers of the deferred fragments an object's selection set reaches without entering a
   * field: each inside copies of the fragments around it (type condition, `@skip`/`@include`), none
   * of them deferred.
   */
  const deferMarkers = (selectionSet: SelectionSetNode, seen: Set<string>): SelectionNode[] => {
    const out: SelectionNode[] = [];
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) continue;
      let typeCondition: NamedTypeNode | undefined;
      let inner: SelectionNode[];
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        typeCondition = selection.typeCondition;
        inner = deferMarkers(selection.selectionSet, seen);
      } else {
        const fragment = fragments.get(selection.name.value);
        if (!fragment || seen.has(fragment.name.value)) continue;
        typeCondition = fragment.typeCondition;
        inner = deferMarkers(fragment.selectionSet, new Set(seen).add(fragment.name.value));
      }
      const defer = named(selection.directives, 'defer');
      if (defer)
        inner.unshift(includedIf(defer, marker(defer, { kind: 'defer', directive: defer })));
      if (inner.length > 0) {
        out.push(inlineFragment(inner, conditions(selection.directives), typeCondition));
      }
    }
    return out;
  };

  /** A selection set with a marker beside each streamed field; an object's also its defer markers. */
  const withMarkers = (selectionSet: SelectionSetNode, isObject: boolean): SelectionSetNode => {
    const selections: SelectionNode[] = [];
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        selections.push(selection);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        selections.push({ ...selection, selectionSet: withMarkers(selection.selectionSet, false) });
      } else {
        selections.push(
          selection.selectionSet
            ? { ...selection, selectionSet: withMarkers(selection.selectionSet, true) }
            : selection,
        );
        const stream = named(selection.directives, 'stream');
        if (stream) {
          const responseKey = selection.alias?.value ?? selection.name.value;
          const field = marker(stream, { kind: 'stream', directive: stream, responseKey });
          selections.push(
            inlineFragment([includedIf(stream, field)], conditions(selection.directives)),
          );
        }
      }
    }
    if (isObject) selections.push(...deferMarkers(selectionSet, new Set()));
    return { ...selectionSet, selections };
  };

  const definitions = document.definitions.map((definition) => {
    if (definition.kind === Kind.OPERATION_DEFINITION) {
      return { ...definition, selectionSet: withMarkers(definition.selectionSet, true) };
    }
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      return { ...definition, selectionSet: withMarkers(definition.selectionSet, false) };
    }
    return definition;
  });
  const result: MarkedDocument = { document: { ...document, definitions }, markers };
  marked.set(document, result);
  return result;
}

/**
 * Takes the markers out of a part's data (in place: the data is the executor's own, not yet
 * written) and returns them with where each was found. `path` is where `value` sits in the answer.
 */
export function takeMarkers(
  value: unknown,
  path: readonly (string | number)[],
  markers: ReadonlyMap<string, MarkedDirective>,
): FoundMarker[] {
  const found: FoundMarker[] = [];
  const at = [...path];
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index += 1) {
        at.push(index);
        walk(node[index]);
        at.pop();
      }
      return;
    }
    const object = node as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      const marked = key.startsWith(PREFIX) ? markers.get(key) : undefined;
      if (marked) {
        delete object[key];
        found.push({ marked, path: [...at], object });
        continue;
      }
      at.push(key);
      walk(object[key]);
      at.pop();
    }
  };
  walk(value);
  return found;
}

/** A directive's `label` and `initialCount` with the request's variables. */
export function directiveArguments(
  marked: MarkedDirective,
  variables: Record<string, unknown> | undefined,
): { label?: string; initialCount: number } {
  const values = getDirectiveValues(
    marked.kind === 'defer' ? GraphQLDeferDirective : GraphQLStreamDirective,
    { directives: [marked.directive] },
    variables ?? {},
  );
  const label = values?.['label'];
  const initialCount = values?.['initialCount'];
  return {
    ...(typeof label === 'string' ? { label } : {}),
    initialCount: typeof initialCount === 'number' ? initialCount : 0,
  };
}
