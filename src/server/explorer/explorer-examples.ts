/**
 * The saved example operations the explorer opens with, one tab each, written against the names of
 * the graph's client contract. The ids are the embedded simulator's fixtures
 * (as variable defaults, so each tab runs as it is, with an empty variables editor), so
 * `npm start` + the explorer + `demo-token` shows data at once.
 */
import type { ExplorerTab } from './explorer-config.ts';

const certificates = `# Certificates: a customer's certificates (Relay paging over the upstream's offset/limit),
# the detail fields load on demand; plus an entitlement's issued bundle.
# Set your token in the Headers tab below: {"Authorization": "Bearer <token>"}.
query Certificates($customerId: ID! = "demo-customer", $first: Int = 5, $after: String) {
  certificateCustomer(customerId: $customerId) {
    customerId
    certificates(first: $first, after: $after) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges {
        node {
          certificateId
          commonName
          status
          validEnd
          subjectAlternativeNames
          domainVerifications { domain status type }
        }
      }
    }
  }
  certificateBundle(entitlementId: "demo-entitlement") {
    notBefore
    notAfter
    fingerprintSha256
    issuer
    subject
  }
  viewer { rateLimit { limit remaining resetSec writeReserve } }
}
`;

const hosting = `# Hosting: your Node.js apps with their runtime status, recent deployments and secret names
# (secret values are write-only). Follow a job live with the appJob subscription (the AppJob tab).
query Hosting {
  apps {
    appId
    name
    status
    runtimeStatus { appStatus }
    deployments(limit: 3) {
      totalCount
      hasMore
      deployments { deploymentId status errorMessage }
    }
    secrets { shared { name systemManaged } }
  }
}
`;

const commerce = `# Commerce: a store with its channels, customers and transactions (cards show brand and
# last four only). Catalog and tax fields take storeId, or the X-Store-Id header.
query Commerce($storeId: ID! = "11111111-1111-4111-8111-111111111111") {
  store(storeId: $storeId) {
    storeId
    channels { channelId }
    customers(first: 5) {
      edges { node { customerId raw } }
      pageInfo { hasNextPage endCursor }
    }
    transactions(first: 5) {
      totalCount
      edges {
        node {
          transactionId
          status
          amount { formatted }
          card { brand last4 expMonth expYear entryMethod }
          createdAt
        }
      }
    }
  }
  channels(storeId: $storeId) { channelId raw }
}
`;

const dashboard = `# Dashboard: the fast part first. The apps and their status arrive at once; each app's recent
# deployments (one more upstream call per app) arrive in a later part, marked @defer. The response
# shows the parts merged as they come; "As it arrived" below it lists each part and when it came.
query Dashboard {
  apps {
    appId
    name
    status
    runtimeStatus { appStatus }
    ... @defer(label: "deployments") {
      deployments(limit: 3) {
        totalCount
        deployments { deploymentId status }
      }
    }
  }
  viewer { rateLimit { limit remaining } }
}
`;

const appJob = `# Hosting, live: an app's creation job as it changes (PENDING, then ACTIVE or FAILED); the
# gateway polls the upstream and sends each change (GraphQL over SSE, with the Headers tab).
# Start a job in a new tab with
#   mutation { createApp(input: { name: "my-app" }) { job { jobId } userErrors { message } } }
# then put its id in the variables: {"jobId": "job-0004"}. The stop button ends the subscription.
subscription AppJob($jobId: ID! = "job-0001") {
  appJob(jobId: $jobId) {
    jobId
    status
    app { appId name }
  }
}
`;

/** A token of the embedded simulator and what it may see. */
export interface DemoToken {
  readonly token: string;
  readonly gives: string;
}

/**
 * The embedded simulator's tokens (its accounts, docs/simulator.md), named on the explorer page only
 * when the upstream is that simulator: against a real upstream they are no credentials at all.
 */
export const DEMO_TOKENS: readonly DemoToken[] = [
  { token: 'demo-token', gives: 'account A, every scope: the examples show its data' },
  { token: 'demo-readonly', gives: 'account A, read scopes only' },
  { token: 'demo-other', gives: "account B, every scope, none of account A's data" },
];

/**
 * The examples answered by one POST (a `@defer` one, whole, to a client that reads no parts), in
 * order: certificates first (it opens on load).
 */
export const EXPLORER_TABS: readonly ExplorerTab[] = [
  { query: certificates },
  { query: hosting },
  { query: commerce },
  { query: dashboard },
];

/** The subscription examples: answered over SSE or graphql-ws, never as one JSON answer. */
export const EXPLORER_SUBSCRIPTION_TABS: readonly ExplorerTab[] = [{ query: appJob }];

/** Every tab the explorer opens with, in order. */
export const EXPLORER_ALL_TABS: readonly ExplorerTab[] = [
  ...EXPLORER_TABS,
  ...EXPLORER_SUBSCRIPTION_TABS,
];
