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
 * Starts GraphiQL from the page's JSON configuration. One token for every tab: the first
 * `Authorization` a request carries (not the placeholder) is remembered for this browser tab's
 * session (sessionStorage: never sent anywhere but this endpoint, gone when the tab closes, never
 * in localStorage) and added to any request of another tab that has none — so the examples work
 * after the token is entered once. Tabs and history persist under their own namespace, with any
 * bearer token in them replaced by the placeholder.
 */
export const EXPLORER_SCRIPT = `(function () {
  'use strict';
  var config = JSON.parse(document.getElementById('weft-explorer-config').textContent);
  var KEY = 'weft-explorer-authorization';
  var PLACEHOLDER = /<your token>/;
  var remembered = null;
  try { remembered = window.sessionStorage.getItem(KEY); } catch (e) { remembered = null; }
  var base = window.GraphiQL.createFetcher({ url: config.endpoint });
  var fetcher = function (params, options) {
    var headers = {};
    var given = (options && options.headers) || {};
    var own = null;
    Object.keys(given).forEach(function (name) {
      if (name.toLowerCase() === 'authorization') own = given[name];
      else headers[name] = given[name];
    });
    if (typeof own === 'string' && own.trim() !== '' && !PLACEHOLDER.test(own)) {
      remembered = own;
      try { window.sessionStorage.setItem(KEY, own); } catch (e) { /* private mode: memory only */ }
    }
    if (remembered) headers.Authorization = remembered;
    // Right after a tab switch GraphiQL may still send the previous tab's operation name; a name
    // the document does not define is dropped, so the document's own operation runs.
    var name = params && params.operationName;
    if (name && !new RegExp('\\\\b(query|mutation|subscription)\\\\s+' + name + '\\\\b').test(params.query || '')) {
      params = Object.assign({}, params, { operationName: undefined });
    }
    return base(params, Object.assign({}, options, { headers: headers }));
  };
  // GraphiQL keeps tabs and history (headers included) in localStorage: never with a token in them.
  var storage = window.GraphiQL.createLocalStorage({ namespace: 'weft-explorer' });
  var scrub = function (value) {
    return typeof value === 'string' ? value.replace(/Bearer\\s+[^"\\\\\\s]+/g, 'Bearer <your token>') : value;
  };
  var safeStorage = {
    getItem: function (key) { return storage.getItem(key); },
    setItem: function (key, value) { storage.setItem(key, scrub(value)); },
    removeItem: function (key) { storage.removeItem(key); },
    clear: function () { storage.clear(); },
    get length() { return storage.length; },
  };
  var container = document.getElementById('graphiql');
  container.textContent = '';
  var root = window.ReactDOM.createRoot(container);
  root.render(
    window.React.createElement(window.GraphiQL, {
      fetcher: fetcher,
      defaultTabs: config.tabs,
      defaultHeaders: config.defaultHeaders,
      headerEditorEnabled: true,
      shouldPersistHeaders: false,
      defaultEditorToolsVisibility: 'headers',
      storage: safeStorage,
    }),
  );
})();
`;
