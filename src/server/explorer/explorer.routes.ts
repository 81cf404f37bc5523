/**
 * The self-hosted explorer: a browser asking `GET /graphql` for HTML gets GraphiQL 5, served with
 * its bundle (explorer-bundle.ts) from this server under `/explorer/` (no CDN; works offline).
 * A client asking for JSON (or anything else) still reaches the GraphQL endpoint: the page answers
 * only when `text/html` is preferred over both GraphQL response types (media-types.ts).
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { registerExplorerAssets } from './explorer-assets.ts';
import {
  EXPLORER_BUNDLE_DIR,
  explorerInputsHash,
  readExplorerManifest,
  type ExplorerManifest,
} from './explorer-bundle.ts';
import { DEMO_TOKENS, EXPLORER_ALL_TABS } from './explorer-examples.ts';
import {
  EXPLORER_PAGE_HEADERS,
  renderExplorerMissingPage,
  renderExplorerPage,
} from './explorer-page.ts';

/** Where the explorer's static files are served. */
export const EXPLORER_ASSETS_PREFIX = '/explorer/';

/** The header editor's initial text: a shape to fill in, not a working token. */
export const EXPLORER_DEFAULT_HEADERS = '{\n  "Authorization": "Bearer <your token>"\n}';

/** Options of {@link registerExplorer}. */
export interface ExplorerOptions {
  readonly graphqlPath: string;
  /** The upstream is the embedded simulator (UPSTREAM=embedded): the page names its demo tokens. */
  readonly embeddedUpstream: boolean;
  readonly logger?: FastifyBaseLogger;
  /** Where the bundle is (tests); default dist/explorer. */
  readonly bundleDir?: string;
}

/** A browser's page load of the GraphQL path, answered by the GraphQL route. */
export interface ExplorerPage {
  readonly headers: Readonly<Record<string, string>>;
  readonly html: string;
}

/**
 * Says once, on the first page load (not at start-up: it reads the sources), when the bundle was
 * built from other sources than the checkout's — a `git pull` without `npm ci`.
 */
function staleCheck(manifest: ExplorerManifest, logger: FastifyBaseLogger | undefined) {
  let checked = false;
  return () => {
    if (checked) return;
    checked = true;
    const current = explorerInputsHash();
    if (current !== undefined && current !== manifest.inputsHash) {
      logger?.warn('the explorer bundle is older than its sources: run `npm run build:explorer`');
    }
  };
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
  const dir = options.bundleDir ?? EXPLORER_BUNDLE_DIR;
  const manifest = readExplorerManifest(dir);
  if (manifest === undefined) {
    options.logger?.warn(
      `no explorer bundle in ${dir}: the explorer page says how to build it (npm run build:explorer)`,
    );
    return { headers: EXPLORER_PAGE_HEADERS, html: renderExplorerMissingPage() };
  }

  const asset = (file: string) => `${EXPLORER_ASSETS_PREFIX}${file}`;
  const html = renderExplorerPage({
    config: {
      endpoint: options.graphqlPath,
      tabs: EXPLORER_ALL_TABS,
      defaultHeaders: EXPLORER_DEFAULT_HEADERS,
      workers: {
        editor: asset(manifest.workers.editor),
        json: asset(manifest.workers.json),
        graphql: asset(manifest.workers.graphql),
      },
    },
    script: asset(manifest.script),
    style: asset(manifest.style),
    demoTokens: options.embeddedUpstream ? DEMO_TOKENS : [],
  });

  // The manifest's files only: nothing else in the folder (the manifest itself) is reachable.
  const files = new Set(manifest.files.map((file) => `/${file}`));
  registerExplorerAssets(app, { prefix: EXPLORER_ASSETS_PREFIX, root: dir, files });

  const checkStale = staleCheck(manifest, options.logger);
  return {
    headers: EXPLORER_PAGE_HEADERS,
    get html() {
      checkStale();
      return html;
    },
  };
}
