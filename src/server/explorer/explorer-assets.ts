/**
 * The explorer's static files (the bundle's manifest names them) under one `GET`/`HEAD` route,
 * sent by `@fastify/send`, loaded with the first file asked for. `@fastify/static` did the same
 * through the same library, but loading it loaded `glob` and its matcher too (it lists the
 * folder when asked to), ~40 modules at every start-up for a page most processes never serve
 * (docs/deploy.md "Start-up"; test/e2e/server/lazy-start-up.test.ts).
 *
 * Only the manifest's files are served; anything else under the prefix is the ordinary 404. Every
 * file name carries its content's hash, so a new build is a new URL: cached for a year, immutable.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type send from '@fastify/send';
import type { SendOptions } from '@fastify/send';

type Send = typeof send;

let loaded: Promise<Send> | undefined;
/** `@fastify/send`, imported once, on first use. */
const loadSend = (): Promise<Send> =>
  (loaded ??= import('@fastify/send').then((module) => module.default));

/** Registers `GET`/`HEAD` `<prefix>*` for the files of `files` (paths from `/`) in `root`. */
export function registerExplorerAssets(
  app: FastifyInstance,
  options: { readonly prefix: string; readonly root: string; readonly files: ReadonlySet<string> },
): void {
  const sendOptions: SendOptions = {
    root: options.root,
    index: false,
    maxAge: '365d',
    immutable: true,
  };
  app.route({
    method: ['GET', 'HEAD'],
    url: `${options.prefix}*`,
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const file = `/${(request.params as { '*': string })['*']}`;
      if (!options.files.has(file)) return reply.callNotFound();
      const send = await loadSend();
      // send() decodes the path it is given: pass it encoded.
      const result = await send(request.raw, encodeURI(file), sendOptions);
      if (result.type === 'error') {
        const { error } = result.metadata;
        return (error as { status?: number }).status === 404
          ? reply.callNotFound()
          : reply.send(error);
      }
      reply.code(result.statusCode).headers(result.headers);
      reply.header('x-content-type-options', 'nosniff');
      return reply.send(result.stream);
    },
  });
}
