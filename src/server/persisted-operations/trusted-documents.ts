/**
 * Trusted-documents mode (docs/security.md): the gateway serves only the operations of a manifest
 * built with the clients. The manifest is JSON, either `{ "<sha256 hex>": "<document>" }` or an Apollo
 * persisted-query manifest (`{ "format": "apollo-persisted-query-manifest", "operations": [{ "id",
 * "body" }] }`). Every id must be the SHA-256 of its document, checked at start-up, so a client may
 * send the hash alone (APQ protocol) or the full text.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hashOfCacheKey, type DocumentCache } from './document-cache.ts';

/** The documents of a trusted-documents manifest, by SHA-256. */
export interface TrustedDocuments {
  readonly size: number;
  /** The trusted document of a SHA-256 hash (hex, lowercase). */
  get(hash: string): string | undefined;
  has(hash: string): boolean;
  /** Every trusted document (`npm run cost` bounds them all). */
  documents(): Iterable<string>;
  /** For Apollo's `persistedQueries.cache`: answers from the manifest, registers nothing. */
  readonly cache: DocumentCache;
}

/** The SHA-256 of a document as APQ defines it: hex of the UTF-8 text, nothing normalized. */
export function documentHash(document: string): string {
  return createHash('sha256').update(document).digest('hex');
}

function entriesOf(manifest: unknown): Array<[string, unknown]> {
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
    throw new Error('must be a JSON object');
  }
  const record = manifest as Record<string, unknown>;
  if (record.format === 'apollo-persisted-query-manifest') {
    if (!Array.isArray(record.operations)) throw new Error('has no "operations" array');
    return record.operations.map((operation: unknown, index) => {
      const { id, body } = (operation ?? {}) as { id?: unknown; body?: unknown };
      if (typeof id !== 'string') throw new Error(`operations[${index}] has no string "id"`);
      return [id, body];
    });
  }
  return Object.entries(record);
}

/** Builds the trusted set from a parsed manifest; `source` names it in errors. */
export function trustedDocumentsFrom(manifest: unknown, source: string): TrustedDocuments {
  const documents = new Map<string, string>();
  try {
    for (const [id, document] of entriesOf(manifest)) {
      if (typeof document !== 'string' || document.trim() === '') {
        throw new Error(`entry ${id} has no document text`);
      }
      const hash = documentHash(document);
      if (id.toLowerCase() !== hash) {
        throw new Error(`entry ${id} is not the SHA-256 of its document (that is ${hash})`);
      }
      documents.set(hash, document);
    }
  } catch (error) {
    throw new Error(`Trusted documents manifest ${source}: ${(error as Error).message}`);
  }
  return {
    size: documents.size,
    get: (hash) => documents.get(hash.toLowerCase()),
    has: (hash) => documents.has(hash.toLowerCase()),
    documents: () => documents.values(),
    cache: {
      get: async (key) => documents.get(hashOfCacheKey(key).toLowerCase()),
      // Registration is what trusted documents exist to prevent: writes are dropped.
      set: async () => undefined,
      delete: async () => false,
    },
  };
}

/** Reads and checks the manifest at `path`; start-up fails on any problem with it. */
export async function loadTrustedDocuments(path: string): Promise<TrustedDocuments> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`Trusted documents manifest ${path}: ${(error as Error).message}`);
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (error) {
    throw new Error(`Trusted documents manifest ${path}: not JSON (${(error as Error).message})`);
  }
  return trustedDocumentsFrom(manifest, path);
}
