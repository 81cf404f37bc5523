/**
 * What a GraphQL operation adds to its request's one log line (server/access-log.ts): its name,
 * the number and codes of its errors (never their messages, which may quote input), its own
 * duration, and whether it was a whole-response replay.
 */
export interface OperationLogFields {
  readonly operationName: string | null;
  readonly errors: number;
  readonly errorCodes?: readonly string[];
  readonly durationMs: number;
  readonly responseCache?: 'hit';
  /** The MCP tool that ran the operation (docs/agents.md). */
  readonly tool?: string;
}
