/**
 * The self-hosted explorer: a browser asking `GET /graphql` for HTML gets GraphiQL, served with its
 * React runtime from the project's own node_modules under `/explorer/` (no CDN; works offline).
 * A client asking for JSON (or anything else) still reaches the GraphQL endpoint: the page answers
 * only when `text/html` is preferred over both GraphQL response types (media-types.ts).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { DEMO_TOKENS, EXPLORER_TABS } from './explorer-examples.ts';
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

/** Options of {@link registerExplorer}. */
export interface ExplorerOptions {
  readonly graphqlPath: string;
  /** The upstream is the embedded simulator (UPSTREAM=embedded): the page names its demo tokens. */
  readonly embeddedUpstream: boolean;
}

/** A browser's page load of the GraphQL path, answered by the GraphQL route. */
export interface ExplorerPage {
  readonly headers: Readonly<Record<string, string>>;
  readonly html: string;
}

/**
 * Registers the explorer's static files and returns its page, which the GraphQL route serves to a
 * GET that prefers HTML (before the GraphQL handler and its CSRF check, which a page load could
 * never pass).
 */
export async function registerExplorer(
  app: FastifyInstance,
  options: ExplorerOptions,
): Promise<ExplorerPage> {
  const html = renderExplorerPage({
    endpoint: options.graphqlPath,
    assetsPrefix: EXPLORER_ASSETS_PREFIX,
    tabs: EXPLORER_TABS,
    defaultHeaders: EXPLORER_DEFAULT_HEADERS,
    demoTokens: options.embeddedUpstream ? DEMO_TOKENS : [],
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
  return { headers: EXPLORER_PAGE_HEADERS, html };
}
