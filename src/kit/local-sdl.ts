/**
 * The graph's own SDL (every schema/*.graphql file, in name order), read and parsed once per
 * process. Three parts of start-up need it — the stitched subgraphs' call bounds (when their module
 * loads), the name-collision rule and the schema build — and parsing the ~60 KB again for each was a
 * measurable part of start-up (docs/deploy.md "Start-up"). The documents are shared: nothing
 * that reads them (graphql-js, graphql-tools' merge) changes an AST it is given.
 *
 * Parsed without locations: nothing reads where a definition was in its file (the schema is built
 * from these documents, never reported against them), and a token and a location per node were
 * kept for the life of the process (docs/deploy.md "Memory").
 */
import { readFileSync, readdirSync } from 'node:fs';
import { parse, type DocumentNode } from 'graphql';

/** schema/ at the project root. */
export const LOCAL_SCHEMA_DIR = new URL('../../schema/', import.meta.url);

let parsed: readonly DocumentNode[] | undefined;

/** The local SDL files' documents (schema/remote/ is a folder and is not read here). */
export function localSdlDocuments(): readonly DocumentNode[] {
  parsed ??= readdirSync(LOCAL_SCHEMA_DIR)
    .filter((file) => file.endsWith('.graphql'))
    .sort()
    .map((file) =>
      parse(readFileSync(new URL(file, LOCAL_SCHEMA_DIR), 'utf8'), { noLocation: true }),
    );
  return parsed;
}
