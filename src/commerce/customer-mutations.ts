/**
 * `createStoreCustomer` and `updateStoreCustomer`. The customer body is the upstream's own (its
 * shape is not documented), passed as JSON. The gateway checks what it can before calling (the store
 * id, an object body); upstream 400/409/422 become `userErrors` whose paths point into
 * `input.customer` (the upstream's JSONPaths are relative to the body).
 */
import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError } from '../errors/gateway-errors.ts';
import { toUserErrors, type UserError } from '../errors/graphql-errors.ts';
import type { MutationResolvers } from '../generated/resolvers.ts';
import type { GatewayContext } from '../kit/request-context.ts';
import type { CommerceRecord } from './commerce.api.ts';
import { checkTextId } from './commerce-ids.ts';
import { checkStoreId } from '../kit/id-checks.ts';
import { toStoreCustomer, type StoreCustomerParent } from './commerce.mappers.ts';
import { commerceOf } from './commerce.request.ts';
import { withOutcomeHint, type CustomerWrite } from './customer-write-outcome.ts';

function customerBody(value: unknown): CommerceRecord {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new GatewayError(ErrorCode.BAD_USER_INPUT, '`customer` must be a JSON object', {
      field: 'customer',
    });
  }
  return value as CommerceRecord;
}

/**
 * Runs a customer write: input errors (rooted at `input`) and upstream 400/409/422 (rooted at
 * `input.customer`) become `userErrors`; anything else (403, 404, 5xx…) stays a GraphQL error, with
 * `outcome: "UNKNOWN"` and `verifyWith` when the write may have been applied.
 */
async function customerWrite(
  ctx: GatewayContext,
  name: CustomerWrite,
  prepare: () => { storeId: string; write: () => Promise<CommerceRecord> },
): Promise<{ customer: StoreCustomerParent | null; userErrors: UserError[] }> {
  let prepared: ReturnType<typeof prepare>;
  try {
    prepared = prepare();
  } catch (error) {
    return { customer: null, userErrors: toUserErrors(error, ['input']) };
  }
  try {
    const record = await prepared.write();
    const customer = toStoreCustomer(record, prepared.storeId);
    // Later reads of this customer in the same request see the written record.
    if (customer) {
      commerceOf(ctx)
        .loaders.customer.clear({ storeId: prepared.storeId, customerId: customer.customerId })
        .prime({ storeId: prepared.storeId, customerId: customer.customerId }, record);
    }
    return { customer, userErrors: [] };
  } catch (error) {
    return {
      customer: null,
      userErrors: toUserErrors(withOutcomeHint(error, name), ['input', 'customer']),
    };
  }
}

/** `Mutation.createStoreCustomer` and `Mutation.updateStoreCustomer`. */
export const storeCustomerMutations: MutationResolvers = {
  createStoreCustomer: (_parent, { input }, ctx) =>
    customerWrite(ctx, 'createStoreCustomer', () => {
      const storeId = checkStoreId(input.storeId);
      const body = customerBody(input.customer);
      return { storeId, write: () => commerceOf(ctx).api.createCustomer(storeId, body) };
    }),

  updateStoreCustomer: (_parent, { input }, ctx) =>
    customerWrite(ctx, 'updateStoreCustomer', () => {
      const storeId = checkStoreId(input.storeId);
      const customerId = checkTextId(input.customerId, 'customerId');
      const body = customerBody(input.customer);
      return {
        storeId,
        write: () => commerceOf(ctx).api.updateCustomer(storeId, customerId, body),
      };
    }),
};
