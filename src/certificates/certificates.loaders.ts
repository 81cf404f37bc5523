/** Per-request loaders for certificate reads: each record is fetched at most once per request. */
import { createKeyedLoader } from '../kit/keyed-loader.ts';
import type { CertificatesApi, SubscriptionQuery } from './certificates.api.ts';

interface CertificateKey {
  customerId: string;
  certificateId: string;
}

const certificateKey = (key: CertificateKey) => `${key.customerId}\u0000${key.certificateId}`;

export type CertificateLoaders = ReturnType<typeof createCertificateLoaders>;

export function createCertificateLoaders(api: CertificatesApi) {
  return {
    detail: createKeyedLoader(
      (key: CertificateKey) => api.customerCertificate(key.customerId, key.certificateId),
      certificateKey,
    ),
    domainVerifications: createKeyedLoader(
      (key: CertificateKey) => api.domainVerifications(key.customerId, key.certificateId),
      certificateKey,
    ),
    subscription: createKeyedLoader(
      (key: { guid: string; query: SubscriptionQuery }) => api.subscription(key.guid, key.query),
      (key) => JSON.stringify([key.guid, key.query]),
    ),
    entitlement: createKeyedLoader(
      (key: { entitlementId: string; latest: boolean }) =>
        api.certificatesByEntitlement(key.entitlementId, key.latest),
      (key) => `${key.entitlementId}\u0000${key.latest}`,
    ),
  };
}
