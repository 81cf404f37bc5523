/**
 * Weft's own tool beside the operator's (docs/agents.md "Cost and refusals"): the bound in upstream
 * calls of a call of another tool with its arguments, and what is left of the window for it,
 * without running it — what `Weft-Estimate: 1` answers a GraphQL client, plus the budget. It checks
 * the arguments as the call would (an argument that does not fit is named) and says whether the
 * call would be let in now, or when to retry. It costs no upstream call: the budget is read from
 * the limiter.
 */
import type { GraphQLFormattedError, GraphQLSchema } from 'graphql';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '../../errors/error-codes.ts';
import { GatewayError } from '../../errors/gateway-errors.ts';
import { formatGraphQLError, stampRequestId } from '../../errors/graphql-errors.ts';
import type { GatewayMetrics } from '../../observability/metrics.ts';
import type { BudgetTracker } from '../../upstream/budget-tracker.ts';
import type { RequestPriority } from '../../upstream/request-scope.ts';
import type { UpstreamCallPolicy } from '../demand-control/upstream-call-policy.ts';
import type { OperationPipeline } from '../operation-pipeline.ts';
import type { McpTool } from './mcp-tools.ts';
import { operationArguments } from './tool-arguments.ts';
import { errorResultOf } from './tool-results.ts';
import { formattedErrors, type ToolCaller } from './tool-runner.ts';

/** The estimate tool's name (no operator's operation may take it). */
export const ESTIMATE_TOOL = 'weft_estimate';

export interface EstimateToolOptions {
  readonly schema: GraphQLSchema;
  readonly pipeline: Pick<OperationPipeline, 'refuseOperation'>;
  readonly calls: UpstreamCallPolicy;
  readonly budget: BudgetTracker;
  readonly priority: RequestPriority;
  readonly metrics: GatewayMetrics | undefined;
}

export interface EstimateTool {
  readonly definition: Tool;
  run(
    args: Readonly<Record<string, unknown>> | undefined,
    caller: ToolCaller,
  ): Promise<CallToolResult>;
}

export function createEstimateTool(
  tools: ReadonlyMap<string, McpTool>,
  options: EstimateToolOptions,
): EstimateTool {
  const { schema, pipeline, calls, budget, priority, metrics } = options;
  const refuse = (error: GatewayError, caller: ToolCaller) => {
    const errors = formattedErrors(error, caller.requestId);
    return errorResultOf(errors, { tool: ESTIMATE_TOOL, requestId: caller.requestId }).result;
  };
  return {
    definition: {
      name: ESTIMATE_TOOL,
      description:
        'The most upstream calls a call of another tool with these arguments can make, its ' +
        'costliest fields, what is left of the window for it and whether it would run now (else ' +
        'when to retry), without running it. Costs no upstream call.',
      inputSchema: {
        type: 'object',
        properties: {
          tool: { type: 'string', enum: [...tools.keys()], description: 'The tool to estimate.' },
          arguments: {
            type: 'object',
            description:
              "The call's arguments, as the tool takes them (an idempotencyKey is not needed).",
          },
        },
        required: ['tool'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async run(args, caller) {
      const started = performance.now();
      const result = await estimateOf(args, caller);
      const codes = result.isError
        ? ((result.structuredContent as { errors: GraphQLFormattedError[] }).errors ?? []).map(
            (error) => String(error.extensions?.['code']),
          )
        : [];
      metrics?.toolCall(ESTIMATE_TOOL, result.isError ? 'error' : 'success', 0);
      caller.note({
        operationName: null,
        errors: codes.length,
        ...(codes.length > 0 ? { errorCodes: codes } : {}),
        durationMs: Math.round(performance.now() - started),
        tool: ESTIMATE_TOOL,
      });
      return result;
    },
  };

  async function estimateOf(
    args: Readonly<Record<string, unknown>> | undefined,
    caller: ToolCaller,
  ): Promise<CallToolResult> {
    const name = args?.['tool'];
    const tool = typeof name === 'string' ? tools.get(name) : undefined;
    if (!tool) {
      return refuse(
        new GatewayError(
          ErrorCode.BAD_USER_INPUT,
          `\`tool\` must name one of: ${[...tools.keys()].join(', ')}.`,
          {
            argument: 'tool',
          },
        ),
        caller,
      );
    }
    const given = args?.['arguments'];
    if (
      given !== undefined &&
      (typeof given !== 'object' || given === null || Array.isArray(given))
    ) {
      return refuse(
        new GatewayError(ErrorCode.BAD_USER_INPUT, '`arguments` must be an object.', {
          argument: 'arguments',
        }),
        caller,
      );
    }
    const parsed = operationArguments(
      tool.operation,
      given as Record<string, unknown> | undefined,
      false,
    );
    if (parsed instanceof GatewayError) return refuse(parsed, caller);
    const { document, operation } = tool.operation;
    // The checks the call itself would meet first: variables, ranges, cost, the maximum.
    const problems = pipeline.refuseOperation(schema, document, operation, parsed.variables);
    if (problems) {
      const errors = problems.map((problem) => formatGraphQLError(problem.toJSON(), problem));
      stampRequestId(errors, caller.requestId);
      return errorResultOf(errors, { tool: ESTIMATE_TOOL, requestId: caller.requestId }).result;
    }
    const bound = calls.boundOf(schema, document, operation, parsed.variables);
    const now = await budget.snapshot(caller.credential).catch(() => undefined);
    const verdict =
      now && calls.admit(schema, document, operation, parsed.variables, now, priority);
    const estimate = {
      tool: tool.definition.name,
      calls: Number.isFinite(bound.calls) ? bound.calls : null,
      byField: bound.byField,
      unpaged: bound.unpaged,
      ...(now
        ? {
            budget: { ...now },
            leftForTool: calls.leftFor(operation.operation, now, priority),
            runsNow: verdict?.refusal === undefined,
            ...(verdict?.refusal
              ? { retryAfterSec: verdict.refusal.details['retryAfterSec'] }
              : {}),
          }
        : {}),
    };
    return {
      content: [{ type: 'text', text: JSON.stringify(estimate) }],
      structuredContent: estimate,
    };
  }
}
