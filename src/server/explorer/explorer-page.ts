/**
 * The explorer's HTML page. Everything it loads comes from this server — the bundle of GraphiQL 5,
 * React 19 and Monaco that `npm run build:explorer` wrote (explorer-bundle.ts) — so it works offline
 * and under a strict Content-Security-Policy: no inline script (the configuration travels as inert
 * JSON), no eval, no third-party origin.
 */
import type { DemoToken } from './explorer-examples.ts';
import type { ExplorerConfig } from './explorer-config.ts';

/** What the page needs to know. */
export interface ExplorerPageOptions {
  /** The page's configuration, handed to its script. */
  readonly config: ExplorerConfig;
  /** URLs of the bundle's module script and stylesheet. */
  readonly script: string;
  readonly style: string;
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
    // Monaco's language services run in web workers, served as files of the bundle.
    "worker-src 'self'",
    // GraphiQL and Monaco set style attributes and add style elements at run time.
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

/** Text for an HTML element's content or a quoted attribute. */
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

/** The explorer's HTML: the configuration as inert JSON, then the bundle's module script. */
export function renderExplorerPage(options: ExplorerPageOptions): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Weft explorer</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${htmlText(options.style)}" />
    <script type="module" src="${htmlText(options.script)}"></script>
  </head>
  <body>${demoTokenHint(options.demoTokens)}
    <div id="graphiql">Loading the Weft explorer…</div>
    <script id="weft-explorer-config" type="application/json">${inertJson(options.config)}</script>
  </body>
</html>
`;
}

/**
 * The page when no bundle was built (an install that skipped `prepare`, e.g. `npm ci
 * --ignore-scripts`): it says how to build one, instead of a GraphiQL that cannot load.
 */
export function renderExplorerMissingPage(): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Weft explorer</title>
    <link rel="icon" href="data:," />
  </head>
  <body>
    <h1>The explorer is not built</h1>
    <p class="weft-explorer-missing">
      Build it once with <code>npm run build:explorer</code> (<code>npm ci</code> and
      <code>npm install</code> do it), then reload. GraphQL clients are not affected.
    </p>
  </body>
</html>
`;
}
