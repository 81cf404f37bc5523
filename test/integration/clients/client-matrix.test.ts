/**
 * The mainstream clients, each with its defaults plus the Authorization header only, against a
 * real gateway: Apollo Client 4 (InMemoryCache with relayStylePagination to the end of a
 * connection, persisted queries over GET, an upload with apollo-upload-client, a subscription over
 * graphql-ws through a split link, a mutation's userErrors), urql with its default exchanges and
 * Accept header (GET queries, a mutation, a subscription through its subscriptionExchange),
 * graphql-request (typed errors), and the bare graphql-ws and graphql-sse clients. docs/clients.md
 * quotes these set-ups.
 */
import { createHash } from 'node:crypto';
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import UploadHttpLink from 'apollo-upload-client/UploadHttpLink.mjs';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { smallZip } from '../../support/graphql-multipart.ts';
import { getMainDefinition, relayStylePagination } from '@apollo/client/utilities';
import { cacheExchange, createClient, fetchExchange, subscriptionExchange } from '@urql/core';
import { createClient as createSseClient } from 'graphql-sse';
import { ClientError, GraphQLClient } from 'graphql-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

const AUTH = { authorization: 'Bearer demo-token' };
const endpoint = () => `${stack.url}/graphql`;

const CERTIFICATES = gql`
  query Certificates($after: String) {
    certificateCustomer(customerId: "demo-customer") {
      customerId
      certificates(first: 7, after: $after) {
        totalCount
        edges {
          cursor
          node {
            certificateId
            commonName
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
`;

describe('Apollo Client 4', () => {
  const client = () =>
    new ApolloClient({
      link: new HttpLink({ uri: endpoint(), headers: AUTH }),
      cache: new InMemoryCache({
        typePolicies: {
          CertificateCustomer: {
            keyFields: ['customerId'],
            fields: { certificates: relayStylePagination() },
          },
          Certificate: { keyFields: ['certificateId'] },
        },
      }),
    });

  it('pages a connection to its end with relayStylePagination', async () => {
    const apollo = client();
    const load = async (after?: string) =>
      (
        (
          await apollo.query({
            query: CERTIFICATES,
            variables: { after },
            fetchPolicy: 'network-only',
          })
        ).data as any
      ).certificateCustomer.certificates;
    let page = await load();
    const total = page.totalCount as number;
    expect(total).toBeGreaterThan(7);
    // As a UI's "load more" does: the next page after the last cursor, merged by the type policy.
    for (let round = 0; page.pageInfo.hasNextPage; round += 1) {
      expect(round).toBeLessThan(20); // a bound, so a paging bug fails instead of looping
      page = await load(page.pageInfo.endCursor);
    }
    // The merged list in the normalised cache holds the whole connection, each certificate once.
    const merged = apollo.readQuery({ query: CERTIFICATES }) as any;
    const ids = merged.certificateCustomer.certificates.edges.map((e: any) => e.node.certificateId);
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);
  });

  it('sends persisted queries over GET: the hash, the document once (POST), then the hash alone', async () => {
    const seen: { method: string; hasQuery: boolean; status: number }[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const url = new URL(String(input));
      seen.push({
        method: init?.method ?? 'GET',
        hasQuery: url.searchParams.has('query') || String(init?.body ?? '').includes('"query"'),
        status: response.status,
      });
      return response;
    };
    const apollo = new ApolloClient({
      link: new PersistedQueryLink({
        sha256: (text) => createHash('sha256').update(text).digest('hex'),
        useGETForHashedQueries: true,
      }).concat(new HttpLink({ uri: endpoint(), headers: AUTH, fetch: recordingFetch })),
      cache: new InMemoryCache(),
    });
    const APPS = gql`
      query AppsForApq {
        apps {
          appId
          name
        }
      }
    `;
    const first = await apollo.query({ query: APPS, fetchPolicy: 'network-only' });
    expect((first.data as any).apps.length).toBeGreaterThan(0);
    const second = await apollo.query({ query: APPS, fetchPolicy: 'network-only' });
    expect(second.data).toEqual(first.data);
    // Hash-only GET (a miss), the document once (Apollo's link registers over POST), then the hash
    // alone over GET.
    expect(seen.map((r) => [r.method, r.hasQuery])).toEqual([
      ['GET', false],
      ['POST', true],
      ['GET', false],
    ]);
    expect(seen.every((r) => r.status === 200)).toBe(true);
  });

  it('uploads an archive with apollo-upload-client (multipart, the token as its only header)', async () => {
    const apollo = new ApolloClient({
      link: new UploadHttpLink({ uri: endpoint(), headers: AUTH }),
      cache: new InMemoryCache(),
    });
    const zip = smallZip();
    const result = await apollo.mutate({
      mutation: gql`
        mutation Upload($input: UploadAppSourceInput!) {
          uploadAppSource(input: $input) {
            jobId
            bytes
            userErrors {
              code
              message
            }
          }
        }
      `,
      variables: {
        input: {
          appId: 'app-0002',
          zipFile: new File([zip], 'app.zip', { type: 'application/zip' }),
        },
      },
    });
    const payload = (result.data as any).uploadAppSource;
    expect(payload.userErrors).toEqual([]);
    expect(payload.bytes).toBe(zip.length);
  });

  it('follows a job over graphql-ws with GraphQLWsLink, the token in the connection parameters', async () => {
    const ws = createWsClient({
      url: `${endpoint().replace(/^http/, 'ws')}`,
      webSocketImpl: WebSocket,
      connectionParams: AUTH,
      retryAttempts: 0,
    });
    // As apps wire it: subscriptions over the WebSocket, everything else over HTTP.
    const link = ApolloLink.split(
      ({ query }) => {
        const definition = getMainDefinition(query);
        return definition.kind === 'OperationDefinition' && definition.operation === 'subscription';
      },
      new GraphQLWsLink(ws),
      new HttpLink({ uri: endpoint(), headers: AUTH }),
    );
    const apollo = new ApolloClient({ link, cache: new InMemoryCache() });
    try {
      const created = await apollo.mutate({
        mutation: gql`
          mutation {
            createApp(input: { name: "apollo-ws-app" }) {
              job {
                jobId
              }
            }
          }
        `,
      });
      const jobId = (created.data as any).createApp.job.jobId as string;
      const statuses = await new Promise<string[]>((resolve, reject) => {
        const seen: string[] = [];
        const subscription = apollo
          .subscribe({
            query: gql`
              subscription ($jobId: ID!) {
                appJob(jobId: $jobId) {
                  jobId
                  status
                }
              }
            `,
            variables: { jobId },
          })
          .subscribe({
            next: (result) => {
              if (result.error) return reject(result.error);
              seen.push((result.data as any).appJob.status);
            },
            error: reject,
            complete: () => resolve(seen),
          });
        setTimeout(() => {
          subscription.unsubscribe();
          resolve(seen);
        }, 15_000);
      });
      expect(statuses.length).toBeGreaterThan(0);
      expect(statuses.at(-1)).toMatch(/ACTIVE|FAILED/);
    } finally {
      await ws.dispose();
    }
  });

  it('reads a mutation’s userErrors', async () => {
    const apollo = client();
    const result = await apollo.mutate({
      mutation: gql`
        mutation {
          reissueCertificate(input: { certificateId: ".." }) {
            certificateId
            userErrors {
              code
              path
            }
          }
        }
      `,
    });
    const payload = (result.data as any).reissueCertificate;
    expect(payload.certificateId).toBeNull();
    expect(payload.userErrors[0]).toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('urql with its defaults', () => {
  it('queries (GET, within the URL limit) and mutates with only the Authorization header', async () => {
    const client = createClient({
      url: endpoint(),
      exchanges: [cacheExchange, fetchExchange],
      fetchOptions: { headers: AUTH },
    });
    const query = await client.query('{ apps { appId name } }', {}).toPromise();
    expect(query.error).toBeUndefined();
    expect((query.data as any).apps.length).toBeGreaterThan(0);
    const mutation = await client
      .mutation(
        'mutation($name: String!) { createApp(input: { name: $name }) { job { jobId } userErrors { message } } }',
        { name: 'urql-app' },
      )
      .toPromise();
    expect(mutation.error).toBeUndefined();
    expect((mutation.data as any).createApp.job.jobId).toBeTruthy();
  });
});

describe('graphql-request', () => {
  it('queries, and surfaces typed errors as a ClientError', async () => {
    const client = new GraphQLClient(endpoint(), { headers: AUTH });
    const data = await client.request<{ apps: unknown[] }>('{ apps { appId } }');
    expect(data.apps.length).toBeGreaterThan(0);
    const error = await new GraphQLClient(endpoint())
      .request('{ apps { appId } }')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientError);
    expect((error as ClientError).response.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

/** Starts a create-app job over HTTP and returns its id (what the subscriptions below follow). */
async function startJob(name: string): Promise<string> {
  const { body } = await stack.gql(
    `mutation($name: String!) { createApp(input: { name: $name }) { job { jobId } } }`,
    { name },
  );
  return body.data.createApp.job.jobId as string;
}

const JOB_STATUS = 'subscription($jobId: ID!) { appJob(jobId: $jobId) { jobId status } }';

describe('urql subscriptions', () => {
  it('follows a job through subscriptionExchange over graphql-ws', async () => {
    const ws = createWsClient({
      url: endpoint().replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: AUTH,
    });
    const client = createClient({
      url: endpoint(),
      fetchOptions: { headers: AUTH },
      exchanges: [
        cacheExchange,
        fetchExchange,
        subscriptionExchange({
          forwardSubscription: (request) => ({
            subscribe: (sink) => ({
              unsubscribe: ws.subscribe({ ...request, query: request.query ?? '' }, sink),
            }),
          }),
        }),
      ],
    });
    try {
      const jobId = await startJob('urql-ws-app');
      const statuses = await new Promise<string[]>((resolve, reject) => {
        const seen: string[] = [];
        const { unsubscribe } = client.subscription(JOB_STATUS, { jobId }).subscribe((result) => {
          if (result.error) return reject(result.error);
          seen.push((result.data as any).appJob.status);
          if (/ACTIVE|FAILED/.test(seen.at(-1) ?? '')) {
            unsubscribe();
            resolve(seen);
          }
        });
      });
      expect(statuses.at(-1)).toMatch(/ACTIVE|FAILED/);
    } finally {
      await ws.dispose();
    }
  });
});

describe('graphql-ws and graphql-sse clients with their defaults', () => {
  it('graphql-ws: the token in the connection parameters, the stream completes at a terminal state', async () => {
    const ws = createWsClient({
      url: endpoint().replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: AUTH,
    });
    try {
      const jobId = await startJob('ws-default-app');
      const statuses: string[] = [];
      for await (const result of ws.iterate({ query: JOB_STATUS, variables: { jobId } })) {
        expect(result.errors).toBeUndefined();
        statuses.push((result.data as any).appJob.status);
      }
      expect(statuses.at(-1)).toMatch(/ACTIVE|FAILED/);
    } finally {
      await ws.dispose();
    }
  });

  it('graphql-sse: the token as a header, the stream completes at a terminal state', async () => {
    const sse = createSseClient({ url: endpoint(), headers: AUTH });
    try {
      const jobId = await startJob('sse-default-app');
      const statuses: string[] = [];
      for await (const result of sse.iterate({ query: JOB_STATUS, variables: { jobId } })) {
        expect(result.errors).toBeUndefined();
        statuses.push((result.data as any).appJob.status);
      }
      expect(statuses.at(-1)).toMatch(/ACTIVE|FAILED/);
    } finally {
      sse.dispose();
    }
  });
});
