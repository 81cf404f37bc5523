/**
 * Checks of hosting arguments and inputs that the gateway makes before any upstream call: the
 * document's bounds (deployments size 1–50, log lines 1–500), required text, and the shape of
 * update and secret-change bodies. Enums are checked by GraphQL itself.
 */
import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError } from '../errors/gateway-errors.ts';
import { badInput } from '../kit/bad-input.ts';
import type { AppVariant, ChangeAppSecretsInput, UpdateAppInput } from '../generated/resolvers.ts';
import type {
  LogsQuery,
  SecretChangesBody,
  UpdateAppBody,
  UpstreamVariant,
} from './hosting.api.ts';

/** The deployments list size parameter: `limit`, 1–50 (document), default 10 (simulator). */
export const DEPLOYMENTS_LIMIT = { min: 1, max: 50, fallback: 10 } as const;
/** Log lines, 1–500 (document). */
export const LOG_LINES = { min: 1, max: 500 } as const;
/** A watch of a deployment reads the newest deployments at the list's largest size. */
export const WATCH_DEPLOYMENTS_LIMIT = DEPLOYMENTS_LIMIT.max;

function boundedInt(
  value: number,
  field: string,
  bounds: { readonly min: number; readonly max: number },
): number {
  if (!Number.isInteger(value) || value < bounds.min || value > bounds.max) {
    throw badInput(
      field,
      `\`${field}\` must be a whole number from ${bounds.min} to ${bounds.max}`,
    );
  }
  return value;
}

export const deploymentsLimit = (limit: number | null | undefined): number =>
  boundedInt(limit ?? DEPLOYMENTS_LIMIT.fallback, 'limit', DEPLOYMENTS_LIMIT);

export const upstreamVariant = (variant: AppVariant): UpstreamVariant =>
  variant === 'PREVIEW' ? 'preview' : 'publish';

export function logsQuery(args: {
  target: AppVariant;
  source: string;
  since: string;
  lines?: number | null;
}): LogsQuery {
  const source = args.source.trim();
  if (source === '')
    throw badInput('source', '`source` must not be empty (e.g. app, build, access)');
  const since = args.since.trim();
  if (since === '') {
    throw badInput('since', '`since` must be an RFC 3339 timestamp or a duration such as 15m');
  }
  return {
    target: upstreamVariant(args.target),
    source,
    since,
    ...(args.lines == null ? {} : { lines: boundedInt(args.lines, 'lines', LOG_LINES) }),
  };
}

/** An optional text member: null means "not given"; given, it must not be blank. */
function optionalText(value: string | null | undefined, field: string): string | undefined {
  if (value == null) return undefined;
  if (value.trim() === '') throw badInput(field, `\`${field}\` must not be empty when given`);
  return value;
}

/** The PATCH body: at least one of name and rootPath, else no upstream call is worth making. */
export function updateAppBody(input: UpdateAppInput): UpdateAppBody {
  const name = optionalText(input.name, 'name');
  const rootPath = optionalText(input.rootPath, 'rootPath');
  if (name === undefined && rootPath === undefined) {
    throw new GatewayError(
      ErrorCode.BAD_USER_INPUT,
      'Nothing to update: give `name`, `rootPath` or both',
    );
  }
  return {
    ...(name === undefined ? {} : { name }),
    ...(rootPath === undefined ? {} : { rootPath }),
  };
}

type SecretValue = { name: string; value: string };

function secretValues(
  items: readonly SecretValue[] | null | undefined,
  field: 'additions' | 'updates',
): SecretValue[] | undefined {
  if (items == null || items.length === 0) return undefined;
  return items.map((item, index) => {
    if (item.name.trim() === '') throw badInput(`${field}.${index}.name`, 'A secret needs a name');
    // The message names the position only: a secret value never appears in an error.
    if (item.value === '')
      throw badInput(`${field}.${index}.value`, 'A secret value must not be empty');
    return { name: item.name, value: item.value };
  });
}

/**
 * The secret-change body. The upstream shows no element shapes: additions and updates are
 * `{name, value}`, deletions are names; the variant is omitted for the shared secrets.
 */
export function secretChangesBody(input: ChangeAppSecretsInput): SecretChangesBody {
  const additions = secretValues(input.additions, 'additions');
  const updates = secretValues(input.updates, 'updates');
  const deletions = input.deletions?.length ? [...input.deletions] : undefined;
  deletions?.forEach((name, index) => {
    if (name.trim() === '') throw badInput(`deletions.${index}`, 'A deletion needs a secret name');
  });
  if (!additions && !updates && !deletions) {
    throw new GatewayError(
      ErrorCode.BAD_USER_INPUT,
      'Nothing to change: give at least one of `additions`, `updates` or `deletions`',
    );
  }
  return {
    ...(input.variant ? { variant: upstreamVariant(input.variant) } : {}),
    operations: {
      ...(additions ? { additions } : {}),
      ...(updates ? { updates } : {}),
      ...(deletions ? { deletions } : {}),
    },
  };
}
