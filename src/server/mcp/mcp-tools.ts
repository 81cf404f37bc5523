/**
 * The MCP tools of the chosen operations (docs/agents.md "What an agent sees"): each tool is one
 * named query or mutation — its name the operation's, its input schema the operation's variables,
 * its output schema the shape of the data its selections answer, its description
 * the comment above the operation followed by its cost: the bound in upstream calls Weft computes
 * for it with the default arguments (docs/budget.md), the same bound `npm run cost` prints. A
 * mutation takes an `idempotencyKey` beside its variables: Weft runs it with that
 * `Idempotency-Key`, so that an agent's retry never writes twice.
 */
import type { GraphQLSchema } from 'graphql';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { UpstreamCallPolicy } from '../demand-control/upstream-call-policy.ts';
import type { UpstreamCallBound } from '../demand-control/upstream-call-bound.ts';
import { IDEMPOTENCY_KEY } from '../idempotency/request-fingerprint.ts';
import { ChosenOperationError, type ChosenOperation } from './chosen-operations.ts';
import { toolInputSchema, UnsupportedVariableError } from './tool-input-schema.ts';
import { toolOutputSchema } from './tool-output-schema.ts';

/** The argument of a mutation tool that becomes its `Idempotency-Key`. */
export const IDEMPOTENCY_ARGUMENT = 'idempotencyKey';

/** The `_meta` key under which a tool states its bound, and a result what it spent. */
export const UPSTREAM_META = 'weft/upstream';

/** Costliest fields a tool's description names. */
const NAMED_FIELDS = 3;

/** One tool: the operation it runs and what it tells the agent. */
export interface McpTool {
  readonly operation: ChosenOperation;
  readonly definition: Tool;
  /** The bound with the default arguments. */
  readonly bound: UpstreamCallBound;
}

/** What the descriptions say about the window, and how long a write's result is kept. */
export interface ToolTerms {
  /** Calls per window per credential (`UPSTREAM_RATE_LIMIT`). */
  readonly windowCalls: number;
  readonly windowSec: number;
  /** `IDEMPOTENCY_TTL_SEC`. */
  readonly idempotencyTtlSec: number;
  /** The built-in estimate tool's name, which the descriptions point to. */
  readonly estimateTool: string;
}

/** `1399 s` as a person reads it: `23 min`, `24 h`. */
function span(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds >= 600) return `${Math.round(seconds / 60)} min`;
  return `${seconds} s`;
}

/** The cost paragraph of a tool's description. */
export function costText(bound: UpstreamCallBound, terms: ToolTerms): string {
  const calls = Number.isFinite(bound.calls) ? String(bound.calls) : 'an unbounded number of';
  const costliest = bound.byField
    .slice(0, NAMED_FIELDS)
    .map((field) => `${field.field} ${field.calls}`)
    .join(', ');
  const lists =
    bound.unpaged.length > 0
      ? ` ${bound.unpaged.join(', ')} counts its assumed maximum until it arrives; the run is then held to its real length.`
      : '';
  return (
    `Cost: at most ${calls} upstream call${bound.calls === 1 ? '' : 's'} with the default arguments` +
    (costliest ? ` (${costliest})` : '') +
    `, of the ${terms.windowCalls} the provider allows per ${span(terms.windowSec)}.${lists} ` +
    `A call that can make more calls than are left of the window for it is refused before it ` +
    `spends any, with when to retry; ${terms.estimateTool} gives the bound of a call with its ` +
    `arguments, and what is left.`
  );
}

function writeText(terms: ToolTerms): string {
  return (
    `Writes: pass a new ${IDEMPOTENCY_ARGUMENT} (e.g. a UUID) with each change, and the same one ` +
    `to retry it: within ${span(terms.idempotencyTtlSec)} a retry returns the first result ` +
    `without writing again.`
  );
}

/** The tool of one operation. */
function toolOf(
  chosen: ChosenOperation,
  schema: GraphQLSchema,
  calls: UpstreamCallPolicy,
  terms: ToolTerms,
): McpTool {
  const { document, operation } = chosen;
  let inputSchema;
  try {
    inputSchema = toolInputSchema(schema, document, operation);
  } catch (error) {
    if (!(error instanceof UnsupportedVariableError)) throw error;
    throw new ChosenOperationError(`${chosen.source}: ${chosen.name}: ${error.message}`);
  }
  // The bound with no argument given: each takes its default, or counts as the most it can ask.
  const bound = calls.boundOf(schema, document, operation, {});
  const writes = chosen.type === 'mutation';
  if (writes) {
    if (IDEMPOTENCY_ARGUMENT in inputSchema.properties) {
      throw new ChosenOperationError(
        `${chosen.source}: ${chosen.name}: $${IDEMPOTENCY_ARGUMENT} is the tool's own argument (its Idempotency-Key); rename the variable`,
      );
    }
    inputSchema.properties[IDEMPOTENCY_ARGUMENT] = {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      pattern: IDEMPOTENCY_KEY.source.replace('{1,255}', '+'),
      description:
        'Any unique string (a UUID) naming this change: send the same one only to retry it.',
    };
    (inputSchema as { required?: string[] }).required = [
      ...(inputSchema.required ?? []),
      IDEMPOTENCY_ARGUMENT,
    ];
  }
  const outputSchema = toolOutputSchema(schema, document, operation);
  const purpose = chosen.comment ?? `Runs the GraphQL ${chosen.type} ${chosen.name}.`;
  const description = [purpose, costText(bound, terms), ...(writes ? [writeText(terms)] : [])];
  return {
    operation: chosen,
    bound,
    definition: {
      name: chosen.name,
      description: description.join('\n\n'),
      inputSchema,
      ...(outputSchema ? { outputSchema } : {}),
      annotations: writes
        ? // A write may change or delete what exists; with its key, a repeat changes nothing more.
          { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true }
        : { readOnlyHint: true, openWorldHint: true },
      _meta: {
        [UPSTREAM_META]: {
          bound: Number.isFinite(bound.calls) ? bound.calls : null,
          byField: bound.byField,
          unpaged: bound.unpaged,
        },
      },
    },
  };
}

/** The tools of the chosen operations; a name the built-in tools use stops the start-up. */
export function toolsOf(
  operations: readonly ChosenOperation[],
  schema: GraphQLSchema,
  calls: UpstreamCallPolicy,
  terms: ToolTerms,
): McpTool[] {
  return operations.map((chosen) => {
    if (chosen.name === terms.estimateTool) {
      throw new ChosenOperationError(
        `${chosen.source}: ${chosen.name} is the name of Weft's own estimate tool; rename the operation`,
      );
    }
    return toolOf(chosen, schema, calls, terms);
  });
}
