/**
 * The document checks that run before any parse: past the size limit, past the token limit, or — in
 * trusted-documents mode — not in the manifest. Running first means an oversize or untrusted
 * document costs one string length and one lexer pass, never a parse, a validation or a suggestion
 * that reveals the schema. Apollo's own `parseOptions.maxTokens` stays set as a backstop.
 *
 * Reads the operation the way GraphQL over HTTP carries it: a POST body (JSON, or the `operations`
 * field multipart uploads turn into the body) or GET query parameters. A hash-only APQ request has
 * no text to measure: its document was measured when it was registered.
 */
import { Lexer, parse, Source, TokenKind, type DocumentNode } from 'graphql';
import type { FastifyRequest } from 'fastify';
import { ErrorCode } from '../../errors/error-codes.ts';
import { GatewayError } from '../../errors/gateway-errors.ts';
import { documentHash, type TrustedDocuments } from '../persisted-operations/trusted-documents.ts';
import { limitExceeded, type OperationLimits } from './operation-limits.ts';
import { shapeRefusal } from './operation-shape.rule.ts';
import { graphqlParamsOf } from '../graphql-params.ts';

/** What the document checks need. */
export interface DocumentLimits {
  readonly limits: OperationLimits;
  /** Trusted-documents mode when set. */
  readonly trusted: TrustedDocuments | undefined;
}

/** What a request says about its document. */
export interface RequestedDocument {
  readonly query: string | undefined;
  readonly sha256Hash: string | undefined;
}

/** The document text and/or APQ hash of a GET or POST GraphQL request (undefined: none to check). */
export function requestedDocument(request: FastifyRequest): RequestedDocument | undefined {
  const params = graphqlParamsOf(request);
  if (!params || (params.query === undefined && params.persistedHash === undefined)) {
    return undefined;
  }
  return { query: params.query, sha256Hash: params.persistedHash };
}

/**
 * Counts lexical tokens (comments excluded, as graphql-js's parser counts them); undefined when the
 * text does not lex. The size limit bounds the work.
 */
export function countTokens(text: string): number | undefined {
  const lexer = new Lexer(new Source(text));
  let count = 0;
  try {
    while (lexer.advance().kind !== TokenKind.EOF) count += 1;
  } catch {
    return undefined; // a syntax error: Apollo's parser reports it with its location
  }
  return count;
}

/**
 * Why a document is refused, or undefined — in order of cost: its size; whether it is trusted (in
 * that mode); then one parse, which stops past the token limit (the tokens are counted only then,
 * for the refusal's `actual`), and the shape limits on the parsed document. A document that does
 * not parse within the limit is left to Apollo's parser, which reports the syntax error.
 */
export function refusalOf(
  document: RequestedDocument,
  options: DocumentLimits,
): GatewayError | undefined {
  const { query, sha256Hash } = document;
  const { limits } = options;
  if (query !== undefined) {
    const bytes = Buffer.byteLength(query, 'utf8');
    if (bytes > limits.maxDocumentBytes) {
      return limitExceeded('documentSize', limits.maxDocumentBytes, bytes);
    }
  }
  if (options.trusted) {
    const hash = query !== undefined ? documentHash(query) : sha256Hash;
    if (hash === undefined || !options.trusted.has(hash)) {
      return new GatewayError(
        ErrorCode.FORBIDDEN,
        'This server only runs trusted documents, and this operation is not one of them.',
        { reason: 'UNTRUSTED_DOCUMENT' },
      );
    }
  }
  if (query === undefined) return undefined;
  let parsed: DocumentNode;
  try {
    parsed = parse(query, { maxTokens: limits.maxTokens, noLocation: true });
  } catch {
    const tokens = countTokens(query);
    return tokens !== undefined && tokens > limits.maxTokens
      ? limitExceeded('tokens', limits.maxTokens, tokens)
      : undefined;
  }
  return shapeRefusal(parsed, limits);
}
