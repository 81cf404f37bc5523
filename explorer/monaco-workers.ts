/**
 * Where Monaco's web workers are: GraphiQL 5 leaves that to the bundler (`setup-workers/*` for Vite
 * and webpack); here the build wrote each worker as a file of the bundle and the page names them.
 * Same-origin files, so the CSP's `worker-src 'self'` holds (no blob: workers).
 */
import type { Environment } from 'monaco-editor';
import type { ExplorerWorkers } from '../src/server/explorer/explorer-config.ts';

export function installMonacoWorkers(workers: ExplorerWorkers): void {
  const environment: Environment = {
    getWorker(_workerId, label) {
      const url =
        label === 'json' ? workers.json : label === 'graphql' ? workers.graphql : workers.editor;
      return new Worker(url, { name: label });
    },
  };
  window.MonacoEnvironment = environment;
}
