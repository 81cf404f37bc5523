/**
 * What each certificates field costs in upstream calls, at most (`kit/call-bounds.ts`, docs/budget.md
 * § Certificates). Read against the resolvers (certificates.resolvers.ts,
 * certificate-mutations.resolvers.ts), the loaders (certificates.loaders.ts: one call per distinct
 * key per request, no batch endpoint) and the api (certificates.api.ts: every function is ONE call,
 * no paging loop). Counts are logical calls: the upstream client's retries are not counted.
 */
import {
  FREE,
  ONE_CALL,
  intArg,
  type CallBoundDeclarations,
  type FieldArgs,
} from '../kit/call-bounds.ts';

/**
 * Page sizes (certificates.resolvers.ts SEARCH_PAGE / CUSTOMER_PAGE): neither document shows a
 * maximum, and Weft refuses `first` above 100 before any call. An absent `first` counts as 100, not
 * as the default execution applies (15 for the search, the document's; 20 for the customer list,
 * Weft's): the bound cannot tell an omitted argument from a variable `npm run cost` does not know
 * (docs/budget.md), and must hold for both.
 */
const MAX_FIRST = 100;

/** `first`, else the maximum; above the maximum the resolver refuses before calling (0 items). */
const firstOf = (args: FieldArgs): number => {
  const first = intArg(args, 'first', MAX_FIRST);
  return first > MAX_FIRST ? 0 : first;
};

/**
 * A field answered by the certificate's detail (`GET …/certificates/{certificateId}`) through the
 * detail loader: at most one call per certificate (per customer and id, per request). Free on a
 * complete parent (from `certificate(certificateId:)`, an entitlement or `node`), which this format
 * cannot tell apart: counted once per parent and per detail field selected (the loader shares one
 * call between a parent's detail fields, so two detail fields on a list count twice what it makes).
 */
/** The detail loads once per certificate, whichever of its fields ask (and none after a read of one). */
export const CERTIFICATE_DETAIL = 'certificate-detail';
const DETAIL = { calls: 1, group: CERTIFICATE_DETAIL } as const;

export const CERTIFICATES_CALL_BOUNDS: CallBoundDeclarations = {
  // --- Query -------------------------------------------------------------------------------------
  /**
   * `GET /v2/certificates?entitlementId` through the entitlement loader: one call. Its items are
   * declared 0 (not "how many certificates": the document shows no maximum and the gateway does not
   * cap the list, so no size would be a bound). What `items` sizes is the parents below whose fields
   * call, and these have none: an entitlement record is complete (detail fields read it) and has no
   * customer (`domainVerifications`/`domainVerification` refuse before calling). The integration
   * test `demand/certificates-bounds` selects every calling field on two such certificates and
   * fails if one starts calling.
   */
  'Query.certificatesByEntitlement': { calls: 1, items: 0 },
  /** `GET /v2/certificates/download`: one call, no loader (each alias calls). */
  'Query.certificateBundle': ONE_CALL,
  /** No call by itself: its fields load lazily. */
  'Query.certificateCustomer': FREE,
  /**
   * `GET /v2/certificates/subscriptions/search`: ONE call for the page that covers the window
   * (`pageCovering`), no loader. Items: the window is sliced to `first` (absent: 100).
   */
  'Query.certificateSubscriptions': { calls: 1, items: firstOf },
  /** `GET /v2/certificates/subscription/{guid}` (page 1 of 15) through the subscription loader. */
  'Query.certificateSubscription': ONE_CALL,

  // --- Mutation ----------------------------------------------------------------------------------
  /** `POST /v2/certificates`: one write, after the input checks (refused input: no call). */
  'Mutation.orderCertificate': ONE_CALL,
  /** `POST /v2/certificates/{certificateId}/reissue`: one write (no read-back). */
  'Mutation.reissueCertificate': ONE_CALL,

  // --- CertificateCustomer -----------------------------------------------------------------------
  'CertificateCustomer.customerId': FREE,
  /**
   * `GET /v2/customers/{customerId}/certificates?offset&limit=first`: one call per customer and per
   * selection (no loader). Items: `first` (absent: 100); the upstream honours `limit`
   * (the resolver does not slice the page: this trusts the document's `limit`).
   */
  'CertificateCustomer.certificates': { calls: 1, items: firstOf },
  /** The detail through the detail loader: one call per customer and certificate id. */
  'CertificateCustomer.certificate': { calls: 1, provides: CERTIFICATE_DETAIL },
  /** `GET …/acme/externalAccountBinding`: never cached, no loader (the hmacKey is a secret). */
  'CertificateCustomer.acmeExternalAccountBinding': ONE_CALL,

  // --- Certificate -------------------------------------------------------------------------------
  // Summary fields: read from the parent.
  'Certificate.id': FREE,
  'Certificate.certificateId': FREE,
  'Certificate.customerId': FREE,
  'Certificate.commonName': FREE,
  'Certificate.status': FREE,
  'Certificate.statusRaw': FREE,
  'Certificate.productType': FREE,
  'Certificate.period': FREE,
  'Certificate.slotSize': FREE,
  'Certificate.serialNumber': FREE,
  'Certificate.createdAt': FREE,
  'Certificate.completedAt': FREE,
  'Certificate.validStart': FREE,
  'Certificate.validEnd': FREE,
  'Certificate.revokedAt': FREE,
  'Certificate.renewalAvailable': FREE,
  'Certificate.subjectAlternativeNames': FREE,
  // Detail fields: the detail loader, once per certificate.
  'Certificate.serialNumberHex': DETAIL,
  'Certificate.csr': DETAIL,
  'Certificate.contact': DETAIL,
  'Certificate.organization': DETAIL,
  'Certificate.rootType': DETAIL,
  'Certificate.deniedReason': DETAIL,
  'Certificate.progress': DETAIL,
  /**
   * `GET …/{certificateId}/domainVerifications` through its loader: one call per certificate. The
   * list's length (the certificate's names) is not shown; nothing below it calls, so it needs none.
   */
  'Certificate.domainVerifications': ONE_CALL,
  /** `GET …/domainVerifications/{domain}`: one call per certificate and per selection (no loader). */
  'Certificate.domainVerification': ONE_CALL,

  // --- CertificateSubscription -------------------------------------------------------------------
  'CertificateSubscription.guid': FREE,
  'CertificateSubscription.domain': FREE,
  'CertificateSubscription.allowedDomains': FREE,
  'CertificateSubscription.maxDomains': FREE,
  'CertificateSubscription.subscriptionStartDate': FREE,
  'CertificateSubscription.subscriptionEndDate': FREE,
  'CertificateSubscription.status': FREE,
  /**
   * The subscription again with this window's query, through the subscription loader: one call at
   * most (none when the query is the parent's own, page 1 of 15 unfiltered: the loader shares it).
   */
  'CertificateSubscription.certificates': { calls: 1, items: firstOf },

  // --- CertificateSubscriptionMatch: read from the search's record --------------------------------
  'CertificateSubscriptionMatch.guid': FREE,
  'CertificateSubscriptionMatch.certificateId': FREE,
  'CertificateSubscriptionMatch.commonName': FREE,
  'CertificateSubscriptionMatch.domains': FREE,
  'CertificateSubscriptionMatch.status': FREE,
  'CertificateSubscriptionMatch.type': FREE,
  'CertificateSubscriptionMatch.validation': FREE,
  'CertificateSubscriptionMatch.productType': FREE,
  'CertificateSubscriptionMatch.validStart': FREE,
  'CertificateSubscriptionMatch.validEnd': FREE,
  'CertificateSubscriptionMatch.raw': FREE,
};
