/**
 * The MCP endpoint (docs/agents.md): `POST /mcp`, the streamable HTTP transport of the Model Context
 * Protocol, served with the official SDK — the one module of Weft that loads it, and only when
 * MCP=on (`create-gateway.ts` imports this file dynamically). Stateless: each HTTP request gets its
 * own SDK server and transport, answering in JSON, so no session is held between requests and any
 * replica can answer any request; there is no stream to open (`GET` and `DELETE` answer 405, which
 * clients read as "no server-sent stream").
 *
 * Every request carries the same bearer token as a GraphQL request (`Authorization`); without a
 * well-formed one it is answered 401 with the error a GraphQL request gets, before the SDK sees it.
 * The token is never handed to the SDK, nor taken as a tool argument. Tools: the operator's chosen
 * operations (`chosen-operations.ts`, `mcp-tools.ts`), run by `tool-runner.ts`, and Weft's estimate.
 */
import type { ApolloServer } from '@apollo/server';
import type {
  FastifyBaseLogger,
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
} from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode as JsonRpcErrorCode,
  ListToolsRequestSchema,
  McpError,
  type ListToolsResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../../config.ts';
import { ErrorCode, RequestErrorCode } from '../../errors/error-codes.ts';
import { GatewayError } from '../../errors/gateway-errors.ts';
import type { GatewayContext, RequestFields } from '../../kit/request-context.ts';
import type { GatewayMetrics } from '../../observability/metrics.ts';
import type { BudgetTracker } from '../../upstream/budget-tracker.ts';
import type { OperationPipeline } from '../operation-pipeline.ts';
import type { TrustedDocuments } from '../persisted-operations/trusted-documents.ts';
import type { RequestCredential } from '../request-credential.ts';
import {
  operationsOfFolder,
  operationsOfManifest,
  type ChosenOperation,
} from './chosen-operations.ts';
import { createEstimateTool, ESTIMATE_TOOL } from './estimate-tool.ts';
import { toolsOf, type McpTool } from './mcp-tools.ts';
import { createToolRunner, formattedErrors, type ToolCaller } from './tool-runner.ts';

export interface McpEndpointOptions {
  readonly path: string;
  readonly config: Pick<
    Config,
    | 'MCP_OPERATIONS_DIR'
    | 'MCP_PRIORITY'
    | 'UPSTREAM_RATE_LIMIT'
    | 'UPSTREAM_RATE_WINDOW_SEC'
    | 'IDEMPOTENCY_TTL_SEC'
  >;
  readonly schema: GraphQLSchema;
  readonly apollo: ApolloServer<GatewayContext>;
  readonly pipeline: OperationPipeline;
  readonly trusted: TrustedDocuments | undefined;
  readonly credentialOf: RequestCredential;
  readonly budget: BudgetTracker;
  readonly metrics: GatewayMetrics | undefined;
  readonly logger: FastifyBaseLogger;
  /** The context of an operation a tool call runs in `request`. */
  readonly contextOf: (
    request: FastifyRequest,
    reply: FastifyReply,
    fields: Pick<RequestFields, 'facts' | 'priority' | 'noteOperation'>,
  ) => GatewayContext;
}

/** What the endpoint tells a client about itself. */
const SERVER_INFO = { name: 'weft', version: '1' };
const INSTRUCTIONS =
  "Each tool runs one GraphQL operation against the hosting provider's API and states in its " +
  'description the most upstream calls it can make. The calls come out of a window the token ' +
  'shares with its other clients: a call that can make more than what is left for it is refused ' +
  'before it spends any, with retryAfterSec. weft_estimate tells a call’s cost and what is left ' +
  'without running it.';

/** The JSON-RPC code of a request refused before any method ran (a server error, -32000…-32099). */
const REFUSED = -32001;

/** A JSON-RPC error answer carrying Weft's typed error (`data`: its code and details). */
function jsonRpcError(code: number, error: GatewayError, requestId: string): string {
  const [formatted] = formattedErrors(error, requestId);
  return JSON.stringify({
    jsonrpc: '2.0',
    id: null,
    error: { code, message: formatted!.message, data: formatted!.extensions },
  });
}

/** The headers the SDK's transport reads: never the token, nor a cookie. */
const FORWARDED_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id'];

/** The request as the SDK's web-standard transport reads it: its body is already parsed. */
function webRequestOf(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  return new Request(`http://localhost${request.url}`, { method: request.method, headers });
}

/** The chosen operations: the folder's, else the manifest's (config.ts requires one). */
async function chosenOperations(options: McpEndpointOptions): Promise<ChosenOperation[]> {
  const { config, pipeline, schema, trusted, logger } = options;
  const checks = {
    schema,
    refuseDocument: pipeline.refuseDocument,
    validationRules: pipeline.validationRules,
  };
  if (config.MCP_OPERATIONS_DIR !== undefined) {
    return operationsOfFolder(config.MCP_OPERATIONS_DIR, checks);
  }
  if (!trusted) throw new Error('MCP=on needs MCP_OPERATIONS_DIR or TRUSTED_DOCUMENTS_PATH');
  const { operations, leftOut } = operationsOfManifest(trusted, checks);
  if (leftOut.length > 0) {
    logger.warn({ leftOut }, `${leftOut.length} operations of the manifest are not MCP tools`);
  }
  return operations;
}

/** Registers `POST /mcp`; start-up fails when a chosen operation cannot be a tool. */
export async function registerMcpEndpoint(
  app: FastifyInstance,
  options: McpEndpointOptions,
): Promise<{ readonly tools: readonly string[] }> {
  const { config, schema, pipeline, budget, metrics, credentialOf } = options;
  const calls = pipeline.callPolicy;
  if (!calls) throw new Error('MCP tools need the upstream-call bounds of the operation pipeline');
  const tools = new Map<string, McpTool>(
    toolsOf(await chosenOperations(options), schema, calls, {
      windowCalls: config.UPSTREAM_RATE_LIMIT,
      windowSec: config.UPSTREAM_RATE_WINDOW_SEC,
      idempotencyTtlSec: config.IDEMPOTENCY_TTL_SEC,
      estimateTool: ESTIMATE_TOOL,
    }).map((tool) => [tool.definition.name, tool]),
  );
  const priority = config.MCP_PRIORITY;
  const runner = createToolRunner({ apollo: options.apollo, budget, priority, metrics });
  const estimate = createEstimateTool(tools, {
    schema,
    pipeline,
    calls,
    budget,
    priority,
    metrics,
  });
  // The SDK's server makes an Ajv instance unless given one (for elicitations, which these tools
  // never send): one for the process, not one per request.
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  const listed: ListToolsResult = {
    tools: [...[...tools.values()].map((tool) => tool.definition), estimate.definition],
  };

  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    const credential = credentialOf(request);
    if (!credential) {
      const refusal = new GatewayError(
        ErrorCode.UNAUTHENTICATED,
        'Send the provider access token as `Authorization: Bearer <token>`',
      );
      return reply
        .status(401)
        .header('www-authenticate', 'Bearer')
        .header('content-type', 'application/json')
        .send(jsonRpcError(REFUSED, refusal, request.id));
    }
    const caller: ToolCaller = {
      requestId: request.id,
      credential,
      contextOf: (fields) => options.contextOf(request, reply, fields),
      note: (fields) => {
        request.operationLog = fields;
      },
    };
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator,
    });
    server.setRequestHandler(ListToolsRequestSchema, () => listed);
    server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
      if (params.name === ESTIMATE_TOOL) return estimate.run(params.arguments, caller);
      const tool = tools.get(params.name);
      if (!tool) throw new McpError(JsonRpcErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
      return runner.run(tool, params.arguments, caller);
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(webRequestOf(request), {
        parsedBody: request.body,
      });
      const body = await response.text();
      reply.status(response.status);
      response.headers.forEach((value, name) => reply.header(name, value));
      return reply.send(body === '' ? undefined : body);
    } finally {
      await server.close();
    }
  };

  await app.register(async (scope) => {
    // A refusal before the handler (a body that is not JSON, or past REQUEST_BODY_LIMIT_BYTES) is
    // answered as JSON-RPC too, with the GraphQL endpoint's code for it.
    scope.setErrorHandler(async (error: FastifyError, request, reply) => {
      const status = error.statusCode ?? 500;
      if (status >= 400 && status < 500) {
        return reply
          .status(status)
          .header('content-type', 'application/json')
          .send(
            jsonRpcError(
              JsonRpcErrorCode.InvalidRequest,
              new GatewayError(RequestErrorCode.BAD_REQUEST, error.message),
              request.id,
            ),
          );
      }
      request.log.error({ err: error }, 'mcp endpoint failed');
      return reply
        .status(500)
        .header('content-type', 'application/json')
        .send(
          jsonRpcError(
            JsonRpcErrorCode.InternalError,
            new GatewayError(ErrorCode.INTERNAL_SERVER_ERROR, 'Internal server error'),
            request.id,
          ),
        );
    });
    scope.post(options.path, serve);
    // Stateless: no stream to open, no session to end.
    scope.route({
      method: ['GET', 'DELETE'],
      url: options.path,
      handler: async (request, reply) =>
        reply
          .status(405)
          .header('allow', 'POST')
          .header('content-type', 'application/json')
          .send(
            jsonRpcError(
              REFUSED,
              new GatewayError(
                RequestErrorCode.BAD_REQUEST,
                'This MCP endpoint is stateless: send each message with POST.',
              ),
              request.id,
            ),
          ),
    });
  });
  return { tools: [...listed.tools.map((tool) => tool.name)] };
}
