/**
 * The read that tells whether a mutation's write happened, for every mutation whose domain names
 * one: a write cut off by the drain deadline (server/shutdown/) carries it as `verifyWith`, as the
 * domain's own errors of unknown outcome do (kit/write-outcome.ts). Stitched subgraph mutations
 * name none.
 */
import { VERIFY_WITH as CERTIFICATE_READS } from '../certificates/certificate-write-outcome.ts';
import { VERIFY_WITH as CUSTOMER_READS } from '../commerce/customer-write-outcome.ts';
import { VERIFY_WITH as HOSTING_READS } from '../hosting/hosting-write-outcome.ts';

const READS: ReadonlyMap<string, string> = new Map(
  Object.entries({ ...HOSTING_READS, ...CERTIFICATE_READS, ...CUSTOMER_READS }),
);

export const verifyWithOf = (mutationField: string): string | undefined => READS.get(mutationField);
