/**
 * `node(id:)`: decodes the global id and asks the owning domain to fetch the object again. An id is
 * checked before any upstream call as the type's own fields check theirs: every part must be a safe
 * path segment (the rule of `upstream/path-params.ts`), and each domain checks the parts whose format
 * its document gives (a store id is a uuid …); a refusal is BAD_USER_INPUT naming `id`.
 */
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
import { badInput } from '../kit/bad-input.ts';
import { decodeGlobalId } from '../kit/global-id.ts';
import { pathParamProblem } from '../upstream/path-params.ts';

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
      if (!load) return null;
      for (const part of parts) {
        const problem = pathParamProblem(part);
        if (problem) {
          throw badInput(
            'id',
            `\`id\` is not a ${typename} id this graph returned: a part ${problem}`,
          );
        }
      }
      return (await load(parts, ctx)) as never;
    },
  },
  Node: {
    __resolveType: (parent) => parent.__typename,
  },
};
