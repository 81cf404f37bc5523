/**
 * CSRF prevention that does not block real clients (docs/security.md "CSRF"). A browser sends a
 * cross-site request without asking the server first (a "simple" request) only when it carries
 * nothing but CORS-safelisted headers and a form-like content type. A request that carries any of
 * these headers cannot be simple — the browser must preflight it, and the CORS policy decides —
 * so it is proof enough: `Authorization` (every client that calls with a token, which is every
 * client that can do anything), or Apollo's `apollo-require-preflight` / `x-apollo-operation-name`
 * for a request without credentials. POSTs must be JSON or multipart anyway (415 otherwise), and
 * JSON is not a simple content type; what this guards is GET and multipart.
 */
import type { FastifyRequest } from 'fastify';

export const CSRF_PROOF_HEADERS = [
  'authorization',
  'apollo-require-preflight',
  'x-apollo-operation-name',
] as const;

/** Whether the request carries a header no simple cross-site request can carry. */
export const hasCsrfProof = (request: FastifyRequest): boolean =>
  CSRF_PROOF_HEADERS.some((name) => {
    const value = request.headers[name];
    return typeof value === 'string' && value.length > 0;
  });
