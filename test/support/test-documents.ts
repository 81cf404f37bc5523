/**
 * The GraphQL operations written in the project's own tests:
 * every string or template literal of `test/**\/*.ts` (outside the folders `skip` names) that parses
 * as GraphQL and holds a query or mutation, one entry per operation — a document with several
 * operations gives one standalone document per operation, with the fragments it spreads. Literals
 * with `${…}` interpolation are left out (their text is not the operation). Found with the
 * TypeScript compiler's scanner, so quotes and backticks inside code or comments are no trouble.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  Kind,
  parse,
  print,
  visit,
  type DefinitionNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
} from 'graphql';
import ts from 'typescript';

export interface TestOperation {
  /** Where it was written: `test/…/file.ts:line`, with the operation's name when it has one. */
  readonly source: string;
  /** The operation alone (with the fragments it uses), printed. */
  readonly query: string;
  readonly kind: 'query' | 'mutation' | 'subscription';
}

export interface TestDocuments {
  /** String and template literals without interpolation seen (before dedupe). */
  readonly literals: number;
  /** Distinct literal texts that parsed as GraphQL and hold at least one operation. */
  readonly parsed: number;
  readonly operations: readonly TestOperation[];
}

const ROOT = join(import.meta.dirname, '../..');

function tsFiles(dir: string, skip: readonly string[]): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (skip.some((s) => relative(ROOT, path) === s)) continue;
    if (statSync(path).isDirectory()) out.push(...tsFiles(path, skip));
    else if (entry.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** The literals of a file without interpolation, with their line. */
function literals(file: string): { text: string; line: number }[] {
  const sourceText = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, sourceText, ts.ScriptTarget.Latest, true);
  const found: { text: string; line: number }[] = [];
  const walk = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))
      found.push({
        text: node.text,
        line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
      });
    ts.forEachChild(node, walk);
  };
  walk(source);
  return found;
}

/** The fragments an operation spreads, transitively. */
function withFragments(
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): DocumentNode {
  const used = new Set<string>();
  const pending: DefinitionNode[] = [operation];
  while (pending.length > 0) {
    visit(pending.pop()!, {
      FragmentSpread(node) {
        const name = node.name.value;
        const fragment = fragments.get(name);
        if (!used.has(name) && fragment) {
          used.add(name);
          pending.push(fragment);
        }
      },
    });
  }
  return {
    kind: Kind.DOCUMENT,
    definitions: [operation, ...[...used].map((name) => fragments.get(name)!)],
  };
}

/** Cheap filter before parsing: a literal that could be an operation. */
const LOOKS_LIKE = /^\s*(query|mutation|subscription|fragment|\{)/;

export function collectTestOperations(skip: readonly string[] = []): TestDocuments {
  const seen = new Set<string>();
  let count = 0;
  let parsed = 0;
  const operations: TestOperation[] = [];
  for (const file of tsFiles(join(ROOT, 'test'), skip)) {
    for (const { text, line } of literals(file)) {
      count += 1;
      if (!LOOKS_LIKE.test(text) || seen.has(text)) continue;
      seen.add(text);
      let document: DocumentNode;
      try {
        document = parse(text);
      } catch {
        continue;
      }
      const ops = document.definitions.filter(
        (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
      );
      if (ops.length === 0) continue;
      parsed += 1;
      const fragments = new Map(
        document.definitions
          .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
          .map((d) => [d.name.value, d]),
      );
      for (const op of ops)
        operations.push({
          source: `${relative(ROOT, file)}:${line}${op.name ? ` ${op.name.value}` : ''}`,
          query: ops.length === 1 ? text : print(withFragments(op, fragments)),
          kind: op.operation,
        });
    }
  }
  return { literals: count, parsed, operations };
}
