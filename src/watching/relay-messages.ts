/**
 * The messages replicas send one another about a watch (`watch-relay.ts` carries them). Messages
 * are JSON. A state message carries the resource as that credential reads it (the watch's keys and
 * channel are the credential's, by its HMAC id: never a token); an error message carries the typed
 * error as the client would see it. Nothing else is sent.
 */
import type { ClientErrorCode } from '../errors/error-codes.ts';
import {
  GatewayError,
  UpstreamError,
  type UpstreamFailureKind,
  type UpstreamFieldError,
} from '../errors/gateway-errors.ts';
import type { LedgerReport } from '../upstream/upstream-ledger.ts';

/** A typed error as it travels between replicas. */
type WireError =
  | {
      readonly type: 'gateway';
      readonly code: ClientErrorCode;
      readonly message: string;
      readonly details: Readonly<Record<string, unknown>>;
    }
  | {
      readonly type: 'upstream';
      readonly kind: UpstreamFailureKind;
      readonly method: string;
      readonly route: string;
      readonly message: string;
      readonly status?: number;
      readonly upstreamCode?: string;
      readonly fields?: readonly UpstreamFieldError[];
      readonly retryAfterSec?: number;
      readonly requiredScope?: string;
      readonly outcomeUnknown?: boolean;
    }
  /** Anything untyped: the client sees it masked (INTERNAL_SERVER_ERROR), so nothing of it is sent. */
  | { readonly type: 'other' };

export type RelayMessage =
  | {
      readonly type: 'state';
      readonly fingerprint: string;
      readonly state: unknown;
      readonly upstream: LedgerReport | undefined;
      /** The watch ends with this state (terminal): every replica completes its subscribers. */
      readonly final: boolean;
    }
  | {
      readonly type: 'error';
      readonly error: WireError;
      readonly upstream: LedgerReport | undefined;
    }
  /** The holder gave the lease up while others still watch: the first to claim it polls on. */
  | { readonly type: 'released' };

export function toWireError(error: unknown): WireError {
  if (error instanceof UpstreamError) {
    return {
      type: 'upstream',
      kind: error.kind,
      method: error.method,
      route: error.route,
      message: error.message,
      status: error.status,
      upstreamCode: error.upstreamCode,
      fields: error.fields,
      retryAfterSec: error.retryAfterSec,
      requiredScope: error.requiredScope,
      outcomeUnknown: error.outcomeUnknown,
    };
  }
  if (error instanceof GatewayError) {
    return { type: 'gateway', code: error.code, message: error.message, details: error.details };
  }
  return { type: 'other' };
}

export function fromWireError(wire: WireError): Error {
  switch (wire.type) {
    case 'upstream': {
      const { type: _type, ...init } = wire;
      return new UpstreamError(init);
    }
    case 'gateway':
      return new GatewayError(wire.code, wire.message, wire.details);
    default:
      return new Error('a subscription poll failed on another replica');
  }
}

export const encodeRelayMessage = (message: RelayMessage): string => JSON.stringify(message);

/** The message, or undefined for anything that is not one (never trusted blindly). */
export function decodeRelayMessage(text: string): RelayMessage | undefined {
  try {
    const parsed = JSON.parse(text) as RelayMessage;
    return parsed !== null &&
      typeof parsed === 'object' &&
      ['state', 'error', 'released'].includes(parsed.type)
      ? parsed
      : undefined;
  } catch {
    return undefined;
  }
}
