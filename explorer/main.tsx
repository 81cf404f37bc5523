/**
 * The explorer: GraphiQL 5 on React 19, started from the page's JSON configuration
 * (`src/server/explorer/explorer-page.ts`). Bundled by `scripts/build-explorer.ts`; everything it
 * loads — its chunks, stylesheet, fonts and Monaco's workers — comes from the gateway itself, so it
 * works offline and under the page's strict Content-Security-Policy (no inline script, no eval).
 */
import { GraphiQL, HISTORY_PLUGIN } from 'graphiql';
import { createRoot } from 'react-dom/client';
import type { ExplorerConfig } from '../src/server/explorer/explorer-config.ts';
import { createEstimator } from './estimate.ts';
import { EstimateBar } from './estimate-view.tsx';
import { EstimateWatch } from './estimate-watch.tsx';
import { createExplorerFetcher } from './fetcher.ts';
import { createLastRunStore } from './last-run.ts';
import { ledgerPlugin } from './ledger-panel.tsx';
import { PartsBar } from './parts-view.tsx';
import { installMonacoWorkers } from './monaco-workers.ts';
import { createSafeStorage } from './safe-storage.ts';
import { createSharedToken, parseHeaders, tokenRules } from './shared-token.ts';
import { TokenSync } from './token-sync.tsx';
import 'graphiql/style.css';
import './explorer.css';

const element = document.getElementById('weft-explorer-config');
const config = JSON.parse(element?.textContent ?? '{}') as ExplorerConfig;

installMonacoWorkers(config.workers);

const placeholder = String(parseHeaders(config.defaultHeaders)?.Authorization ?? '');
const rules = tokenRules(placeholder);
const token = createSharedToken(window.sessionStorage);
const lastRun = createLastRunStore();
const plugins = [HISTORY_PLUGIN, ledgerPlugin(lastRun)];
const fetcher = createExplorerFetcher(config.endpoint, lastRun);
const storage = createSafeStorage(placeholder);
const estimator = createEstimator({ endpoint: config.endpoint });

function Explorer() {
  return (
    <GraphiQL
      fetcher={fetcher}
      defaultTabs={[...config.tabs]}
      defaultHeaders={rules.withToken(config.defaultHeaders, token.get())}
      isHeadersEditorEnabled
      shouldPersistHeaders={false}
      showPersistHeadersSettings={false}
      defaultEditorToolsVisibility="headers"
      storage={storage}
      plugins={plugins}
    >
      <TokenSync token={token} rules={rules} />
      <EstimateWatch estimator={estimator} token={token} />
      <GraphiQL.Footer>
        <PartsBar lastRun={lastRun} />
        <EstimateBar estimator={estimator} />
      </GraphiQL.Footer>
    </GraphiQL>
  );
}

const container = document.getElementById('graphiql');
if (container) {
  container.textContent = '';
  createRoot(container).render(<Explorer />);
}
