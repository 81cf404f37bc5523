/** Upstream certificate records → the graph's one `Certificate` shape. */
import { X509Certificate } from 'node:crypto';
import { openEnum } from '../kit/open-enum.ts';
import type {
  CertificateDetailDto,
  CertificateSummaryDto,
  ContactDto,
  DomainVerificationDto,
  DownloadDto,
  EntitlementCertificateDto,
  OrganizationDto,
} from './certificates.api.ts';

/** The fields of a certificate the gateway knows, whichever upstream record they came from. */
export interface CertificateFields {
  certificateId: string;
  commonName?: string;
  status?: string;
  productType?: string;
  period?: number;
  slotSize?: string;
  serialNumber?: string;
  serialNumberHex?: string;
  createdAt?: string;
  completedAt?: string;
  validStart?: string;
  validEnd?: string;
  revokedAt?: string;
  renewalAvailable?: boolean;
  subjectAlternativeNames?: string[];
  csr?: string;
  contact?: ContactDto;
  organization?: OrganizationDto;
  rootType?: string;
  deniedReason?: string;
  progress?: number;
}

/** Where a certificate can be fetched again (and what its global id encodes). */
export type CertificateOrigin =
  { kind: 'customer'; customerId: string } | { kind: 'entitlement'; entitlementId: string };

/** Parent object of `Certificate` resolvers (codegen mapper). */
export interface CertificateParent {
  readonly __typename: 'Certificate';
  origin: CertificateOrigin;
  fields: CertificateFields;
  /** True when `fields` already hold the detail-only fields (no detail load needed). */
  complete: boolean;
}

export type DetailField =
  'csr' | 'contact' | 'organization' | 'rootType' | 'deniedReason' | 'progress' | 'serialNumberHex';

export const CERTIFICATE_STATUSES = [
  'PENDING_ISSUANCE',
  'ISSUED',
  'DENIED',
  'REVOKED',
  'EXPIRED',
] as const;

export const fromSummary = (customerId: string, dto: CertificateSummaryDto): CertificateParent => ({
  __typename: 'Certificate',
  origin: { kind: 'customer', customerId },
  complete: false,
  fields: {
    certificateId: dto.certificateId,
    commonName: dto.commonName,
    status: dto.status,
    productType: dto.type,
    period: dto.period,
    slotSize: dto.slotSize,
    serialNumber: dto.serialNumber,
    createdAt: dto.createdAt,
    completedAt: dto.completedAt,
    validStart: dto.validStartAt,
    validEnd: dto.validEndAt,
    revokedAt: dto.revokedAt,
    renewalAvailable: dto.renewalAvailable,
    subjectAlternativeNames: dto.subjectAlternativeNames,
  },
});

export const fromDetail = (customerId: string, dto: CertificateDetailDto): CertificateParent => {
  const summary = fromSummary(customerId, dto);
  return {
    ...summary,
    complete: true,
    fields: {
      ...summary.fields,
      serialNumberHex: dto.serialNumberHex,
      csr: dto.csr,
      contact: dto.contact,
      organization: dto.organization,
      rootType: dto.rootType,
      deniedReason: dto.deniedReason,
      progress: dto.progress,
    },
  };
};

export const fromEntitlementItem = (
  entitlementId: string,
  dto: EntitlementCertificateDto,
): CertificateParent => ({
  __typename: 'Certificate',
  origin: { kind: 'entitlement', entitlementId },
  complete: true,
  fields: {
    certificateId: dto.certificateId,
    commonName: dto.commonName,
    status: dto.status,
    productType: dto.productType,
    period: dto.period,
    slotSize: dto.slotSize,
    serialNumber: dto.serialNumber,
    serialNumberHex: dto.serialNumberHex,
    createdAt: dto.createdAt,
    validStart: dto.validStart,
    validEnd: dto.validEnd,
    revokedAt: dto.revokedAt,
    subjectAlternativeNames: dto.subjectAlternativeNames?.map((san) => san.subjectAlternativeName),
    contact: dto.contact,
    organization: dto.organization,
    rootType: dto.rootType,
    deniedReason: dto.deniedReason,
    progress: dto.progress,
  },
});

export const certificateStatus = (raw: string | undefined) => openEnum(raw, CERTIFICATE_STATUSES);

export const mapDomainVerification = (dto: DomainVerificationDto) => ({
  domain: dto.domain,
  domainEntityId: dto.domainEntityId ?? null,
  dceToken: dto.dceToken ?? null,
  status: openEnum(dto.status, ['PENDING', 'COMPLETED', 'FAILED'] as const),
  statusRaw: dto.status ?? null,
  type: openEnum(dto.type, ['DOMAIN_CONTROL_EMAIL', 'DNS_TXT', 'HTTP_FILE'] as const),
  typeRaw: dto.type ?? null,
  usage: dto.usage ?? null,
  createdAt: dto.createdAt ?? null,
  modifiedAt: dto.modifiedAt ?? null,
  certificateAuthorityAuthorization: dto.certificateAuthorityAuthorization
    ? {
        status: dto.certificateAuthorityAuthorization.status ?? null,
        queryPaths: dto.certificateAuthorityAuthorization.queryPaths ?? [],
        recommendations: dto.certificateAuthorityAuthorization.recommendations ?? [],
        completedAt: dto.certificateAuthorityAuthorization.completedAt ?? null,
      }
    : null,
});

/** The PEM chain plus what the leaf says about itself, parsed with node:crypto. */
export function mapBundle(dto: DownloadDto) {
  const leaf = new X509Certificate(dto.pems.certificate);
  const sans = (leaf.subjectAltName ?? '')
    .split(/,\s*/)
    .filter((entry) => entry.startsWith('DNS:'))
    .map((entry) => entry.slice(4));
  return {
    pems: {
      certificate: dto.pems.certificate,
      intermediate: dto.pems.intermediate ?? null,
      cross: dto.pems.cross ?? null,
      root: dto.pems.root ?? null,
    },
    serialNumber: dto.serialNumber ?? BigInt(`0x${leaf.serialNumber}`).toString(10),
    notBefore: new Date(leaf.validFrom).toISOString(),
    notAfter: new Date(leaf.validTo).toISOString(),
    fingerprintSha256: leaf.fingerprint256,
    issuer: leaf.issuer.split('\n').join(', '),
    subject: leaf.subject.split('\n').join(', '),
    subjectAlternativeNames: sans,
  };
}

/** Parent of `CertificateCustomer`: only the id; every field loads lazily. */
export interface CertificateCustomerParent {
  customerId: string;
}
