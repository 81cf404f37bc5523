/**
 * Resolvers of the certificate part of the graph (schema/certificates.graphql): reads and the object
 * types. Mutations live in certificate-mutations.resolvers.ts, argument checks in
 * certificate-inputs.ts.
 */
import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError } from '../errors/gateway-errors.ts';
import { nullIfNotFound } from '../errors/not-found.ts';
import { encodeGlobalId } from '../kit/global-id.ts';
import { requireId } from '../kit/id-checks.ts';
import { openEnum } from '../kit/open-enum.ts';
import type { GatewayContext } from '../kit/request-context.ts';
import type { CertificateSubscriptionFilter, Resolvers } from '../generated/resolvers.ts';
import { offsetConnection, pageCovering, resolveWindow } from '../kit/offset-cursor.ts';
import type { SubscriptionQuery, SubscriptionSearchDto } from './certificates.api.ts';
import {
  certificateStatus,
  fromDetail,
  fromEntitlementItem,
  fromSummary,
  mapBundle,
  mapDomainVerification,
  type CertificateParent,
  type DetailField,
} from './certificates.mappers.ts';
import { requireGuid, subscriptionQuery, verificationDomain } from './certificate-inputs.ts';
import { certificateMutationResolvers } from './certificate-mutations.resolvers.ts';
import { certificatesOf } from './certificates.request.ts';

/**
 * Page sizes of the search (the document's pageSize default is 15) and of the customer list (no
 * default shown; Weft asks for 20). Neither document shows a maximum; Weft asks for at most 100.
 */
const SEARCH_PAGE = { defaultFirst: 15, maxFirst: 100 } as const;
const CUSTOMER_PAGE = { defaultFirst: 20, maxFirst: 100 } as const;

/** Detail-only fields come from the parent when it is complete, else from the detail loader. */
async function detailField<F extends DetailField>(
  parent: CertificateParent,
  field: F,
  ctx: GatewayContext,
): Promise<NonNullable<CertificateParent['fields'][F]> | null> {
  if (parent.complete || parent.origin.kind !== 'customer') return parent.fields[field] ?? null;
  const detail = await certificatesOf(ctx).loaders.detail.load({
    customerId: parent.origin.customerId,
    certificateId: parent.fields.certificateId,
  });
  return fromDetail(parent.origin.customerId, detail).fields[field] ?? null;
}

const customerOf = (parent: CertificateParent): string => {
  if (parent.origin.kind === 'customer') return parent.origin.customerId;
  throw new GatewayError(
    ErrorCode.BAD_USER_INPUT,
    'Domain verifications need the certificate customer: reach this certificate through certificateCustomer(customerId:)',
  );
};

/** One upstream page that covers the requested window, sliced into a connection. */
async function searchConnection(
  args: {
    filter?: CertificateSubscriptionFilter | null;
    first?: number | null;
    after?: string | null;
  },
  fetchPage: (query: SubscriptionQuery) => Promise<SubscriptionSearchDto>,
) {
  const { start, first } = resolveWindow(args, SEARCH_PAGE);
  const { page, pageSize, skip } = pageCovering(start, first, SEARCH_PAGE.maxFirst);
  const result = await fetchPage(subscriptionQuery(args.filter, page, pageSize));
  const nodes = result.data.slice(skip, skip + first);
  const total = result.total ?? null;
  const hasNextPage =
    total === null ? result.data.length > skip + first : start + nodes.length < total;
  return offsetConnection(nodes, start, hasNextPage, total);
}

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export const certificateResolvers: Resolvers = {
  Query: {
    certificatesByEntitlement: async (_parent, { entitlementId, latest }, ctx) => {
      const items = await certificatesOf(ctx).loaders.entitlement.load({
        entitlementId: requireId(entitlementId, 'entitlementId'),
        latest: latest ?? true,
      });
      return items.map((item) => fromEntitlementItem(entitlementId, item));
    },
    certificateBundle: async (_parent, { entitlementId }, ctx) =>
      mapBundle(await certificatesOf(ctx).api.download(requireId(entitlementId, 'entitlementId'))),
    certificateCustomer: (_parent, { customerId }) => ({
      customerId: requireId(customerId, 'customerId'),
    }),
    certificateSubscriptions: (_parent, args, ctx) =>
      searchConnection(args, (query) => certificatesOf(ctx).api.searchSubscriptions(query)),
    certificateSubscription: (_parent, { guid }, ctx) =>
      nullIfNotFound(
        certificatesOf(ctx).loaders.subscription.load({
          guid: requireGuid(guid),
          query: subscriptionQuery(undefined, 1, SEARCH_PAGE.defaultFirst),
        }),
      ),
  },

  Mutation: certificateMutationResolvers,

  Certificate: {
    id: (parent) =>
      parent.origin.kind === 'customer'
        ? encodeGlobalId('Certificate', 'c', parent.origin.customerId, parent.fields.certificateId)
        : encodeGlobalId(
            'Certificate',
            'e',
            parent.origin.entitlementId,
            parent.fields.certificateId,
          ),
    certificateId: (parent) => parent.fields.certificateId,
    customerId: (parent) => (parent.origin.kind === 'customer' ? parent.origin.customerId : null),
    commonName: (parent) => parent.fields.commonName ?? null,
    status: (parent) => certificateStatus(parent.fields.status),
    statusRaw: (parent) => parent.fields.status ?? null,
    productType: (parent) => parent.fields.productType ?? null,
    period: (parent) => parent.fields.period ?? null,
    slotSize: (parent) => parent.fields.slotSize ?? null,
    serialNumber: (parent) => parent.fields.serialNumber ?? null,
    createdAt: (parent) => parent.fields.createdAt ?? null,
    completedAt: (parent) => parent.fields.completedAt ?? null,
    validStart: (parent) => parent.fields.validStart ?? null,
    validEnd: (parent) => parent.fields.validEnd ?? null,
    revokedAt: (parent) => parent.fields.revokedAt ?? null,
    renewalAvailable: (parent) => parent.fields.renewalAvailable ?? null,
    subjectAlternativeNames: (parent) => parent.fields.subjectAlternativeNames ?? null,
    serialNumberHex: (parent, _args, ctx) => detailField(parent, 'serialNumberHex', ctx),
    csr: (parent, _args, ctx) => detailField(parent, 'csr', ctx),
    contact: (parent, _args, ctx) => detailField(parent, 'contact', ctx),
    organization: (parent, _args, ctx) => detailField(parent, 'organization', ctx),
    rootType: (parent, _args, ctx) => detailField(parent, 'rootType', ctx),
    deniedReason: (parent, _args, ctx) => detailField(parent, 'deniedReason', ctx),
    progress: (parent, _args, ctx) => detailField(parent, 'progress', ctx),
    domainVerifications: async (parent, _args, ctx) => {
      const list = await certificatesOf(ctx).loaders.domainVerifications.load({
        customerId: customerOf(parent),
        certificateId: parent.fields.certificateId,
      });
      return list.map(mapDomainVerification);
    },
    domainVerification: async (parent, args, ctx) => {
      const domain = verificationDomain(args.domain);
      const dto = await nullIfNotFound(
        certificatesOf(ctx).api.domainVerification(
          customerOf(parent),
          parent.fields.certificateId,
          domain,
        ),
      );
      return dto && mapDomainVerification(dto);
    },
  },

  CertificateCustomer: {
    customerId: (parent) => parent.customerId,
    certificates: async (parent, args, ctx) => {
      const { start, first } = resolveWindow(args, CUSTOMER_PAGE);
      // 0-based `start`; the call leaves `offset` out for the first page (positiveOffset).
      const page = await certificatesOf(ctx).api.customerCertificates(
        parent.customerId,
        start,
        first,
      );
      const nodes = page.certificates.map((dto) => fromSummary(parent.customerId, dto));
      const total = page.pagination.total ?? null;
      const hasNextPage =
        total === null ? page.pagination.next !== undefined : start + nodes.length < total;
      return offsetConnection(nodes, start, hasNextPage, total);
    },
    certificate: async (parent, { certificateId }, ctx) => {
      const detail = await nullIfNotFound(
        certificatesOf(ctx).loaders.detail.load({
          customerId: parent.customerId,
          certificateId: requireId(certificateId, 'certificateId'),
        }),
      );
      return detail && fromDetail(parent.customerId, detail);
    },
    // Deliberately not through a loader or cache: the hmacKey is a secret, fetched only when asked for.
    acmeExternalAccountBinding: (parent, _args, ctx) =>
      certificatesOf(ctx).api.acmeExternalAccountBinding(parent.customerId),
  },

  CertificateSubscription: {
    guid: (parent) => parent.guid,
    domain: (parent) => parent.domain ?? null,
    allowedDomains: (parent) => parent.allowedDomains ?? [],
    maxDomains: (parent) => parent.maxDomains ?? null,
    subscriptionStartDate: (parent) => parent.subscriptionStartDate ?? null,
    subscriptionEndDate: (parent) => parent.subscriptionEndDate ?? null,
    status: (parent) => parent.subscriptionStatus ?? null,
    certificates: (parent, args, ctx) =>
      searchConnection(args, (query) =>
        certificatesOf(ctx).loaders.subscription.load({ guid: parent.guid, query }),
      ),
  },

  CertificateSubscriptionMatch: {
    guid: (raw) => str(raw.guid) ?? '',
    certificateId: (raw) => str(raw.certificateId),
    commonName: (raw) => str(raw.commonName),
    domains: (raw) =>
      Array.isArray(raw.domains)
        ? raw.domains.filter((d): d is string => typeof d === 'string')
        : [],
    status: (raw) =>
      openEnum(str(raw.status), ['ACTIVE', 'DENIED', 'EXPIRED', 'PENDING', 'REVOKED'] as const),
    type: (raw) => openEnum(str(raw.type), ['SINGLE', 'UCC', 'WILDCARD'] as const),
    validation: (raw) => openEnum(str(raw.validation), ['DV', 'EV', 'OV'] as const),
    productType: (raw) => str(raw.productType),
    validStart: (raw) => str(raw.validStart),
    validEnd: (raw) => str(raw.validEnd),
    raw: (raw) => raw,
  },
};

/** `node(id:)` for certificates: the global id says where to fetch it again. */
export async function resolveCertificateNode(
  parts: string[],
  ctx: GatewayContext,
): Promise<CertificateParent | null> {
  const [kind, originId, certificateId] = parts;
  if (!originId || !certificateId) return null;
  if (kind === 'c') {
    const detail = await nullIfNotFound(
      certificatesOf(ctx).loaders.detail.load({ customerId: originId, certificateId }),
    );
    return detail && fromDetail(originId, detail);
  }
  if (kind === 'e') {
    const items = await nullIfNotFound(
      certificatesOf(ctx).loaders.entitlement.load({ entitlementId: originId, latest: false }),
    );
    const item = items?.find((candidate) => candidate.certificateId === certificateId);
    return item ? fromEntitlementItem(originId, item) : null;
  }
  return null;
}
