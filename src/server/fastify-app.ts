/**
 * The Fastify instance the gateway serves from, with every socket phase bounded (docs/security.md
 * "Slow clients"), the proxy trusted as TRUST_PROXY says, one access-log line per request, and
 * nothing loaded that no route uses.
 */
import type { createServer as CreateServer } from 'node:http';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyServerOptions,
} from 'fastify';
import type { Config } from '../config.ts';
import { AccessLogController } from './access-log.ts';
import { requestIdOf } from './request-id.ts';
import { onDemandSchemaCompilers } from './schema-compilers.ts';

/**
 * `node:http` as CommonJS: an ES import of it builds a module namespace, whose reading of the
 * exports loads Node's bundled undici behind `http.WebSocket` (~10 ms of every start-up).
 */
const createServer: typeof CreateServer = process.getBuiltinModule('node:http').createServer;

/** `TRUST_PROXY` as Fastify reads it (docs/deploy.md "Behind a load balancer"). */
function trustProxyOf(value: string | undefined): FastifyServerOptions['trustProxy'] {
  if (value === undefined) return false;
  return value === 'true' ? true : value.split(',');
}

export function createFastifyApp(config: Config, logger: FastifyBaseLogger): FastifyInstance {
  return Fastify({
    // Every socket phase is bounded; the check runs every second, so a slow request is answered
    // 408 within a second of its bound, not Node's default 30 s.
    serverFactory: (handler) =>
      createServer(
        {
          requestTimeout: config.REQUEST_TIMEOUT_MS,
          headersTimeout: config.HEADERS_TIMEOUT_MS,
          keepAliveTimeout: config.KEEPALIVE_TIMEOUT_MS,
          connectionsCheckingInterval: 1_000,
        },
        handler,
      ),
    // Fastify sets these on the server too: the same values.
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    keepAliveTimeout: config.KEEPALIVE_TIMEOUT_MS,
    loggerInstance: logger,
    trustProxy: trustProxyOf(config.TRUST_PROXY),
    genReqId: requestIdOf,
    // One line per request (access-log.ts).
    logController: new AccessLogController(),
    // JSON bodies; multipart uploads are streamed and capped by UPLOAD_MAX_BYTES instead.
    bodyLimit: config.REQUEST_BODY_LIMIT_BYTES,
    return503OnClosing: true,
    // Fastify's 10 s for a plugin to load was seen to run out on a loaded two-core machine (CI with
    // Chromium and 100 MiB uploads beside it); a start-up that hangs still fails, later.
    pluginTimeout: 30_000,
    // ajv and fast-json-stringify load only if a route declares a schema (none does).
    schemaController: { compilersFactory: onDemandSchemaCompilers },
  });
}
