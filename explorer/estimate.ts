/**
 * The estimate before a run (docs/budget.md "The bound alone"): as the user edits the document, the
 * variables or the headers, the explorer asks the gateway for the operation's upper bound of
 * upstream calls — a POST of the same document, variables and headers a run would send, with
 * `Weft-Estimate: 1` — which the gateway checks but does not run, so nothing is spent. The answer
 * is the bound and its costliest fields (`extensions.upstream.estimate`), or, over the
 * per-operation maximum, the limit's refusal (`extensions.limit: "upstreamCalls"`, `max`,
 * `actual`).
 *
 * Debounced (one request once the user pauses), at most one in flight (a newer edit aborts the
 * older request, and a late answer to an older text is dropped), and never without a token: the
 * `Authorization` is the shared token's (`shared-token.ts`), as for a run.
 */
import { Kind, parse, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import { parseHeaders } from './shared-token.ts';

/** How long the user's pause must be before the estimate is asked for (ms). */
export const ESTIMATE_DELAY_MS = 400;

/** What the explorer reads of the editors to ask for an estimate. */
export interface EstimateInput {
  /** The operation editor's text. */
  readonly query: string;
  /** The variables editor's text (JSON, or empty). */
  readonly variables: string;
  /** The header editor's text (JSON, or empty). */
  readonly headers: string;
  /** The operation GraphiQL would run (undefined: the document's only one). */
  readonly operationName: string | undefined;
  /** The shared token (`Bearer …`); null: none yet. */
  readonly token: string | null;
}

/** Why no estimate is asked for. */
export type EstimateSkip =
  /** No token yet: nothing is sent without one. */
  | 'no-token'
  /** No operation in the document. */
  | 'empty'
  /** The document does not parse (the user is mid-edit). */
  | 'syntax'
  /** The variables are not a JSON object. */
  | 'variables'
  /** A subscription: its polls are bounded per event, it has no bound of its own. */
  | 'subscription';

export interface EstimateRequest {
  readonly headers: Record<string, string>;
  readonly body: {
    readonly query: string;
    readonly variables?: Record<string, unknown>;
    readonly operationName?: string;
  };
}

export type EstimatePlan =
  | { readonly kind: 'skip'; readonly reason: EstimateSkip }
  | { readonly kind: 'send'; readonly request: EstimateRequest };

/** One field's share of the bound. */
export interface EstimateField {
  /** `Type.field`. */
  readonly field: string;
  readonly calls: number;
}

/** What the gateway answered. */
export type Estimate =
  /** The bound, with its costliest fields (the gateway's order: costliest first). */
  | {
      readonly kind: 'bound';
      readonly calls: number;
      readonly byField: readonly EstimateField[];
    }
  /** Over the per-operation maximum: a run would be refused before any call. */
  | {
      readonly kind: 'over-limit';
      readonly max: number;
      readonly actual: number;
      readonly message: string;
    }
  /** Refused for another reason (validation, a variable, a limit): the first error's message. */
  | { readonly kind: 'refused'; readonly message: string; readonly code?: string }
  /** No estimate came (the request failed, or the answer carried none). */
  | { readonly kind: 'unavailable'; readonly message: string };

export type EstimateState =
  /** Nothing asked for yet. */
  | { readonly status: 'idle' }
  | { readonly status: 'skipped'; readonly reason: EstimateSkip }
  /** Waiting for the pause or the answer; `previous` is the last answer, shown meanwhile. */
  | { readonly status: 'pending'; readonly previous: Estimate | undefined }
  | { readonly status: 'done'; readonly estimate: Estimate };

/** Headers of the editor the explorer sets itself: the editor's own values of them are dropped. */
const OWN_HEADERS = new Set([
  'authorization',
  'content-type',
  'accept',
  'weft-estimate',
  'weft-ledger',
  'weft-trace',
  'weft-priority',
]);

function operationOf(
  document: DocumentNode,
  name: string | undefined,
): { operation: OperationDefinitionNode | undefined; named: boolean } {
  const operations = document.definitions.filter(
    (definition): definition is OperationDefinitionNode =>
      definition.kind === Kind.OPERATION_DEFINITION,
  );
  const named = name === undefined ? undefined : operations.find((op) => op.name?.value === name);
  if (named) return { operation: named, named: true };
  return { operation: operations.length === 1 ? operations[0] : undefined, named: false };
}

/** The request an estimate of `input` sends, or why none is sent. */
export function planEstimate(input: EstimateInput): EstimatePlan {
  if (input.token === null) return { kind: 'skip', reason: 'no-token' };
  if (input.query.trim() === '') return { kind: 'skip', reason: 'empty' };
  let document: DocumentNode;
  try {
    document = parse(input.query);
  } catch {
    return { kind: 'skip', reason: 'syntax' };
  }
  if (!document.definitions.some((definition) => definition.kind === Kind.OPERATION_DEFINITION)) {
    return { kind: 'skip', reason: 'empty' };
  }
  const { operation, named } = operationOf(document, input.operationName);
  if (operation?.operation === 'subscription') return { kind: 'skip', reason: 'subscription' };

  let variables: Record<string, unknown> | undefined;
  if (input.variables.trim() !== '') {
    const parsed = parseHeaders(input.variables);
    if (parsed === null) return { kind: 'skip', reason: 'variables' };
    variables = parsed;
  }

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(parseHeaders(input.headers) ?? {})) {
    if (OWN_HEADERS.has(name.toLowerCase()) || value === null || value === undefined) continue;
    headers[name] = String(value);
  }
  return {
    kind: 'send',
    request: {
      headers: {
        ...headers,
        Authorization: input.token,
        'Content-Type': 'application/json',
        Accept: 'application/graphql-response+json, application/json',
        'Weft-Priority': 'explorer',
        // Not `Weft-Ledger`: the bound alone is the answer, and a ledger would replace it.
        'Weft-Estimate': '1',
      },
      body: {
        query: input.query,
        ...(variables ? { variables } : {}),
        ...(named && input.operationName ? { operationName: input.operationName } : {}),
      },
    },
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);

/** What an estimate's answer (`status`, parsed body) says. */
export function readEstimate(status: number, body: unknown): Estimate {
  if (isObject(body)) {
    const extensions = isObject(body.extensions) ? body.extensions : {};
    const upstream = isObject(extensions.upstream) ? extensions.upstream : {};
    const estimate = upstream.estimate;
    if (isObject(estimate) && isNumber(estimate.calls)) {
      const byField = Array.isArray(estimate.byField)
        ? estimate.byField.flatMap((entry: unknown) =>
            isObject(entry) && typeof entry.field === 'string' && isNumber(entry.calls)
              ? [{ field: entry.field, calls: entry.calls }]
              : [],
          )
        : [];
      return { kind: 'bound', calls: estimate.calls, byField };
    }
    const [first] = Array.isArray(body.errors) ? (body.errors as unknown[]) : [];
    if (isObject(first)) {
      const message = typeof first.message === 'string' ? first.message : 'refused';
      const details = isObject(first.extensions) ? first.extensions : {};
      if (details.limit === 'upstreamCalls' && isNumber(details.max) && isNumber(details.actual)) {
        return { kind: 'over-limit', max: details.max, actual: details.actual, message };
      }
      return {
        kind: 'refused',
        message,
        ...(typeof details.code === 'string' ? { code: details.code } : {}),
      };
    }
  }
  return { kind: 'unavailable', message: `the answer carried no estimate (HTTP ${status})` };
}

/** The fields shown of a bound: the costliest `count` (the gateway sends them costliest first). */
export function topFields(estimate: Estimate, count = 3): readonly EstimateField[] {
  return estimate.kind === 'bound' ? estimate.byField.slice(0, count) : [];
}

export interface Estimator {
  get(): EstimateState;
  subscribe(listener: () => void): () => void;
  /** The editors changed (or the token): asks again after the pause, if anything changed. */
  update(input: EstimateInput): void;
  /** Stops the pending request and the timer. */
  dispose(): void;
}

export interface EstimatorOptions {
  readonly endpoint: string;
  readonly fetch?: typeof fetch;
  readonly delayMs?: number;
}

export function createEstimator(options: EstimatorOptions): Estimator {
  const send = options.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args));
  const delayMs = options.delayMs ?? ESTIMATE_DELAY_MS;
  let state: EstimateState = { status: 'idle' };
  let listeners: (() => void)[] = [];
  /** The request last planned (its text): the same again asks nothing. */
  let planned: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: AbortController | undefined;

  const set = (next: EstimateState) => {
    state = next;
    for (const listener of [...listeners]) listener();
  };
  const lastEstimate = (): Estimate | undefined =>
    state.status === 'done'
      ? state.estimate
      : state.status === 'pending'
        ? state.previous
        : undefined;
  const cancel = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    inFlight?.abort();
    inFlight = undefined;
  };

  async function ask(request: EstimateRequest, key: string): Promise<void> {
    const controller = new AbortController();
    inFlight = controller;
    let estimate: Estimate;
    try {
      const response = await send(options.endpoint, {
        method: 'POST',
        headers: request.headers,
        body: JSON.stringify(request.body),
        signal: controller.signal,
        credentials: 'same-origin',
      });
      let body: unknown;
      try {
        body = await response.json();
      } catch {
        body = undefined;
      }
      estimate = readEstimate(response.status, body);
    } catch (error) {
      if (controller.signal.aborted) return;
      estimate = {
        kind: 'unavailable',
        message: `the estimate request failed (${error instanceof Error ? error.message : String(error)})`,
      };
    }
    // A newer edit asked again meanwhile: this answer is for an older text.
    if (controller.signal.aborted || planned !== key) return;
    inFlight = undefined;
    // A failure is not remembered: the same text asks again on the next edit.
    if (estimate.kind === 'unavailable') planned = undefined;
    set({ status: 'done', estimate });
  }

  return {
    get: () => state,
    subscribe(listener) {
      listeners.push(listener);
      return () => {
        listeners = listeners.filter((other) => other !== listener);
      };
    },
    update(input) {
      const plan = planEstimate(input);
      if (plan.kind === 'skip') {
        cancel();
        planned = undefined;
        if (state.status !== 'skipped' || state.reason !== plan.reason) {
          set({ status: 'skipped', reason: plan.reason });
        }
        return;
      }
      const key = JSON.stringify(plan.request);
      if (key === planned) return;
      cancel();
      planned = key;
      set({ status: 'pending', previous: lastEstimate() });
      timer = setTimeout(() => {
        timer = undefined;
        void ask(plan.request, key);
      }, delayMs);
    },
    dispose() {
      cancel();
      planned = undefined;
    },
  };
}
