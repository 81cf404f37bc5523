/**
 * The explorer's HTML page and its start-up script. Everything it loads comes from this server
 * (GraphiQL's prebuilt bundle and React's UMD builds out of node_modules), so it works offline and
 * under a strict Content-Security-Policy: no inline script (the configuration travels as inert JSON),
 * no eval, no third-party origin.
 */
import type { ExplorerTab } from './explorer-examples.ts';

/** What the page needs to know. */
export interface ExplorerPageOptions {
  /** The GraphQL endpoint the explorer talks to (same origin). */
  readonly endpoint: string;
  /** Where the static files are served (`/explorer/`). */
  readonly assetsPrefix: string;
  readonly tabs: readonly ExplorerTab[];
  /** The header editor's initial text. */
  readonly defaultHeaders: string;
}

/** Headers that go with the page: the CSP is what makes "no CDN" a guarantee, not a habit. */
export const EXPLORER_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    // GraphiQL sets style attributes at run time.
    "style-src 'self' 'unsafe-inline'",
    "font-src 'self' data:",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** JSON that is safe inside a `<script type="application/json">` element. */
function inertJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026');
}

/** The explorer's HTML: the configuration as inert JSON, then same-origin scripts only. */
export function renderExplorerPage(options: ExplorerPageOptions): string {
  const asset = (file: string) => `${options.assetsPrefix}${file}`;
  const config = {
    endpoint: options.endpoint,
    tabs: options.tabs,
    defaultHeaders: options.defaultHeaders,
  };
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Weft explorer</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${asset('graphiql.min.css')}" />
    <link rel="stylesheet" href="${asset('explorer.css')}" />
  </head>
  <body>
    <div id="graphiql">Loading the Weft explorer…</div>
    <script id="weft-explorer-config" type="application/json">${inertJson(config)}</script>
    <script src="${asset('react.production.min.js')}"></script>
    <script src="${asset('react-dom.production.min.js')}"></script>
    <script src="${asset('graphiql.min.js')}"></script>
    <script src="${asset('explorer.js')}"></script>
  </body>
</html>
`;
}

/** Full-height layout for GraphiQL. */
export const EXPLORER_CSS = `html, body, #graphiql { height: 100%; margin: 0; }
body { font-family: system-ui, sans-serif; }
`;

/**
 * Starts GraphiQL from the page's JSON configuration. Headers are never persisted (a bearer token
 * must not linger in localStorage); tabs and history are, under their own namespace.
 */
export const EXPLORER_SCRIPT = `(function () {
  'use strict';
  var config = JSON.parse(document.getElementById('weft-explorer-config').textContent);
  var container = document.getElementById('graphiql');
  container.textContent = '';
  var root = window.ReactDOM.createRoot(container);
  root.render(
    window.React.createElement(window.GraphiQL, {
      fetcher: window.GraphiQL.createFetcher({ url: config.endpoint }),
      defaultTabs: config.tabs,
      defaultHeaders: config.defaultHeaders,
      headerEditorEnabled: true,
      shouldPersistHeaders: false,
      defaultEditorToolsVisibility: 'headers',
      storage: window.GraphiQL.createLocalStorage({ namespace: 'weft-explorer' }),
    }),
  );
})();
`;
