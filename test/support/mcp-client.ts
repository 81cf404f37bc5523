/**
 * The MCP SDK's own client over streamable HTTP, as an agent's host would connect to Weft's `/mcp`
 * (docs/agents.md "Connecting a client").
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A connected client; `token` null sends no Authorization header. */
export async function connectMcp(baseUrl: string, token: string | null = 'demo-token') {
  const client = new Client({ name: 'weft-test-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: token === null ? {} : { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return {
    client,
    /** Calls a tool; the result as the SDK hands it over. */
    call: (name: string, args: Record<string, unknown> = {}) =>
      client.callTool({ name, arguments: args }) as Promise<CallToolResult>,
    close: () => client.close(),
  };
}

export type McpSession = Awaited<ReturnType<typeof connectMcp>>;
