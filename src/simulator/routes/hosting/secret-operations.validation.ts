/**
 * The body of POST /apps/{appId}/secrets:
 * `{ variant?: 'preview' | 'publish' (absent = shared), operations: { additions?: [{name, value}],
 * updates?: [{name, value}], deletions?: [name] } }` with at least one operation in total.
 *
 * Shape problems are 400s (see hosting-fields.validation.ts). Problems against the current state are
 * one 422 `INVALID_SECRET_OPERATION` listing every rejected operation; nothing is applied unless all
 * operations are valid. No message ever contains a secret value.
 */
import { SimError } from '../../sim-errors.ts';
import type {
  HostingSecretStore,
  SecretScope,
  VariantName,
} from '../../fixtures/hosting.fixtures.ts';
import { FieldErrors, isRecord } from './hosting-fields.validation.ts';

export const SECRET_NAME = /^[A-Z_][A-Z0-9_]*$/;
export const SECRET_NAME_MAX = 128;
export const SECRET_VALUE_MAX_BYTES = 32 * 1024;

export interface SecretChange {
  readonly kind: 'additions' | 'updates' | 'deletions';
  readonly name: string;
  /** Absent for deletions. */
  readonly value?: string;
  /** JSONPath of the name in the request. */
  readonly path: string;
}

export interface SecretChangeSet {
  readonly scope: SecretScope;
  readonly variant?: VariantName;
  readonly changes: readonly SecretChange[];
}

function checkName(value: unknown, path: string, errors: FieldErrors): string | undefined {
  if (value === undefined || value === null) {
    errors.add(path, 'REQUIRED', 'secret name is required');
  } else if (typeof value !== 'string') {
    errors.add(path, 'INVALID_TYPE', 'secret name must be a string');
  } else if (value.length > SECRET_NAME_MAX) {
    errors.add(path, 'TOO_LONG', `secret name must have at most ${SECRET_NAME_MAX} characters`);
  } else if (!SECRET_NAME.test(value)) {
    errors.add(path, 'INVALID_FORMAT', 'secret name must match ^[A-Z_][A-Z0-9_]*$');
  } else {
    return value;
  }
  return undefined;
}

function checkValue(value: unknown, path: string, errors: FieldErrors): string | undefined {
  if (value === undefined || value === null) {
    errors.add(path, 'REQUIRED', 'secret value is required');
  } else if (typeof value !== 'string') {
    errors.add(path, 'INVALID_TYPE', 'secret value must be a string');
  } else if (value.length === 0) {
    errors.add(path, 'TOO_SHORT', 'secret value must not be empty');
  } else if (Buffer.byteLength(value, 'utf8') > SECRET_VALUE_MAX_BYTES) {
    errors.add(path, 'TOO_LONG', 'secret value must be at most 32 KiB (UTF-8)');
  } else {
    return value;
  }
  return undefined;
}

/** Parses the body into a change set, or throws the 400 listing every shape problem. */
export function parseSecretChanges(body: unknown): SecretChangeSet {
  const errors = new FieldErrors('body');
  const root = isRecord(body) ? body : {};
  let variant: VariantName | undefined;
  if (root.variant !== undefined) {
    if (root.variant === 'preview' || root.variant === 'publish') variant = root.variant;
    else errors.add('$.variant', 'INVALID_VALUE', 'variant must be preview or publish');
  }
  const changes: SecretChange[] = [];
  const operations = root.operations;
  if (operations === undefined || operations === null) {
    errors.add('$.operations', 'REQUIRED', 'operations is required');
  } else if (!isRecord(operations)) {
    errors.add('$.operations', 'INVALID_TYPE', 'operations must be an object');
  } else {
    for (const kind of ['additions', 'updates', 'deletions'] as const) {
      const list = operations[kind];
      const base = `$.operations.${kind}`;
      if (list === undefined) continue;
      if (!Array.isArray(list)) {
        errors.add(base, 'INVALID_TYPE', `${kind} must be an array`);
        continue;
      }
      list.forEach((item: unknown, index) => {
        const at = `${base}[${index}]`;
        if (kind === 'deletions') {
          const name = checkName(item, at, errors);
          if (name !== undefined) changes.push({ kind, name, path: at });
          return;
        }
        if (!isRecord(item)) {
          errors.add(at, 'INVALID_TYPE', 'each operation must be an object {name, value}');
          return;
        }
        const name = checkName(item.name, `${at}.name`, errors);
        const value = checkValue(item.value, `${at}.value`, errors);
        if (name !== undefined && value !== undefined) {
          changes.push({ kind, name, value, path: `${at}.name` });
        }
      });
    }
    if (errors.count === 0 && changes.length === 0) {
      const message = 'at least one addition, update or deletion is required';
      for (const kind of ['additions', 'updates', 'deletions']) {
        errors.add(`$.operations.${kind}`, 'REQUIRED', message);
      }
    }
  }
  errors.throwIfAny();
  return { scope: variant ?? 'shared', variant, changes };
}

/** Applies a change set all-or-nothing; throws one 422 listing every conflicting operation. */
export function applySecretChanges(
  store: HostingSecretStore,
  changeSet: SecretChangeSet,
  now: number,
): void {
  const secrets = store[changeSet.scope];
  const rejected: { path: string; code: string; message: string }[] = [];
  const seen = new Set<string>();
  for (const change of changeSet.changes) {
    const existing = secrets.get(change.name);
    const reject = (code: string, message: string): void => {
      rejected.push({ path: change.path, code, message: `${change.name}: ${message}` });
    };
    if (seen.has(change.name)) reject('DUPLICATE', 'named by more than one operation');
    else if (existing?.systemManaged) reject('SYSTEM_MANAGED', 'is managed by the platform');
    else if (change.kind === 'additions' && existing) reject('ALREADY_EXISTS', 'already exists');
    else if (change.kind !== 'additions' && !existing) reject('NOT_FOUND', 'does not exist');
    seen.add(change.name);
  }
  if (rejected.length > 0) {
    throw new SimError(
      422,
      'INVALID_SECRET_OPERATION',
      `${rejected.length} secret operation(s) rejected; no change was applied`,
      rejected,
    );
  }
  for (const change of changeSet.changes) {
    const existing = secrets.get(change.name);
    if (change.kind === 'deletions') {
      secrets.delete(change.name);
    } else if (change.kind === 'updates' && existing && change.value !== undefined) {
      existing.value = change.value;
      existing.updatedAt = now;
    } else if (change.kind === 'additions' && change.value !== undefined) {
      secrets.set(change.name, {
        name: change.name,
        value: change.value,
        systemManaged: false,
        createdAt: now,
        updatedAt: now,
      });
    }
  }
}
