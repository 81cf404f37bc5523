/** A JSON object (not null, not an array): what a parsed upstream body or GraphQL params may be. */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
