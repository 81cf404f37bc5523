/**
 * The operations an operator chose for agents (docs/agents.md "Choose the tools"): every named
 * query and mutation of the `.graphql` files of MCP_OPERATIONS_DIR, or, without it, of the
 * trusted-documents manifest. Each is checked at start-up as the GraphQL endpoint would check it —
 * the document limits and the trusted-documents check, parsing, validation against the graph with
 * the shape limits — so a tool is never an operation the endpoint would refuse.
 *
 * A folder is the operator's list of tools: anything in it that cannot be one (a subscription, an
 * anonymous operation, a name used twice, a document that does not validate) stops the start-up,
 * naming the file. A manifest is the clients' list first: what cannot be a tool is left out, and
 * the start-up log says how many were.
 */
import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative } from 'node:path';
import {
  Kind,
  TokenKind,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValidationRule,
} from 'graphql';
import type { GatewayError } from '../../errors/gateway-errors.ts';
import type { RequestedDocument } from '../limits/document-limits.ts';
import type { TrustedDocuments } from '../persisted-operations/trusted-documents.ts';

/** One operation that becomes a tool. */
export interface ChosenOperation {
  /** The operation's name: the tool's name. */
  readonly name: string;
  readonly type: 'query' | 'mutation';
  /** The whole document it is sent as (its fragments and any other operation of the file). */
  readonly text: string;
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  /** The `#` comment lines right above the operation: what the tool is for. */
  readonly comment: string | undefined;
  /** Where it was read: a file below the folder, or `manifest#n`. */
  readonly source: string;
}

/** The checks the GraphQL endpoint runs on a document before it runs it. */
export interface DocumentChecks {
  readonly schema: GraphQLSchema;
  /** Size, tokens, trusted documents, shape (the pipeline's step 2). */
  refuseDocument(document: RequestedDocument): GatewayError | undefined;
  /** The pipeline's validation rules beside graphql-js's. */
  readonly validationRules: readonly ValidationRule[];
}

/** A file or manifest entry that cannot give tools, and why: stops the start-up. */
export class ChosenOperationError extends Error {
  override readonly name = 'ChosenOperationError';
}

/** The text of the comment lines right above an operation (graphql-js keeps comments as tokens). */
function commentAbove(operation: OperationDefinitionNode): string | undefined {
  const lines: string[] = [];
  let token = operation.loc?.startToken.prev;
  while (token && token.kind === TokenKind.COMMENT) {
    lines.unshift(token.value.trim());
    token = token.prev;
  }
  const text = lines.join(' ').trim();
  return text === '' ? undefined : text;
}

/**
 * The named queries and mutations of one document, after the endpoint's checks; a problem is thrown
 * as a {@link ChosenOperationError} naming `source`.
 */
function operationsOf(
  text: string,
  source: string,
  checks: DocumentChecks,
): { operations: ChosenOperation[]; skipped: string[] } {
  const refusal = checks.refuseDocument({ query: text, sha256Hash: undefined });
  if (refusal) throw new ChosenOperationError(`${source}: refused (${refusal.message})`);
  let document: DocumentNode;
  try {
    document = parse(text);
  } catch (error) {
    throw new ChosenOperationError(`${source}: does not parse (${(error as Error).message})`);
  }
  const [invalid] = validate(checks.schema, document, [
    ...specifiedRules,
    ...checks.validationRules,
  ]);
  if (invalid) {
    throw new ChosenOperationError(`${source}: invalid against the graph (${invalid.message})`);
  }
  const operations: ChosenOperation[] = [];
  const skipped: string[] = [];
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const name = definition.name?.value;
    if (name === undefined) {
      skipped.push(`${source}: an anonymous operation (a tool needs the operation's name)`);
      continue;
    }
    if (definition.operation === 'subscription') {
      skipped.push(`${source}: ${name} is a subscription (a tool answers once)`);
      continue;
    }
    operations.push({
      name,
      type: definition.operation,
      text,
      document,
      operation: definition,
      comment: commentAbove(definition),
      source,
    });
  }
  return { operations, skipped };
}

/** Every named query and mutation of the folder's `.graphql`/`.gql` files, subfolders included. */
export async function operationsOfFolder(
  folder: string,
  checks: DocumentChecks,
): Promise<ChosenOperation[]> {
  let entries: string[];
  try {
    entries = await readdir(folder, { recursive: true });
  } catch (error) {
    throw new ChosenOperationError(`MCP_OPERATIONS_DIR ${folder}: ${(error as Error).message}`);
  }
  const files = entries.filter((entry) => ['.graphql', '.gql'].includes(extname(entry))).sort();
  const chosen: ChosenOperation[] = [];
  for (const file of files) {
    const path = join(folder, file);
    const source = relative(process.cwd(), path) || path;
    const { operations, skipped } = operationsOf(await readFile(path, 'utf8'), source, checks);
    if (skipped.length > 0) throw new ChosenOperationError(skipped[0]!);
    chosen.push(...operations);
  }
  const names = new Map<string, string>();
  for (const operation of chosen) {
    const first = names.get(operation.name);
    if (first !== undefined) {
      throw new ChosenOperationError(
        `${operation.source}: ${operation.name} is also in ${first} (a tool's name is its operation's)`,
      );
    }
    names.set(operation.name, operation.source);
  }
  if (chosen.length === 0) {
    throw new ChosenOperationError(
      `MCP_OPERATIONS_DIR ${folder}: no named query or mutation in a .graphql file`,
    );
  }
  return chosen;
}

/**
 * The named queries and mutations of the manifest, and what was left out: documents the graph
 * refuses, subscriptions, anonymous operations, and a name several documents define (versions of
 * one operation: which one an agent should run is the operator's to say, with a folder).
 */
export function operationsOfManifest(
  trusted: TrustedDocuments,
  checks: DocumentChecks,
): { operations: ChosenOperation[]; leftOut: string[] } {
  const byName = new Map<string, ChosenOperation[]>();
  const leftOut: string[] = [];
  let index = 0;
  for (const text of trusted.documents()) {
    index += 1;
    try {
      const { operations, skipped } = operationsOf(text, `manifest#${index}`, checks);
      leftOut.push(...skipped);
      for (const operation of operations) {
        byName.set(operation.name, [...(byName.get(operation.name) ?? []), operation]);
      }
    } catch (error) {
      leftOut.push((error as Error).message);
    }
  }
  const operations: ChosenOperation[] = [];
  for (const [name, versions] of byName) {
    if (versions.length === 1) operations.push(versions[0]!);
    else leftOut.push(`${name}: defined by ${versions.length} documents of the manifest`);
  }
  return { operations, leftOut };
}
