/**
 * The read that tells whether each store-customer write happened: the `verifyWith` of its errors
 * of unknown outcome (kit/write-outcome.ts).
 */
import { withOutcomeHint as hint } from '../kit/write-outcome.ts';

/** Each customer write → the selection that shows whether it happened. */
export const VERIFY_WITH = {
  createStoreCustomer: 'store(storeId:) { customers { edges { node { customerId raw } } } }',
  updateStoreCustomer: 'store(storeId:) { customer(customerId:) { customerId raw } }',
} as const;

export type CustomerWrite = keyof typeof VERIFY_WITH;

/** An unknown-outcome failure of a customer write, with the read to check; anything else unchanged. */
export const withOutcomeHint = (error: unknown, write: CustomerWrite): unknown =>
  hint(error, write, VERIFY_WITH[write]);
