/**
 * A tool call's answer, from its operation's GraphQL result (docs/agents.md "Results"): the `data`
 * as the structured content (and as JSON text, for clients that read only text), or — when no field
 * answered (no data, or every root field null beside errors) — a tool error whose structured content is the GraphQL errors, each with Weft's typed
 * `code` and its details (`retryAfterSec`, `limit`, `argument` …), and the budget beside a
 * RATE_LIMITED one. What the call spent rides in `_meta`: the ledger of its upstream calls, the bound
 * it was held to, the budget after it (docs/budget.md).
 *
 * Nothing is added that the GraphQL answer did not hold: card data and secret values never reach a
 * result because the graph never returns them.
 */
import type { GraphQLFormattedError } from 'graphql';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { BudgetSnapshot } from '../../upstream/budget-tracker.ts';
import { UPSTREAM_META } from './mcp-tools.ts';

/** How a call ended, for the metrics: `refused` spent nothing because of its bound. */
export type ToolOutcome = 'success' | 'error' | 'refused';

/** What Weft adds to a tool call's result about its cost. */
export interface CallFacts {
  readonly tool: string;
  readonly requestId: string;
  /** The operation's `extensions.upstream` (ledger, estimate, budget), when it ran. */
  readonly upstream?: unknown;
  /** The first result replayed for the same `idempotencyKey`. */
  readonly replayed?: boolean;
}

const codeOf = (error: GraphQLFormattedError): string | undefined => {
  const code = error.extensions?.code;
  return typeof code === 'string' ? code : undefined;
};

/** Refused because its bound exceeded what is left of the window: nothing was spent. */
export const isBoundRefusal = (error: GraphQLFormattedError): boolean =>
  codeOf(error) === 'RATE_LIMITED' && error.extensions?.['limiter'] === 'OPERATION_BOUND';

/**
 * What an agent reads of an error. The refusal of a bound is said in its own words: the GraphQL
 * message names a request header, which an agent does not send.
 */
function errorText(error: GraphQLFormattedError): string {
  const extensions = error.extensions ?? {};
  if (isBoundRefusal(error)) {
    return (
      `RATE_LIMITED: this call can make up to ${String(extensions['bound'])} upstream calls and ` +
      `${String(extensions['remaining'])} are left for it in this window: nothing was spent. Retry ` +
      `in ${String(extensions['retryAfterSec'])} s, or ask for less (a smaller page).`
    );
  }
  const path = error.path ? ` (at ${error.path.join('.')})` : '';
  return `${codeOf(error) ?? 'ERROR'}: ${error.message}${path}`;
}

function metaOf(facts: CallFacts): Record<string, unknown> {
  return {
    [UPSTREAM_META]: { tool: facts.tool, ...(facts.upstream as object | undefined) },
    'weft/requestId': facts.requestId,
    ...(facts.replayed ? { 'weft/idempotentReplayed': true } : {}),
  };
}

/** The result of a call whose operation answered `data` and/or `errors`. */
export function toolResultOf(
  answer: { readonly data?: unknown; readonly errors?: readonly GraphQLFormattedError[] },
  facts: CallFacts,
  /** The budget now, for an answer refused for want of it. */
  budget: BudgetSnapshot | undefined,
): { result: CallToolResult; outcome: ToolOutcome } {
  const errors = answer.errors ?? [];
  const data = answer.data as Record<string, unknown> | null | undefined;
  // Something came back: a field answered, or nothing failed (a root field may be null by right).
  const answered =
    data !== null &&
    data !== undefined &&
    (errors.length === 0 || Object.values(data).some((value) => value !== null));
  if (answered) {
    const text = [
      JSON.stringify(data),
      ...(errors.length > 0 ? [`Some fields failed:\n${errors.map(errorText).join('\n')}`] : []),
    ].join('\n\n');
    return {
      result: {
        content: [{ type: 'text', text }],
        structuredContent: data,
        _meta: { ...metaOf(facts), ...(errors.length > 0 ? { 'weft/errors': errors } : {}) },
      },
      outcome: 'success',
    };
  }
  return errorResultOf(errors, facts, budget);
}

/** A tool error: the typed errors, and the budget beside a refusal for want of it. */
export function errorResultOf(
  errors: readonly GraphQLFormattedError[],
  facts: CallFacts,
  budget?: BudgetSnapshot | undefined,
): { result: CallToolResult; outcome: ToolOutcome } {
  const limited = errors.some((error) => codeOf(error) === 'RATE_LIMITED');
  return {
    result: {
      isError: true,
      content: [{ type: 'text', text: errors.map(errorText).join('\n') }],
      structuredContent: { errors, ...(limited && budget ? { budget: { ...budget } } : {}) },
      _meta: metaOf(facts),
    },
    outcome: errors.length > 0 && errors.every(isBoundRefusal) ? 'refused' : 'error',
  };
}
