/**
 * The upstream routes each certificates field may call (`kit/field-routes.ts`), read against
 * certificates.resolvers.ts, certificate-mutations.resolvers.ts and certificates.api.ts (each api
 * function is one route). Fields answered from their parent call nothing and are not listed.
 */
import { GET, POST, type FieldRouteDeclarations } from '../kit/field-routes.ts';
import { CERTIFICATE_ROUTES as R } from './certificates.upstream-routes.ts';

/** Fields read from a certificate's detail (its loader). */
const DETAIL = [GET(R.customerCertificate)];

export const CERTIFICATES_FIELD_ROUTES: FieldRouteDeclarations = {
  'Query.certificatesByEntitlement': [GET(R.entitlement)],
  'Query.certificateBundle': [GET(R.download)],
  'Query.certificateSubscriptions': [GET(R.subscriptionSearch)],
  'Query.certificateSubscription': [GET(R.subscription)],
  'Mutation.orderCertificate': [POST(R.entitlement)],
  'Mutation.reissueCertificate': [POST(R.reissue)],
  'CertificateCustomer.certificates': [GET(R.customerCertificates)],
  'CertificateCustomer.certificate': DETAIL,
  'CertificateCustomer.acmeExternalAccountBinding': [GET(R.acmeBinding)],
  'Certificate.serialNumberHex': DETAIL,
  'Certificate.csr': DETAIL,
  'Certificate.contact': DETAIL,
  'Certificate.organization': DETAIL,
  'Certificate.rootType': DETAIL,
  'Certificate.deniedReason': DETAIL,
  'Certificate.progress': DETAIL,
  'Certificate.domainVerifications': [GET(R.domainVerifications)],
  'Certificate.domainVerification': [GET(R.domainVerification)],
  'CertificateSubscription.certificates': [GET(R.subscription)],
};
