/** The error a bad environment stops the process with; its message names every bad variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
