/**
 * `npm run schema:pull`: introspects the live catalog, tax and order subgraphs and rewrites the SDL
 * snapshots in schema/remote/ that the gateway stitches at start-up (start-up never introspects).
 *
 *   UPSTREAM_URL=https://api.provider.example SCHEMA_PULL_TOKEN=… SCHEMA_PULL_STORE_ID=<uuid> \
 *     npm run schema:pull
 *
 * The token needs `commerce.product:read`, `commerce.tax:read` and `commerce.order:read`; the store
 * is any store it can read (catalog and tax are store-scoped). The calls go through the upstream
 * client like the gateway's own. The snapshots are printed from the introspection result with types
 * sorted by name, so a refresh diffs cleanly; review the diff, then commit it.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import {
  buildClientSchema,
  getIntrospectionQuery,
  lexicographicSortSchema,
  printSchema,
  type IntrospectionQuery,
} from 'graphql';
import { loadConfig, loadSchemaPullConfig } from '../config.ts';
import { createCredentialFactory, type Credential } from '../upstream/credential.ts';
import { createTransport } from '../upstream/http/http-transport.ts';
import { DEFAULT_RETRY_POLICY } from '../upstream/http/retry-policy.ts';
import { createUpstreamClient } from '../upstream/upstream-client.ts';
import type { UpstreamClient } from '../upstream/upstream-call.ts';
import { REMOTE_SUBGRAPHS, snapshotUrl, type RemoteSubgraph } from './remote-subgraphs.ts';
import { createSubgraphClient } from './subgraph-client.ts';

const header = (subgraph: RemoteSubgraph): string =>
  `# Snapshot of the ${subgraph.name} subgraph's schema (POST ${subgraph.route}).\n` +
  '# Written by `npm run schema:pull` from a live upstream; do not edit by hand.\n\n';

/** Introspects every subgraph and returns its snapshot text, by subgraph name. */
export async function pullRemoteSchemas(
  upstream: UpstreamClient,
  credential: Credential,
  storeId: string,
  subgraphs: readonly RemoteSubgraph[] = REMOTE_SUBGRAPHS,
): Promise<Map<RemoteSubgraph['name'], string>> {
  const client = createSubgraphClient(upstream, { credential, requestId: randomUUID() });
  const snapshots = new Map<RemoteSubgraph['name'], string>();
  for (const subgraph of subgraphs) {
    const body = (await client.execute(
      subgraph,
      subgraph.storeScoped ? storeId : null,
      { query: getIntrospectionQuery({ descriptions: true }) },
      true,
    )) as { data?: IntrospectionQuery; errors?: { message?: string }[] } | undefined;
    if (!body?.data || (body.errors?.length ?? 0) > 0) {
      const reason = body?.errors?.map((error) => error.message).join('; ') ?? 'no data';
      throw new Error(`introspection of the ${subgraph.name} subgraph failed: ${reason}`);
    }
    const schema = lexicographicSortSchema(buildClientSchema(body.data));
    snapshots.set(subgraph.name, `${header(subgraph)}${printSchema(schema)}\n`);
  }
  return snapshots;
}

async function main(): Promise<void> {
  const pull = loadSchemaPullConfig();
  const config = loadConfig();
  const upstream = createUpstreamClient({
    transport: createTransport({
      baseUrl: pull.UPSTREAM_URL,
      connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
      headersTimeoutMs: config.UPSTREAM_HEADERS_TIMEOUT_MS,
      bodyTimeoutMs: config.UPSTREAM_BODY_TIMEOUT_MS,
      maxResponseBytes: config.UPSTREAM_MAX_RESPONSE_BYTES,
      connections: 2,
    }),
    deadlineMs: config.UPSTREAM_DEADLINE_MS,
    retry: { ...DEFAULT_RETRY_POLICY, maxAttempts: config.UPSTREAM_MAX_ATTEMPTS },
  });
  try {
    const credential = createCredentialFactory()(pull.SCHEMA_PULL_TOKEN);
    const snapshots = await pullRemoteSchemas(upstream, credential, pull.SCHEMA_PULL_STORE_ID);
    for (const subgraph of REMOTE_SUBGRAPHS) {
      const text = snapshots.get(subgraph.name);
      if (text === undefined) continue;
      const url = snapshotUrl(subgraph);
      await writeFile(url, text, 'utf8');
      console.log(`wrote ${url.pathname}`);
    }
  } finally {
    await upstream.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
