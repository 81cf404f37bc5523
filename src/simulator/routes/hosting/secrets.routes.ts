/** Secret metadata listing and the all-or-nothing secret change operation. */
import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../../sim-context.ts';
import { VARIANT_NAMES } from '../../fixtures/hosting.fixtures.ts';
import { findApp } from './hosting-access.lookup.ts';
import { FieldErrors, oneOf, queryParam } from './hosting-fields.validation.ts';
import { routeOf } from './hosting-operations.config.ts';
import { secretListingView } from './hosting-views.serializer.ts';
import { applySecretChanges, parseSecretChanges } from './secret-operations.validation.ts';

export function registerSecretRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.route({
    ...routeOf('GET /apps/{appId}/secrets'),
    handler: async (request) => {
      const record = findApp(ctx, request);
      const errors = new FieldErrors('query');
      const variant = oneOf(
        queryParam(request.query, 'variant', errors),
        VARIANT_NAMES,
        '$.variant',
        errors,
      );
      errors.throwIfAny();
      return secretListingView(record.secrets, variant);
    },
  });

  app.route({
    ...routeOf('POST /apps/{appId}/secrets'),
    handler: async (request) => {
      const record = findApp(ctx, request);
      applySecretChanges(record.secrets, parseSecretChanges(request.body), ctx.now());
      return secretListingView(record.secrets);
    },
  });
}
