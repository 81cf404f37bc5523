/**
 * Certificate mutations. Each takes one `input`, checks what it can before any upstream call, sends
 * one write, and reports the upstream's 400/409/422 and the gateway's own input problems as
 * `userErrors`; a write that may have been applied fails with `outcome: "UNKNOWN"` and `verifyWith`
 * (certificate-write-outcome.ts).
 */
import { toUserErrors } from '../errors/graphql-errors.ts';
import type { MutationResolvers } from '../generated/resolvers.ts';
import { requireId } from '../kit/id-checks.ts';
import { buildOrderBody, buildReissueBody } from './certificate-orders.ts';
import { withOutcomeHint } from './certificate-write-outcome.ts';
import { certificatesOf } from './certificates.request.ts';

export const certificateMutationResolvers: MutationResolvers = {
  orderCertificate: async (_parent, { input }, ctx) => {
    try {
      const body = buildOrderBody(input);
      const result = await certificatesOf(ctx).api.order(body, input.marketId ?? undefined);
      return {
        certificateId: result.certificateId ?? null,
        subscriptionId: result.subscriptionId ?? null,
        subscriptionCreatedForOrder: result.subscriptionCreatedForOrder ?? null,
        userErrors: [],
      };
    } catch (error) {
      return {
        certificateId: null,
        subscriptionId: null,
        userErrors: toUserErrors(withOutcomeHint(error, 'orderCertificate')),
      };
    }
  },
  reissueCertificate: async (_parent, { input }, ctx) => {
    try {
      const certificateId = requireId(input.certificateId, 'certificateId');
      await certificatesOf(ctx).api.reissue(certificateId, buildReissueBody(input));
      return { certificateId, userErrors: [] };
    } catch (error) {
      return {
        certificateId: null,
        userErrors: toUserErrors(withOutcomeHint(error, 'reissueCertificate')),
      };
    }
  },
};
