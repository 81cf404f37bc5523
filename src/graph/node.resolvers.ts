/** `node(id:)`: decodes the global id and asks the owning domain to fetch the object again. */
import type { Resolvers } from '../generated/resolvers.ts';
import type { GatewayContext } from '../kit/request-context.ts';
import { resolveCertificateNode } from '../certificates/certificates.resolvers.ts';
import {
  resolveChannelNode,
  resolveStoreCustomerNode,
  resolveStoreNode,
  resolveTransactionNode,
} from '../commerce/commerce.resolvers.ts';
import { resolveAppNode } from '../hosting/hosting.resolvers.ts';
import { decodeGlobalId } from '../kit/global-id.ts';

type NodeResolver = (
  parts: string[],
  ctx: GatewayContext,
) => Promise<{ __typename: string } | null>;

/** One entry per `Node` type: typename → how to load it from the parts of its global id. */
const NODE_LOADERS: Readonly<Record<string, NodeResolver>> = {
  Certificate: resolveCertificateNode,
  Store: resolveStoreNode,
  Channel: resolveChannelNode,
  StoreCustomer: resolveStoreCustomerNode,
  Transaction: resolveTransactionNode,
  App: resolveAppNode,
};

export const nodeResolvers: Resolvers = {
  Query: {
    node: async (_parent, { id }, ctx) => {
      const { typename, parts } = decodeGlobalId(id);
      const load = NODE_LOADERS[typename];
      return load ? ((await load(parts, ctx)) as never) : null;
    },
  },
  Node: {
    __resolveType: (parent) => parent.__typename,
  },
};
