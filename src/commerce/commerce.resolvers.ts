/** Resolvers of the commerce REST part of the graph (schema/commerce.graphql). */
import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError, UpstreamError } from '../errors/gateway-errors.ts';
import { nullIfNotFound } from '../errors/not-found.ts';
import { checkedIdPart, encodeGlobalId } from '../kit/global-id.ts';
import type { Resolvers } from '../generated/resolvers.ts';
import type { GatewayContext } from '../kit/request-context.ts';
import {
  registeredStoreIds,
  toChannel,
  toMoney,
  toStore,
  toStoreCustomer,
  toTransaction,
  type ChannelParent,
  type StoreCustomerParent,
  type StoreParent,
  type TransactionParent,
} from './commerce.mappers.ts';
import { storeCustomerMutations } from './customer-mutations.ts';
import { storeCustomerConnection } from './customer-connection.ts';
import { transactionConnection } from './transaction-connection.ts';
import { checkChannelId, checkTextId, checkTransactionId } from './commerce-ids.ts';
import { checkStoreId } from '../kit/id-checks.ts';
import { commerceOf } from './commerce.request.ts';

/** The channels of a store (or of the account), as parents. */
async function channelsOf(ctx: GatewayContext, storeId: string | null): Promise<ChannelParent[]> {
  const items = await commerceOf(ctx).loaders.channels.load(storeId ?? '');
  return items
    .map((raw) => toChannel(raw, storeId))
    .filter((channel): channel is ChannelParent => channel !== null);
}

/**
 * A channel by id with the documented workaround: get-by-id checks access on that channel, so it
 * may answer 401 to a token that can list it; then list (by store when known) and pick by id.
 */
export async function loadChannel(
  ctx: GatewayContext,
  channelId: string,
  storeId: string | null,
): Promise<ChannelParent | null> {
  try {
    const record = await nullIfNotFound(commerceOf(ctx).api.channel(channelId));
    return record && toChannel(record, storeId);
  } catch (error) {
    if (!(error instanceof UpstreamError && error.kind === 'http' && error.status === 401)) {
      throw error;
    }
    const wanted = channelId.toLowerCase();
    const listed = await channelsOf(ctx, storeId);
    return listed.find((channel) => channel.channelId.toLowerCase() === wanted) ?? null;
  }
}

async function loadCustomer(
  ctx: GatewayContext,
  storeId: string,
  customerId: string,
): Promise<StoreCustomerParent | null> {
  const record = await nullIfNotFound(
    commerceOf(ctx).loaders.customer.load({ storeId, customerId }),
  );
  return record && toStoreCustomer(record, storeId);
}

async function loadTransaction(
  ctx: GatewayContext,
  storeId: string,
  transactionId: string,
): Promise<TransactionParent | null> {
  const found = await commerceOf(ctx).loaders.transaction.load({ storeId, transactionId });
  return found && toTransaction(found, storeId);
}

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const field = (record: Readonly<Record<string, unknown>>, ...path: string[]): unknown =>
  path.reduce<unknown>(
    (value, name) =>
      typeof value === 'object' && value !== null
        ? (value as Record<string, unknown>)[name]
        : undefined,
    record,
  );

/** Resolvers of schema/commerce.graphql (the `Store` fields of the subgraphs are in src/stitching). */
export const commerceResolvers: Resolvers = {
  Query: {
    store: (_parent, { storeId }) => toStore(checkStoreId(storeId)),
    channels: (_parent, { storeId }, ctx) =>
      channelsOf(ctx, storeId == null ? null : checkStoreId(storeId)),
    channel: (_parent, { channelId, storeId }, ctx) =>
      loadChannel(ctx, checkChannelId(channelId), storeId == null ? null : checkStoreId(storeId)),
  },

  Mutation: storeCustomerMutations,

  Store: {
    id: (parent) => encodeGlobalId('Store', parent.storeId),
    storeId: (parent) => parent.storeId,
    raw: (parent, _args, ctx) => commerceOf(ctx).loaders.store.load(parent.storeId),
    attribute: async (parent, { name }, ctx) => {
      if (name.trim() === '') {
        throw new GatewayError(ErrorCode.BAD_USER_INPUT, '`name` must not be empty', {
          field: 'name',
        });
      }
      return nullIfNotFound(
        commerceOf(ctx).loaders.attribute.load({ storeId: parent.storeId, name }),
      );
    },
    channels: (parent, _args, ctx) => channelsOf(ctx, parent.storeId),
    customers: (parent, args, ctx) =>
      storeCustomerConnection(commerceOf(ctx).api, parent.storeId, args),
    customer: (parent, { customerId }, ctx) =>
      loadCustomer(ctx, parent.storeId, checkTextId(customerId, 'customerId')),
    transactions: (parent, args, ctx, info) =>
      transactionConnection(commerceOf(ctx).api, parent.storeId, args, info),
    transaction: (parent, { transactionId }, ctx) =>
      loadTransaction(ctx, parent.storeId, checkTransactionId(transactionId)),
  },

  Channel: {
    id: (parent) =>
      parent.storeId === null
        ? encodeGlobalId('Channel', parent.channelId)
        : encodeGlobalId('Channel', parent.channelId, parent.storeId),
    channelId: (parent) => parent.channelId,
    registeredStoreIds: (parent) => registeredStoreIds(parent.raw),
    raw: (parent) => parent.raw,
  },

  StoreCustomer: {
    id: (parent) => encodeGlobalId('StoreCustomer', parent.storeId, parent.customerId),
    customerId: (parent) => parent.customerId,
    storeId: (parent) => parent.storeId,
    raw: (parent) => parent.raw,
  },

  Transaction: {
    id: (parent) => encodeGlobalId('Transaction', parent.storeId, parent.transactionId),
    transactionId: (parent) => parent.transactionId,
    storeId: (parent) => parent.storeId,
    transactionRefNum: (parent) => str(parent.fields.transactionRefNum),
    type: (parent) => str(parent.fields.type),
    status: (parent) => str(parent.fields.status),
    amount: (parent) => toMoney(parent.fields.amount),
    amountType: (parent) => str(field(parent.fields, 'amount', 'amountType')),
    card: (parent) => parent.shown.card,
    fundingSourceType: (parent) => str(field(parent.fields, 'fundingSource', 'sourceType')),
    channelId: (parent) => str(field(parent.fields, 'context', 'channelId')),
    merchantInitiated: (parent) => {
      const value = field(parent.fields, 'context', 'merchantInitiatedTransaction');
      return typeof value === 'boolean' ? value : null;
    },
    notes: (parent) => str(parent.fields.notes),
    references: (parent) =>
      (Array.isArray(parent.fields.references) ? parent.fields.references : [])
        .filter((ref): ref is Record<string, unknown> => typeof ref === 'object' && ref !== null)
        .map((ref) => ({
          value: str(ref.value),
          type: str(ref.type),
          additionalLabel: str(ref.additionalLabel),
        })),
    createdAt: (parent) => str(parent.fields.createdAt),
    updatedAt: (parent) => str(parent.fields.updatedAt),
    voidableUntil: (parent) => str(parent.fields.voidableUntil),
    captureBy: (parent) => str(parent.fields.captureBy),
    raw: (parent) => parent.shown.record,
  },
};

/** `node(id:)` for `Store`: confirms the store exists (the record is then cached for `raw`). */
export async function resolveStoreNode(
  parts: string[],
  ctx: GatewayContext,
): Promise<StoreParent | null> {
  const [part] = parts;
  if (!part) return null;
  const storeId = checkedIdPart('Store', 'storeId', part, checkStoreId);
  const record = await nullIfNotFound(commerceOf(ctx).loaders.store.load(storeId));
  return record && toStore(storeId);
}

/** `node(id:)` for `Channel`. */
export function resolveChannelNode(
  parts: string[],
  ctx: GatewayContext,
): Promise<ChannelParent | null> {
  const [channelPart, storePart] = parts;
  if (!channelPart) return Promise.resolve(null);
  const channelId = checkedIdPart('Channel', 'channelId', channelPart, checkChannelId);
  const storeId =
    storePart === undefined ? null : checkedIdPart('Channel', 'storeId', storePart, checkStoreId);
  return loadChannel(ctx, channelId, storeId);
}

/**
 * The parts of a store-scoped global id (`[storeId, id]`), each checked as its argument is; undefined
 * when one is missing.
 */
function storeScopedIds(
  typename: string,
  parts: string[],
  idName: string,
  checkId: (value: string, field: string) => string,
): [storeId: string, id: string] | undefined {
  const [storePart, idPart] = parts;
  if (!storePart || !idPart) return undefined;
  return [
    checkedIdPart(typename, 'storeId', storePart, checkStoreId),
    checkedIdPart(typename, idName, idPart, checkId),
  ];
}

/** `node(id:)` for `StoreCustomer`. */
export function resolveStoreCustomerNode(
  parts: string[],
  ctx: GatewayContext,
): Promise<StoreCustomerParent | null> {
  const ids = storeScopedIds('StoreCustomer', parts, 'customerId', checkTextId);
  return ids ? loadCustomer(ctx, ...ids) : Promise.resolve(null);
}

/** `node(id:)` for `Transaction` (through the batching loader like any by-id read). */
export function resolveTransactionNode(
  parts: string[],
  ctx: GatewayContext,
): Promise<TransactionParent | null> {
  const ids = storeScopedIds('Transaction', parts, 'transactionId', checkTransactionId);
  return ids ? loadTransaction(ctx, ...ids) : Promise.resolve(null);
}
