/**
 * What the explorer page hands its script, as inert JSON in the page (`explorer-page.ts`): the one
 * contract between the server and the browser bundle (`explorer/main.tsx` imports this type).
 * Types only, so the browser build can import it without pulling in anything of the server.
 */

/** A GraphiQL tab. */
export interface ExplorerTab {
  readonly query: string;
}

/** URLs of Monaco's web workers, by the label Monaco asks for. */
export interface ExplorerWorkers {
  /** The editor's own worker (diffs, links, word completion). */
  readonly editor: string;
  /** The JSON language (variables, headers, response editors). */
  readonly json: string;
  /** monaco-graphql's language service (the operation editor). */
  readonly graphql: string;
}

export interface ExplorerConfig {
  /** The GraphQL endpoint the explorer talks to (same origin). */
  readonly endpoint: string;
  readonly tabs: readonly ExplorerTab[];
  /** The header editor's initial text. */
  readonly defaultHeaders: string;
  readonly workers: ExplorerWorkers;
}
