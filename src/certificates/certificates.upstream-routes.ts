/**
 * The certificate routes this domain calls, as the upstream stack must treat them (cache, circuit).
 *
 * Never cached: the ACME external account binding (it carries the `hmacKey`, a secret). A
 * certificate's detail is cached long once it is settled; any other state is what a client polls
 * after an order or a reissue, so it is read again at most every 15 s.
 *
 * Scopes: the certificate document shows none ("Authentication scheme, credentials and scopes for
 * these operations: not shown"). Weft's decision, which the simulator enforces too, follows the
 * pattern of the documents that show theirs: `ssl.certificates:read` for every GET,
 * `ssl.certificates:create` for an order, `ssl.certificates:update` for a reissue.
 */
import {
  cacheFor,
  invalidates,
  neverCache,
  pathParam,
  queryParam,
  shorterWhileMoving,
  type Tagger,
} from '../upstream/route-policy.ts';
import { inCircuit, type UpstreamRoute } from '../upstream/upstream-routes.ts';

const breaker = 'certificates';
export const CERTIFICATE_SCOPES = {
  read: 'ssl.certificates:read',
  order: 'ssl.certificates:create',
  reissue: 'ssl.certificates:update',
} as const;
/** Any certificate write may change every list, search and entitlement answer. */
const CERTIFICATES = 'certificates';
const certificateTags: Tagger = (call) => [`certificate:${pathParam(call, 'certificateId')}`];
const entitlementTags: Tagger = (call) => [
  CERTIFICATES,
  `entitlement:${queryParam(call, 'entitlementId')}`,
];

/** States that no longer move on their own. */
const SETTLED_CERTIFICATE = new Set(['ISSUED', 'EXPIRED', 'REVOKED', 'DENIED']);
/**
 * How often a certificate that still moves (pending issuance, pending reissue…) is read again,
 * however often it is viewed: a schedule, not a read per view. Issuance takes minutes; Weft's own
 * order and reissue invalidate the entry, so the next read after them is fresh.
 */
const PENDING_CERTIFICATE_POLL_SEC = 15;
const pendingShort = shorterWhileMoving(
  (data) => !SETTLED_CERTIFICATE.has(String((data as { status?: unknown } | null)?.status)),
  PENDING_CERTIFICATE_POLL_SEC,
);

const CUSTOMER_CERTIFICATE = '/v2/customers/{customerId}/certificates/{certificateId}';

/** Route templates (they name the calls in errors, metrics and the simulator's stats). */
export const CERTIFICATE_ROUTES = {
  entitlement: '/v2/certificates',
  reissue: '/v2/certificates/{certificateId}/reissue',
  download: '/v2/certificates/download',
  customerCertificates: '/v2/customers/{customerId}/certificates',
  customerCertificate: CUSTOMER_CERTIFICATE,
  domainVerifications: `${CUSTOMER_CERTIFICATE}/domainVerifications`,
  domainVerification: `${CUSTOMER_CERTIFICATE}/domainVerifications/{domain}`,
  acmeBinding: '/v2/customers/{customerId}/certificates/acme/externalAccountBinding',
  subscriptionSearch: '/v2/certificates/subscriptions/search',
  subscription: '/v2/certificates/subscription/{guid}',
} as const;
const R = CERTIFICATE_ROUTES;

export const CERTIFICATE_UPSTREAM_ROUTES: readonly UpstreamRoute[] = inCircuit(breaker, [
  {
    method: 'GET',
    scope: CERTIFICATE_SCOPES.read,
    route: R.entitlement,
    cache: cacheFor({ kind: 'certificate-entitlement', ttlSec: 60, tags: entitlementTags }),
  },
  {
    method: 'POST',
    route: R.entitlement,
    scope: CERTIFICATE_SCOPES.order,
    cache: invalidates(() => [CERTIFICATES]),
  },
  {
    method: 'POST',
    route: R.reissue,
    scope: CERTIFICATE_SCOPES.reissue,
    cache: invalidates((call) => [CERTIFICATES, ...certificateTags(call)]),
  },
  {
    method: 'GET',
    scope: CERTIFICATE_SCOPES.read,
    route: R.download,
    cache: cacheFor({ kind: 'certificate-bundle', ttlSec: 3600, tags: entitlementTags }),
  },
  {
    method: 'GET',
    scope: CERTIFICATE_SCOPES.read,
    route: R.customerCertificates,
    cache: cacheFor({ kind: 'certificate-list', ttlSec: 60, tags: () => [CERTIFICATES] }),
  },
  {
    method: 'GET',
    scope: CERTIFICATE_SCOPES.read,
    route: R.customerCertificate,
    cache: cacheFor({
      kind: 'certificate-detail',
      ttlSec: 3600,
      ttlOf: pendingShort,
      tags: certificateTags,
    }),
  },
  {
    method: 'GET',
    scope: CERTIFICATE_SCOPES.read,
    route: R.domainVerifications,
    cache: cacheFor({ kind: 'domain-verification', ttlSec: 30, tags: certificateTags }),
  },
  {
    method: 'GET',
    scope: CERTIFICATE_SCOPES.read,
    route: R.domainVerification,
    cache: cacheFor({ kind: 'domain-verification', ttlSec: 30, tags: certificateTags }),
  },
  {
    method: 'GET',
    scope: CERTIFICATE_SCOPES.read,
    route: R.acmeBinding,
    cache: neverCache('carries the ACME hmacKey (a secret)'),
  },
  {
    method: 'GET',
    scope: CERTIFICATE_SCOPES.read,
    route: R.subscriptionSearch,
    cache: cacheFor({ kind: 'certificate-subscription', ttlSec: 120, tags: () => [CERTIFICATES] }),
  },
  {
    method: 'GET',
    scope: CERTIFICATE_SCOPES.read,
    route: R.subscription,
    cache: cacheFor({ kind: 'certificate-subscription', ttlSec: 120, tags: () => [CERTIFICATES] }),
  },
]);
