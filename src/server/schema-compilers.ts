/**
 * Fastify's own JSON-schema compilers (ajv for validation, fast-json-stringify for serialization),
 * loaded when a route first declares a schema instead of whenever an instance is created. Weft's
 * routes declare none (GraphQL validates its own requests), so a process never loads them: about
 * 30 ms of every start-up (docs/deploy.md "Start-up").
 *
 * The compilers are the ones Fastify would pick itself, resolved from Fastify's own install. The one
 * difference a custom factory makes in Fastify: a route's `headers` schema is compiled as written,
 * not with its property names lower-cased — so such a schema must name headers in lower case.
 */
import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;
/** What each compiler package exports: a function returning the compiler builder Fastify calls. */
type Builder = (externalSchemas: unknown, options: unknown) => unknown;

/** `require` as seen from Fastify's own package: its dependencies, in the versions it pins. */
const requireFromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));

/** The builder of `pkg`, loaded on its first call. */
function onFirstCall(pkg: string): Builder {
  let builder: Builder | undefined;
  return (externalSchemas, options) => {
    builder ??= (requireFromFastify(pkg) as () => Builder)();
    return builder(externalSchemas, options);
  };
}

export const onDemandSchemaCompilers = {
  buildValidator: onFirstCall('@fastify/ajv-compiler'),
  buildSerializer: onFirstCall('@fastify/fast-json-stringify-compiler'),
} as unknown as CompilersFactory;
