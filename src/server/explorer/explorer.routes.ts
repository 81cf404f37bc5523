/**
 * The self-hosted explorer: a browser asking `GET /graphql` for HTML gets GraphiQL, served with its
 * React runtime from the project's own node_modules under `/explorer/` (no CDN; works offline).
 * A client asking for JSON (or anything else) still reaches the GraphQL endpoint: the page answers
 * only when `text/html` is preferred over both GraphQL response types, as Apollo negotiates it.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { EXPLORER_TABS } from './explorer-examples.ts';
import {
  EXPLORER_CSS,
  EXPLORER_PAGE_HEADERS,
  EXPLORER_SCRIPT,
  renderExplorerPage,
} from './explorer-page.ts';

/** Where the explorer's static files are served. */
export const EXPLORER_ASSETS_PREFIX = '/explorer/';

/** The files served from node_modules; nothing else under those folders is reachable. */
const VENDOR_FILES: ReadonlySet<string> = new Set([
  '/graphiql.min.js',
  '/graphiql.min.css',
  '/react.production.min.js',
  '/react-dom.production.min.js',
]);

/** The header editor's initial text: a shape to fill in, not a working token. */
export const EXPLORER_DEFAULT_HEADERS = '{\n  "Authorization": "Bearer <your token>"\n}';

function vendorRoots(): string[] {
  const require = createRequire(import.meta.url);
  const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));
  return [
    packageDir('graphiql'),
    join(packageDir('react'), 'umd'),
    join(packageDir('react-dom'), 'umd'),
  ];
}

type Ranges = Array<{ type: string; q: number }>;

function parseAccept(accept: string): Ranges {
  return accept.split(',').map((range) => {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return { type, q: q === undefined ? 1 : Number(q.slice(2)) || 0 };
  });
}

/** The quality of a media type under Accept ranges: the most specific matching range decides. */
function quality(ranges: Ranges, mediaType: string): number {
  const [major] = mediaType.split('/');
  for (const candidate of [mediaType, `${major}/*`, '*/*']) {
    const matches = ranges.filter((r) => r.type === candidate);
    if (matches.length > 0) return Math.max(...matches.map((r) => r.q));
  }
  return 0;
}

/** Whether an Accept header prefers HTML to both GraphQL response media types. */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = parseAccept(accept);
  const html = quality(ranges, 'text/html');
  return (
    html > 0 &&
    html > quality(ranges, 'application/json') &&
    html > quality(ranges, 'application/graphql-response+json')
  );
}

/** Options of {@link registerExplorer}. */
export interface ExplorerOptions {
  readonly graphqlPath: string;
}

/** Registers the explorer page (on the GraphQL path) and its static files. */
export async function registerExplorer(
  app: FastifyInstance,
  options: ExplorerOptions,
): Promise<void> {
  const page = renderExplorerPage({
    endpoint: options.graphqlPath,
    assetsPrefix: EXPLORER_ASSETS_PREFIX,
    tabs: EXPLORER_TABS,
    defaultHeaders: EXPLORER_DEFAULT_HEADERS,
  });

  // Answered before the GraphQL handler (and its CSRF check, which a page load could never pass).
  app.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'GET' || request.routeOptions.url !== options.graphqlPath) return;
    if (!prefersHtml(request.headers.accept)) return;
    return reply.status(200).headers(EXPLORER_PAGE_HEADERS).send(page);
  });

  for (const [file, type, body] of [
    ['explorer.js', 'text/javascript; charset=utf-8', EXPLORER_SCRIPT],
    ['explorer.css', 'text/css; charset=utf-8', EXPLORER_CSS],
  ] as const) {
    app.get(`${EXPLORER_ASSETS_PREFIX}${file}`, async (_request, reply) =>
      reply
        .header('content-type', type)
        .header('cache-control', 'no-cache')
        .header('x-content-type-options', 'nosniff')
        .send(body),
    );
  }

  await app.register(fastifyStatic, {
    root: vendorRoots(),
    prefix: EXPLORER_ASSETS_PREFIX,
    decorateReply: false,
    index: false,
    list: false,
    allowedPath: (pathName) => VENDOR_FILES.has(pathName),
    // Versioned by package-lock, not by URL: an hour of caching, revalidated by ETag.
    maxAge: 3_600_000,
    setHeaders: (res) => res.setHeader('x-content-type-options', 'nosniff'),
  });
}
