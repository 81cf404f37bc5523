/**
 * Typed calls to the certificate API (certificate document). Every call goes through the upstream
 * client; nothing here caches (loaders dedupe per request).
 */
import type { UpstreamClient } from '../upstream/upstream-call.ts';
import { callerOf, type RequestScope } from '../upstream/request-scope.ts';
import { createUpstreamReader } from '../kit/upstream-reader.ts';
import { positiveOffset } from '../kit/offset-cursor.ts';
import { CERTIFICATE_ROUTES } from './certificates.upstream-routes.ts';

export interface ContactDto {
  email?: string;
  jobTitle?: string;
  nameFirst?: string;
  nameLast?: string;
  nameMiddle?: string;
  phone?: string;
  suffix?: string;
}

export interface OrganizationDto {
  address?: Record<string, string>;
  assumedName?: string;
  jurisdictionOfIncorporation?: Record<string, string>;
  name?: string;
  phone?: string;
  registrationAgent?: string;
  registrationNumber?: string;
}

/** Item of `GET /v2/customers/{customerId}/certificates`. */
export interface CertificateSummaryDto {
  certificateId: string;
  commonName?: string;
  period?: number;
  type?: string;
  status?: string;
  createdAt?: string;
  completedAt?: string;
  validEndAt?: string;
  validStartAt?: string;
  revokedAt?: string;
  renewalAvailable?: boolean;
  serialNumber?: string;
  slotSize?: string;
  subjectAlternativeNames?: string[];
}

/** `GET /v2/customers/{customerId}/certificates/{certificateId}`. */
export interface CertificateDetailDto extends CertificateSummaryDto {
  serialNumberHex?: string;
  contact?: ContactDto;
  organization?: OrganizationDto;
  csr?: string;
  rootType?: string;
  deniedReason?: string;
  progress?: number;
}

/** Item of `GET /v2/certificates?entitlementId` (the complete record). */
export interface EntitlementCertificateDto {
  certificateId: string;
  commonName?: string;
  contact?: ContactDto;
  createdAt?: string;
  deniedReason?: string;
  organization?: OrganizationDto;
  period?: number;
  productType?: string;
  progress?: number;
  revokedAt?: string;
  rootType?: string;
  serialNumber?: string;
  serialNumberHex?: string;
  slotSize?: string;
  status?: string;
  subjectAlternativeNames?: { status?: string; subjectAlternativeName: string }[];
  validStart?: string;
  validEnd?: string;
}

export interface CustomerCertificatePageDto {
  certificates: CertificateSummaryDto[];
  pagination: { first?: string; previous?: string; next?: string; last?: string; total?: number };
}

export interface DomainVerificationDto {
  domain: string;
  domainEntityId?: number;
  dceToken?: string;
  status?: string;
  createdAt?: string;
  modifiedAt?: string;
  type?: string;
  usage?: string;
  certificateAuthorityAuthorization?: {
    status?: string;
    queryPaths?: string[];
    recommendations?: string[];
    completedAt?: string;
  };
}

export interface AcmeBindingDto {
  directoryUrl: string;
  keyId: string;
  hmacKey: string;
}

export interface DownloadDto {
  pems: { certificate: string; cross?: string; intermediate?: string; root?: string };
  serialNumber?: string;
}

export type SubscriptionSearchItemDto = Record<string, unknown>;

export interface SubscriptionSearchDto {
  currentPage?: string;
  data: SubscriptionSearchItemDto[];
  pageSize?: number;
  total?: number;
}

export interface SubscriptionDetailDto extends SubscriptionSearchDto {
  allowedDomains?: string[];
  domain?: string;
  guid: string;
  maxDomains?: number;
  subscriptionStartDate?: string;
  subscriptionEndDate?: string;
  subscriptionStatus?: string;
}

export interface SubscriptionQuery {
  page: number;
  pageSize: number;
  domain?: string;
  status?: string;
  type?: string;
  validation?: string;
}

export interface OrderResultDto {
  certificateId?: string;
  subscriptionId?: string;
  subscriptionCreatedForOrder?: boolean;
}

export type CertificatesApi = ReturnType<typeof createCertificatesApi>;

export function createCertificatesApi(upstream: UpstreamClient, scope: RequestScope) {
  const get = createUpstreamReader(upstream, scope);

  return {
    certificatesByEntitlement: (entitlementId: string, latest: boolean) =>
      get<EntitlementCertificateDto[]>(
        CERTIFICATE_ROUTES.entitlement,
        {},
        { query: { entitlementId, latest: String(latest) } },
      ),

    download: (entitlementId: string) =>
      get<DownloadDto>(CERTIFICATE_ROUTES.download, {}, { query: { entitlementId } }),

    /** The page of `limit` certificates from 0-based position `start` (no `offset` when 0). */
    customerCertificates: (customerId: string, start: number, limit: number) =>
      get<CustomerCertificatePageDto>(
        CERTIFICATE_ROUTES.customerCertificates,
        { customerId },
        { query: { offset: positiveOffset(start), limit } },
      ),

    customerCertificate: (customerId: string, certificateId: string) =>
      get<CertificateDetailDto>(CERTIFICATE_ROUTES.customerCertificate, {
        customerId,
        certificateId,
      }),

    domainVerifications: (customerId: string, certificateId: string) =>
      get<DomainVerificationDto[]>(CERTIFICATE_ROUTES.domainVerifications, {
        customerId,
        certificateId,
      }),

    domainVerification: (customerId: string, certificateId: string, domain: string) =>
      get<DomainVerificationDto>(CERTIFICATE_ROUTES.domainVerification, {
        customerId,
        certificateId,
        domain,
      }),

    acmeExternalAccountBinding: (customerId: string) =>
      get<AcmeBindingDto>(CERTIFICATE_ROUTES.acmeBinding, {
        customerId,
      }),

    searchSubscriptions: (query: SubscriptionQuery) =>
      get<SubscriptionSearchDto>(
        CERTIFICATE_ROUTES.subscriptionSearch,
        {},
        { query: { ...query } },
      ),

    subscription: (guid: string, query: SubscriptionQuery) =>
      get<SubscriptionDetailDto>(
        CERTIFICATE_ROUTES.subscription,
        { guid },
        { query: { ...query } },
      ),

    order: async (body: Record<string, unknown>, marketId: string | undefined) =>
      (
        await upstream.request<OrderResultDto>({
          method: 'POST',
          route: CERTIFICATE_ROUTES.entitlement,
          body,
          ...(marketId ? { headers: { 'x-market-id': marketId } } : {}),
          ...callerOf(scope),
        })
      ).data,

    reissue: async (certificateId: string, body: Record<string, unknown>) => {
      await upstream.request<undefined>({
        method: 'POST',
        route: CERTIFICATE_ROUTES.reissue,
        params: { certificateId },
        body,
        ...callerOf(scope),
      });
    },
  };
}
