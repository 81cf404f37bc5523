/**
 * The operation limits (docs/security.md): what each one is, its configured maximum, and the error
 * that names it. Every check lives in this folder (cost and upstream calls in `demand-control/`)
 * and runs before any resolver, so a refused operation never costs an upstream call.
 */
import { GraphQLError, type ASTNode } from 'graphql';
import type { Config } from '../../config.ts';
import { ErrorCode } from '../../errors/error-codes.ts';
import { GatewayError } from '../../errors/gateway-errors.ts';

/** The name a refusal carries in `extensions.limit`. */
export type LimitName =
  | 'depth'
  | 'aliases'
  | 'rootFields'
  | 'directives'
  | 'tokens'
  | 'documentSize'
  | 'cost'
  | 'upstreamCalls';

/** The configured maxima (docs/security.md gives each default and why). */
export interface OperationLimits {
  readonly maxDepth: number;
  readonly maxAliases: number;
  readonly maxRootFields: number;
  readonly maxDirectives: number;
  readonly maxTokens: number;
  readonly maxDocumentBytes: number;
  readonly maxCost: number;
  /** The most upstream calls an operation may be able to make (its bound). */
  readonly maxUpstreamCalls: number;
  /** Size assumed for a list field without a size argument. */
  readonly defaultListSize: number;
}

/** The limits of a configuration. */
export function operationLimitsOf(config: Config): OperationLimits {
  return {
    maxDepth: config.LIMIT_MAX_DEPTH,
    maxAliases: config.LIMIT_MAX_ALIASES,
    maxRootFields: config.LIMIT_MAX_ROOT_FIELDS,
    maxDirectives: config.LIMIT_MAX_DIRECTIVES,
    maxTokens: config.LIMIT_MAX_TOKENS,
    maxDocumentBytes: config.LIMIT_MAX_DOCUMENT_BYTES,
    maxCost: config.LIMIT_MAX_COST,
    maxUpstreamCalls: config.LIMIT_MAX_UPSTREAM_CALLS,
    defaultListSize: config.LIMIT_DEFAULT_LIST_SIZE,
  };
}

const DESCRIPTIONS: Readonly<Record<LimitName, string>> = {
  depth: 'field depth',
  aliases: 'number of aliases',
  rootFields: 'number of root fields',
  directives: 'number of directives',
  tokens: 'number of tokens',
  documentSize: 'document size in bytes',
  cost: 'estimated cost',
  upstreamCalls: 'upper bound of upstream calls',
};

/**
 * The typed refusal: `BAD_USER_INPUT` with `extensions.limit`, `max` and `actual`, so a client can
 * tell which limit it hit and by how much (graphql-errors.ts keeps a GatewayError's details).
 */
export function limitExceeded(limit: LimitName, max: number, actual: number): GatewayError {
  return new GatewayError(
    ErrorCode.BAD_USER_INPUT,
    `Operation refused: its ${DESCRIPTIONS[limit]} is ${actual}, the limit (${limit}) is ${max}.`,
    { limit, max, actual },
  );
}

/**
 * A refusal raised inside Apollo's pipeline (validation rule or plugin hook): a GraphQLError that
 * carries the typed error as `originalError` and answers HTTP 400.
 */
export function limitGraphQLError(
  error: GatewayError,
  nodes?: ReadonlyArray<ASTNode> | ASTNode,
): GraphQLError {
  return new GraphQLError(error.message, {
    nodes,
    originalError: error,
    extensions: { http: { status: 400 } },
  });
}
