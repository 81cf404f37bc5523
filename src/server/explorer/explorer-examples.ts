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
# (secret values are write-only). Follow a job live with the appJob subscription.
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

/** The tabs, in order: certificates first (it opens on load). */
export const EXPLORER_TABS: readonly ExplorerTab[] = [
  { query: certificates },
  { query: hosting },
  { query: commerce },
];
