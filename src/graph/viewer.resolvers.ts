/** `viewer`: the caller, as the gateway sees it. Answers without an upstream call. */
import type { Resolvers } from '../generated/resolvers.ts';
import { requireCredential } from '../upstream/require-credential.ts';
import type { Credential } from '../upstream/credential.ts';

export interface ViewerParent {
  credential: Credential;
}

export const viewerResolvers: Resolvers = {
  Query: {
    viewer: (_parent, _args, ctx) => ({ credential: requireCredential(ctx.credential) }),
  },
  Viewer: {
    // The token bucket's own state (Redis or memory): never an upstream call, never a token spent.
    rateLimit: (parent, _args, ctx) => {
      // A live value: a response that shows it is never replayed from the response cache.
      ctx.facts?.markUnreplayable();
      return ctx.budget.snapshot(parent.credential);
    },
  },
};
