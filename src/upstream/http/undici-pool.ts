/**
 * undici's connection pool and its error classes, loaded by themselves: `import 'undici'` loads the
 * whole library (fetch, WebSocket, mocks, caches, interceptors: some 110 files) and, through it,
 * Node's own bundled copy as well — ~35 ms of every start-up, for a transport that uses one pool
 * (docs/deploy.md "Start-up"). These are the same classes undici's entry point exports, from
 * the same files (test/unit/upstream/http/undici-pool.test.ts holds them to it, so an upgrade that moves
 * a file fails there, not in production).
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);

/** `undici.Pool`. */
export const Pool = require('undici/lib/dispatcher/pool') as typeof Undici.Pool;

/** `undici.errors`. */
export const errors = require('undici/lib/core/errors') as typeof Undici.errors;

// As undici's entry point does: `request()`, `stream()` … on every dispatcher, the pool's included.
Object.assign(
  (require('undici/lib/dispatcher/dispatcher') as { prototype: object }).prototype,
  require('undici/lib/api') as object,
);
