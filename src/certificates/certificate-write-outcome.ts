/**
 * The read that tells whether each certificate write happened: the `verifyWith` of its errors of
 * unknown outcome (kit/write-outcome.ts). An order lands in the credential's customer's list.
 */
import { withOutcomeHint as hint } from '../kit/write-outcome.ts';

/** Each certificate write → the selection that shows whether it happened. */
export const VERIFY_WITH = {
  orderCertificate:
    'certificateCustomer(customerId:) { certificates { edges { node { certificateId commonName status createdAt } } } }',
  reissueCertificate:
    'certificateCustomer(customerId:) { certificate(certificateId:) { status statusRaw } }',
} as const;

export type CertificateWrite = keyof typeof VERIFY_WITH;

/** An unknown-outcome failure of a certificate write, with the read to check; anything else unchanged. */
export const withOutcomeHint = (error: unknown, write: CertificateWrite): unknown =>
  hint(error, write, VERIFY_WITH[write]);
