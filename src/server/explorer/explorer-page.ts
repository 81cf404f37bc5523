/**
 * The explorer's HTML page and its start-up script. Everything it loads comes from this server
 * (GraphiQL's prebuilt bundle and React's UMD builds out of node_modules), so it works offline and
 * under a strict Content-Security-Policy: no inline script (the configuration travels as inert JSON),
 * no eval, no third-party origin.
 */
import type { DemoToken, ExplorerTab } from './explorer-examples.ts';

/** What the page needs to know. */
export interface ExplorerPageOptions {
  /** The GraphQL endpoint the explorer talks to (same origin). */
  readonly endpoint: string;
  /** Where the static files are served (`/explorer/`). */
  readonly assetsPrefix: string;
  readonly tabs: readonly ExplorerTab[];
  /** The header editor's initial text. */
  readonly defaultHeaders: string;
  /** The tokens the page names: the embedded simulator's, or none for a real upstream. */
  readonly demoTokens: readonly DemoToken[];
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

/** Text for an HTML element's content. */
function htmlText(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** The line above GraphiQL that says which token to use, when there are demo tokens to name. */
function demoTokenHint(tokens: readonly DemoToken[]): string {
  const [first, ...others] = tokens;
  if (!first) return '';
  const header = htmlText(`{"Authorization": "Bearer ${first.token}"}`);
  const other = others
    .map(({ token, gives }) => `<code>${htmlText(token)}</code> (${htmlText(gives)})`)
    .join(', ');
  return `
    <p class="weft-explorer-hint" role="note">
      Embedded upstream simulator (fake data): put <code>${header}</code> in the Headers tab
      (${htmlText(first.gives)}); every tab uses it.${other ? ` Other demo tokens: ${other}.` : ''}
    </p>`;
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
  <body>${demoTokenHint(options.demoTokens)}
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

/** Full-height layout for GraphiQL, below the demo-token line when there is one. */
export const EXPLORER_CSS = `html, body { height: 100%; margin: 0; }
body { display: flex; flex-direction: column; font-family: system-ui, sans-serif; }
#graphiql { flex: 1; min-height: 0; }
.weft-explorer-hint { margin: 0; padding: 0.5rem 1rem; background: #fff8e1; color: #3e2c00; font-size: 0.875rem; }
.weft-explorer-hint code { font-family: ui-monospace, monospace; }
`;

/**
 * Starts GraphiQL from the page's JSON configuration.
 *
 * One `Authorization` header for every tab, and every tab shows what it sends: GraphiQL sends the
 * headers its editor shows (the fetcher adds only `Weft-Priority`), so the token has to be in each tab's editor.
 * A token typed in any tab's header editor becomes the shared one at once; GraphiQL's
 * `defaultHeaders` carries it into new tabs and tabs never opened, and a tab whose headers GraphiQL
 * puts back into the editor (a switch to a tab opened before, a closed tab, a history entry) gets
 * it written into them. Removing it in one tab puts the placeholder back where another tab had it.
 * It is kept for this browser tab's session (sessionStorage: only this origin, gone when the tab
 * closes, never in localStorage). Tabs and history persist under their own namespace, with any
 * bearer token in them replaced by the placeholder.
 */
export const EXPLORER_SCRIPT = `(function () {
  'use strict';
  var React = window.React;
  var GraphiQL = window.GraphiQL;
  var config = JSON.parse(document.getElementById('weft-explorer-config').textContent);
  var KEY = 'weft-explorer-authorization';
  var PLACEHOLDER = JSON.parse(config.defaultHeaders).Authorization;

  // The shared token (null: none yet), with React's external-store protocol.
  var token = null;
  var listeners = [];
  try { token = window.sessionStorage.getItem(KEY); } catch (e) { token = null; }
  var getToken = function () { return token; };
  var subscribe = function (listener) {
    listeners.push(listener);
    return function () { listeners = listeners.filter(function (l) { return l !== listener; }); };
  };
  var setToken = function (value) {
    if (value === token) return;
    token = value;
    try {
      if (value === null) window.sessionStorage.removeItem(KEY);
      else window.sessionStorage.setItem(KEY, value);
    } catch (e) { /* private mode: memory only */ }
    listeners.slice().forEach(function (listener) { listener(); });
  };

  // A header editor's text as an object; {} when empty (GraphiQL sends none); null when it is not
  // a JSON object (the user is mid-edit, or it is wrong: GraphiQL refuses to run it).
  var parseHeaders = function (text) {
    if (text.trim() === '') return {};
    var value;
    try { value = JSON.parse(text); } catch (e) { return null; }
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : null;
  };
  var authorizationName = function (headers) {
    return Object.keys(headers).find(function (name) { return name.toLowerCase() === 'authorization'; });
  };
  var isToken = function (value) {
    return typeof value === 'string' && value.trim() !== '' && value !== PLACEHOLDER;
  };
  // What a user's edit makes the shared token: its Authorization, or null (removed, placeholder);
  // undefined while the text is no JSON object.
  var tokenIn = function (text) {
    var headers = parseHeaders(text);
    if (headers === null) return undefined;
    var name = authorizationName(headers);
    return name !== undefined && isToken(headers[name]) ? headers[name] : null;
  };
  // The text with the shared token in it; the same text when it already agrees (or is no object).
  var withToken = function (text, shared) {
    var headers = parseHeaders(text);
    if (headers === null) return text;
    var name = authorizationName(headers);
    var current = name === undefined ? undefined : headers[name];
    var wanted = shared !== null ? shared : isToken(current) ? PLACEHOLDER : current;
    if (current === wanted) return text;
    headers[name === undefined ? 'Authorization' : name] = wanted;
    return JSON.stringify(headers, null, 2);
  };

  // Inside GraphiQL (its toolbar's component slot, for its editor context): learns the token from
  // the user's edits, and writes it into whatever GraphiQL itself puts in the header editor.
  var TokenSync = function () {
    var editor = GraphiQL.React.useEditorContext({ nonNull: true }).headerEditor;
    React.useEffect(function () {
      if (!editor) return undefined;
      var sync = function () {
        var text = editor.getValue();
        var next = withToken(text, token);
        if (next !== text) editor.setValue(next);
      };
      var onChange = function (_editor, change) {
        // GraphiQL fills the editor with setValue; the user's edits have other origins. The sync
        // waits for GraphiQL to finish its own update (a change handler must not change the text).
        if (change.origin === 'setValue') Promise.resolve().then(sync);
        else {
          var typed = tokenIn(editor.getValue());
          if (typed !== undefined) setToken(typed);
        }
      };
      sync();
      editor.on('change', onChange);
      return function () { editor.off('change', onChange); };
    }, [editor]);
    return null;
  };

  // The explorer's reads are served after apps' (docs/efficiency.md "Priorities").
  var base = GraphiQL.createFetcher({
    url: config.endpoint,
    headers: { 'Weft-Priority': 'explorer' },
  });
  var fetcher = function (params, options) {
    // Right after a tab switch GraphiQL may still send the previous tab's operation name; a name
    // the document does not define is dropped, so the document's own operation runs.
    var name = params && params.operationName;
    if (name && !new RegExp('\\\\b(query|mutation|subscription)\\\\s+' + name + '\\\\b').test(params.query || '')) {
      params = Object.assign({}, params, { operationName: undefined });
    }
    return base(params, options);
  };
  // GraphiQL keeps tabs and history (headers included) in localStorage: never with a token in them.
  var storage = GraphiQL.createLocalStorage({ namespace: 'weft-explorer' });
  var scrub = function (value) {
    return typeof value === 'string' ? value.replace(/Bearer\\s+[^"\\\\\\s]+/g, PLACEHOLDER) : value;
  };
  var safeStorage = {
    getItem: function (key) { return storage.getItem(key); },
    setItem: function (key, value) { storage.setItem(key, scrub(value)); },
    removeItem: function (key) { storage.removeItem(key); },
    clear: function () { storage.clear(); },
    get length() { return storage.length; },
  };
  var toolbar = { additionalComponent: TokenSync };

  var Explorer = function () {
    var shared = React.useSyncExternalStore(subscribe, getToken);
    return React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultTabs: config.tabs,
      defaultHeaders: withToken(config.defaultHeaders, shared),
      isHeadersEditorEnabled: true,
      shouldPersistHeaders: false,
      defaultEditorToolsVisibility: 'headers',
      storage: safeStorage,
      toolbar: toolbar,
    });
  };
  var container = document.getElementById('graphiql');
  container.textContent = '';
  window.ReactDOM.createRoot(container).render(React.createElement(Explorer));
})();
`;
