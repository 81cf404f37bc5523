/**
 * Refusals made by the HTTP framework rather than by a route handler, turned into the documented
 * error envelope (commerce document, "Errors"). The simulator answers every one of them like any
 * other refusal: after authentication and the rate windows (so with `RateLimit-*` headers), and
 * counted in `/__sim/stats` under the route template when the path names one.
 *
 * - A path parameter is at most {@link MAX_PATH_PARAM_LENGTH} characters once percent-decoded (a DNS
 *   name is at most 253; the same bound as the gateway's path guard). A longer one is
 *   400 `INVALID_FORMAT`, `fields[0]` `{path: '$.<param>', code: 'TOO_LONG'}`.
 * - A parameter that is not valid percent-encoding is 400 `INVALID_FORMAT`, `$.<param>`.
 * - A path no route has (or a method the path does not take) is 404 `NOT_FOUND`.
 * - A JSON body that does not parse is 400 `INVALID_BODY`; a body over {@link JSON_BODY_LIMIT} is
 *   413 `PAYLOAD_TOO_LARGE`; a body in a media type the operation does not take (anything but
 *   `application/json`, and `multipart/form-data` on the source upload) is 415
 *   `UNSUPPORTED_MEDIA_TYPE`.
 * - A request the HTTP parser cannot read (headers over 16 KiB: 431 `HEADERS_TOO_LARGE`; anything
 *   else: 400 `INVALID_REQUEST`) is answered on the socket, metered under the client IP.
 */
import type { FastifyError, RouteOptions } from 'fastify';
import type { FastifyContextConfig } from 'fastify';
import { SimError, invalidField } from './sim-errors.ts';
import { toRouteTemplate } from './sim-stats.ts';

/** Longest path parameter once decoded: a DNS name is at most 253 characters. */
export const MAX_PATH_PARAM_LENGTH = 255;

/** Largest JSON request body (decision; the documents show none). The zip upload has its own. */
export const JSON_BODY_LIMIT = 1024 * 1024;

export interface IndexedRoute {
  readonly method: string;
  /** `GET /v2/customers/{customerId}/certificates`, as in `/__sim/stats`. */
  readonly template: string;
  readonly config: FastifyContextConfig;
  readonly names: readonly string[];
  readonly pattern: RegExp;
}

export interface RouteMatch {
  readonly route: IndexedRoute;
  /** The raw (still percent-encoded) path parameters, in the order of `route.names`. */
  readonly rawParams: readonly string[];
}

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Every route of the simulator, for requests the router refused before it could say which route
 * they were for (a parameter too long, a bad percent-encoding).
 */
export class RouteIndex {
  private readonly routes: IndexedRoute[] = [];

  add(route: Pick<RouteOptions, 'method' | 'url' | 'config'>): void {
    if (route.url.startsWith('/__sim/')) return;
    const names: string[] = [];
    const source = route.url
      .split('/')
      .map((segment) => {
        if (!segment.startsWith(':')) return escapeRegex(segment);
        names.push(segment.slice(1));
        return '([^/]*)';
      })
      .join('/');
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      this.routes.push({
        method,
        template: toRouteTemplate(method, route.url),
        config: (route.config ?? {}) as FastifyContextConfig,
        names,
        pattern: new RegExp(`^${source}$`),
      });
    }
    // Most specific first: fewer parameters means more static segments.
    this.routes.sort((a, b) => a.names.length - b.names.length);
  }

  /** The route a raw request URL (path and query) would have reached, if any. */
  match(method: string, rawUrl: string): RouteMatch | undefined {
    const path = rawUrl.split('?')[0] ?? '';
    for (const route of this.routes) {
      if (route.method !== method) continue;
      const found = route.pattern.exec(path);
      if (found) return { route, rawParams: found.slice(1) };
    }
    return undefined;
  }
}

const decodeParam = (raw: string): string | undefined => {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
};

/**
 * The refusal of a request the router could not route (`frameworkErrors`): names the parameter
 * when the path matches a route, else 404 (no such path).
 */
export function routingRefusal(error: FastifyError, match: RouteMatch | undefined): SimError {
  if (match) {
    for (const [i, name] of match.route.names.entries()) {
      const value = decodeParam(match.rawParams[i] ?? '');
      if (value === undefined) {
        return invalidField(`$.${name}`, 'INVALID_FORMAT', `${name} is not valid percent-encoding`);
      }
      if (value.length > MAX_PATH_PARAM_LENGTH) {
        return invalidField(
          `$.${name}`,
          'TOO_LONG',
          `${name} must have at most ${MAX_PATH_PARAM_LENGTH} characters`,
        );
      }
    }
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    return new SimError(400, 'INVALID_FORMAT', 'the request path is not valid percent-encoding');
  }
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH' || !match) {
    return new SimError(404, 'NOT_FOUND', 'no such path');
  }
  return new SimError(500, 'INTERNAL_ERROR', 'internal error');
}

/** The envelope for an error Fastify raised while reading a routed request (media type, body). */
export function frameworkRefusal(error: { statusCode?: number; code?: string }): SimError {
  switch (error.statusCode) {
    case 400:
      return new SimError(400, 'INVALID_BODY', 'the request body could not be read');
    case 404:
      return new SimError(404, 'NOT_FOUND', 'no such path');
    case 413:
      return new SimError(
        413,
        'PAYLOAD_TOO_LARGE',
        `the request body exceeds ${JSON_BODY_LIMIT / 1024 / 1024} MiB`,
      );
    case 415:
      return new SimError(
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        'the request body must be application/json (multipart/form-data for a source upload)',
      );
    default:
      return error.statusCode !== undefined && error.statusCode < 500
        ? new SimError(error.statusCode, 'INVALID_REQUEST', 'the request could not be read')
        : new SimError(500, 'INTERNAL_ERROR', 'internal error');
  }
}

/** Status and envelope for a request the HTTP parser refused (`clientError`). */
export function unparsableRefusal(code: string | undefined): SimError {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new SimError(431, 'HEADERS_TOO_LARGE', 'the request headers exceed 16 KiB');
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new SimError(408, 'REQUEST_TIMEOUT', 'the request was not received in time');
  }
  return new SimError(400, 'INVALID_REQUEST', 'the HTTP request could not be parsed');
}
