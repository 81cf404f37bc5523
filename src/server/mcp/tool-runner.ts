/**
 * Runs a tool call as the GraphQL operation it is (docs/agents.md): through Apollo Server and every
 * plugin an HTTP request passes — variables and limits, the bound against what is left of the
 * window for the agents' priority (refused before any upstream call), idempotency for a mutation,
 * execution, the ledger, metrics and the log line — with the caller's credential and
 * `MCP_PRIORITY`. Nothing here decides what a call may spend: the pipeline does, as for any client.
 */
import { HeaderMap, type ApolloServer } from '@apollo/server';
import type { GraphQLFormattedError } from 'graphql';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '../../errors/error-codes.ts';
import { GatewayError } from '../../errors/gateway-errors.ts';
import { formatGraphQLError, stampRequestId } from '../../errors/graphql-errors.ts';
import type { GatewayContext, RequestFields } from '../../kit/request-context.ts';
import type { GatewayMetrics } from '../../observability/metrics.ts';
import type { OperationLogFields } from '../../observability/operation-log.ts';
import type { BudgetTracker } from '../../upstream/budget-tracker.ts';
import type { Credential } from '../../upstream/credential.ts';
import { createRequestFacts } from '../../upstream/request-facts.ts';
import type { RequestPriority } from '../../upstream/request-scope.ts';
import { createUpstreamLedger } from '../../upstream/upstream-ledger.ts';
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER } from '../idempotency/idempotency.plugin.ts';
import type { McpTool } from './mcp-tools.ts';
import { operationArguments } from './tool-arguments.ts';
import { errorResultOf, toolResultOf, type ToolOutcome } from './tool-results.ts';

/** The MCP request a call came in: who calls, and where its operation's context comes from. */
export interface ToolCaller {
  readonly requestId: string;
  readonly credential: Credential;
  /** The operation's context: the gateway's services, this call's facts, priority and log. */
  contextOf(fields: Pick<RequestFields, 'facts' | 'priority' | 'noteOperation'>): GatewayContext;
  /** The request's one log line (server/access-log.ts). */
  note(fields: OperationLogFields): void;
}

export interface ToolRunnerOptions {
  readonly apollo: Pick<ApolloServer<GatewayContext>, 'executeOperation'>;
  readonly budget: BudgetTracker;
  /** `MCP_PRIORITY`. */
  readonly priority: RequestPriority;
  readonly metrics: GatewayMetrics | undefined;
}

/** One error about the call itself, formatted as the graph formats its errors. */
export function formattedErrors(error: GatewayError, requestId: string): GraphQLFormattedError[] {
  const errors = [formatGraphQLError({ message: error.message }, error)];
  stampRequestId(errors, requestId);
  return errors;
}

export interface ToolRunner {
  run(
    tool: McpTool,
    args: Readonly<Record<string, unknown>> | undefined,
    caller: ToolCaller,
  ): Promise<CallToolResult>;
}

export function createToolRunner(options: ToolRunnerOptions): ToolRunner {
  const { apollo, budget, priority, metrics } = options;
  const finish = (
    tool: McpTool,
    answer: { result: CallToolResult; outcome: ToolOutcome },
    upstream: number,
  ) => {
    metrics?.toolCall(tool.definition.name, answer.outcome, upstream);
    return answer.result;
  };
  return {
    async run(tool, args, caller) {
      const name = tool.definition.name;
      const started = performance.now();
      const given = operationArguments(tool.operation, args);
      if (given instanceof GatewayError) {
        caller.note({
          operationName: name,
          errors: 1,
          errorCodes: [given.code],
          durationMs: Math.round(performance.now() - started),
          tool: name,
        });
        const errors = formattedErrors(given, caller.requestId);
        return finish(tool, errorResultOf(errors, { tool: name, requestId: caller.requestId }), 0);
      }
      // Every call keeps its ledger: the result tells the agent what it spent.
      const facts = createRequestFacts(createUpstreamLedger(), true);
      const headers = new HeaderMap([['content-type', 'application/json']]);
      if (given.idempotencyKey !== undefined) {
        headers.set(IDEMPOTENCY_HEADER, given.idempotencyKey);
      }
      const { text } = tool.operation;
      const response = await apollo.executeOperation(
        {
          query: text,
          operationName: name,
          variables: given.variables,
          http: { method: 'POST', headers, search: '', body: {} },
        },
        {
          contextValue: caller.contextOf({
            facts,
            priority,
            noteOperation: (fields) => caller.note({ ...fields, tool: name }),
          }),
        },
      );
      const upstream = facts.ledger?.totals().upstream ?? 0;
      if (response.body.kind !== 'single') {
        // A tool's document asking for parts (`@defer`) is answered whole: never in parts here.
        const error = new GatewayError(ErrorCode.INTERNAL_SERVER_ERROR, 'Internal server error');
        const errors = formattedErrors(error, caller.requestId);
        return finish(
          tool,
          errorResultOf(errors, { tool: name, requestId: caller.requestId }),
          upstream,
        );
      }
      const { data, errors, extensions } = response.body.singleResult;
      const limited = errors?.some((error) => error.extensions?.['code'] === 'RATE_LIMITED');
      // Reading the budget costs no upstream call.
      const now = limited
        ? await budget.snapshot(caller.credential).catch(() => undefined)
        : undefined;
      const answer = toolResultOf(
        { data, errors },
        {
          tool: name,
          requestId: caller.requestId,
          upstream: extensions?.['upstream'],
          replayed: response.http.headers.get(REPLAYED_HEADER) === 'true',
        },
        now,
      );
      return finish(tool, answer, upstream);
    },
  };
}
