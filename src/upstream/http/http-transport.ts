/**
 * One HTTP attempt against the upstream origin over an undici keep-alive pool: connect, headers and
 * body timeouts, an abort signal carrying the operation's deadline, JSON in and out, and a cap on the
 * response body size. Retries and error policy live in `upstream-client.ts`.
 */
import { Pool, errors as undiciErrors } from './undici-pool.ts';
import { UpstreamError } from '../../errors/gateway-errors.ts';
import { buildQuery, fillRoute, isStreamBody, type UpstreamCall } from '../upstream-call.ts';
import { routeLabel, type Transport, type RawResponse } from '../transport.ts';
import type { Dispatcher } from 'undici';

export interface TransportOptions {
  readonly baseUrl: string;
  readonly connectTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly maxResponseBytes: number;
  readonly connections: number;
}

/**
 * The pool closes after the gateway has answered (or cut) every client request, so what is still
 * under way has nobody waiting; a write among it gets a moment to land before it is aborted.
 */
const CLOSE_GRACE_MS = 2_000;

function flattenHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined)
      flat[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

export function createTransport(options: TransportOptions): Transport {
  const base = new URL(options.baseUrl);
  const basePath = base.pathname.replace(/\/$/, '');
  const pool = new Pool(base.origin, {
    connections: options.connections,
    connect: { timeout: options.connectTimeoutMs },
    headersTimeout: options.headersTimeoutMs,
    bodyTimeout: options.bodyTimeoutMs,
    keepAliveTimeout: 10_000,
  });

  /**
   * Requests handed to the pool that it has not written yet. undici writes a request on a reused
   * keep-alive connection only after the event loop's next poll phase (so that a close or stray
   * bytes already on that connection are seen first): the calls a screen's round makes while an
   * answer is read wait for every other answer that arrived with it to be read and processed. While
   * any waits, an answer is handed on after them (one `setImmediate`, queued behind undici's own),
   * so the round goes out first and its round trip overlaps that work.
   */
  let unwritten = 0;

  /** The path to request, refusing anything that would carry the token to another origin. */
  const pathFor = (call: UpstreamCall): string => {
    const filled = fillRoute(call.route, call.params);
    if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(filled)) {
      const target = new URL(filled, base);
      if (target.origin !== base.origin) {
        throw new UpstreamError({
          kind: 'refused',
          method: call.method,
          route: call.route,
          message: 'Refusing to send a credential to an origin other than the configured upstream',
        });
      }
      return `${target.pathname}${target.search}`;
    }
    return `${basePath}${filled}${buildQuery(call.query)}`;
  };

  const failure = (call: UpstreamCall, error: unknown, signal: AbortSignal): UpstreamError => {
    if (error instanceof UpstreamError) return error;
    const e = error as { code?: string; name?: string; message?: string };
    const timedOut =
      signal.aborted ||
      e.name === 'TimeoutError' ||
      error instanceof undiciErrors.HeadersTimeoutError ||
      error instanceof undiciErrors.BodyTimeoutError ||
      error instanceof undiciErrors.ConnectTimeoutError;
    return new UpstreamError({
      kind: timedOut ? 'timeout' : 'network',
      method: call.method,
      route: call.route,
      message: timedOut
        ? `Upstream did not answer ${routeLabel(call)} in time`
        : `Upstream connection failed for ${routeLabel(call)} (${e.code ?? e.name ?? 'error'})`,
      cause: error,
    });
  };

  return {
    async send(call, signal) {
      const path = pathFor(call);
      const headers: Record<string, string> = {
        accept: 'application/json',
        'user-agent': 'weft-gateway',
        ...call.headers,
        authorization: call.credential.authorizationHeader(),
      };
      let body: string | NodeJS.ReadableStream | undefined;
      if (isStreamBody(call.body)) {
        body = call.body.stream;
        headers['content-type'] = call.body.contentType;
      } else if (call.body !== undefined) {
        body = JSON.stringify(call.body);
        headers['content-type'] = 'application/json';
      }
      // undici's dispatcher interface rather than `request()`: the answer is read whole into memory
      // anyway, and `request()` makes a stream of its body, with an async iterator to read it, for
      // every call (~10 µs a call once warm, several times that in a process still warming up).
      return new Promise<RawResponse>((resolve, reject) => {
        let controller: Dispatcher.DispatchController | undefined;
        let status = 0;
        let responseHeaders: Record<string, string> = {};
        const chunks: Buffer[] = [];
        let size = 0;
        const tooLarge = () =>
          new UpstreamError({
            kind: 'too-large',
            method: call.method,
            route: call.route,
            status,
            message: `Upstream response to ${routeLabel(call)} exceeds ${options.maxResponseBytes} bytes`,
          });
        // An abort before the pool started the request takes effect when it starts (as undici's
        // own `request()` does): its answer is then the abort's reason.
        const onAbort = () => controller?.abort(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        let written = false;
        /** Counts this call out of `unwritten`, once: at its start, or at its end without one. */
        const markWritten = () => {
          if (written) return;
          written = true;
          unwritten -= 1;
        };
        const settled = () => {
          markWritten();
          signal.removeEventListener('abort', onAbort);
        };
        unwritten += 1;
        pool.dispatch(
          { path, method: call.method, headers, body: body as string },
          {
            onRequestStart(started) {
              markWritten();
              controller = started;
              if (signal.aborted) started.abort(signal.reason);
            },
            onResponseStart(started, statusCode, received) {
              status = statusCode;
              responseHeaders = flattenHeaders(received);
              if (Number(responseHeaders['content-length'] ?? 0) > options.maxResponseBytes) {
                started.abort(tooLarge());
              }
            },
            onResponseData(started, chunk) {
              size += chunk.length;
              if (size > options.maxResponseBytes) started.abort(tooLarge());
              else chunks.push(chunk);
            },
            onResponseEnd() {
              settled();
              if (unwritten > 0) setImmediate(read);
              else read();
            },
            onResponseError(_started, error) {
              settled();
              reject(failure(call, error, signal));
            },
          },
        );
        function read() {
          // A body of one chunk (nearly every answer: a page is read off the socket at once) is
          // decoded where it lies; `concat` would first copy it into a buffer of its own, allocated
          // outside the heap and freed only when a collection finds it.
          const text =
            chunks.length === 1
              ? chunks[0]!.toString('utf8')
              : Buffer.concat(chunks, size).toString('utf8');
          const isJson = /json/i.test(responseHeaders['content-type'] ?? '');
          let parsed: unknown = text === '' ? undefined : text;
          if (isJson && text !== '') {
            try {
              parsed = JSON.parse(text);
            } catch {
              parsed = text;
            }
          }
          resolve({ status, headers: responseHeaders, body: parsed });
        }
      });
    },

    async probe(signal) {
      try {
        const response = await pool.request({ path: basePath || '/', method: 'HEAD', signal });
        await response.body.dump();
        return true;
      } catch {
        return false;
      }
    },

    async close() {
      const closed = pool.close().then(() => true);
      const graceOver = new Promise<false>((resolve) =>
        setTimeout(resolve, CLOSE_GRACE_MS, false).unref(),
      );
      if (!(await Promise.race([closed, graceOver]))) await pool.destroy();
    },
  };
}
