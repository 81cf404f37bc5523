/**
 * The upstream error envelope (commerce document, "Errors"): `{ code, message?, fields? }`, where
 * `fields` are `{ path (JSONPath into the request), code, message }`. Route handlers throw
 * {@link SimError}; the simulator's error handler writes the envelope.
 */
export interface SimFieldError {
  readonly path: string;
  readonly code: string;
  readonly message: string;
}

export class SimError extends Error {
  readonly status: number;
  readonly code: string;
  readonly fields: readonly SimFieldError[] | undefined;
  readonly extra: Record<string, unknown>;

  constructor(
    status: number,
    code: string,
    message: string,
    fields?: readonly SimFieldError[],
    extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = fields;
    this.extra = extra;
  }

  toBody(): Record<string, unknown> {
    return {
      code: this.code,
      message: this.message,
      ...(this.fields ? { fields: this.fields } : {}),
      ...this.extra,
    };
  }
}

export const notFound = (what: string): SimError =>
  new SimError(404, 'NOT_FOUND', `${what} was not found or is not visible to the caller`);

/**
 * A 400 for one query, path or body field. `path` is a JSONPath such as `$.offset`; the envelope
 * code is INVALID_FORMAT unless the caller says INVALID_BODY (a required body field is missing).
 */
export const invalidField = (
  path: string,
  code: string,
  message: string,
  envelopeCode: 'INVALID_FORMAT' | 'INVALID_BODY' = 'INVALID_FORMAT',
): SimError => new SimError(400, envelopeCode, message, [{ path, code, message }]);
