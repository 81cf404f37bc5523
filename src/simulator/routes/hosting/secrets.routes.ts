/** Secret metadata listing and the all-or-nothing secret change operation. */
import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../../sim-context.js';
import { VARIANT_NAMES } from '../../fixtures/hosting.fixtures.js';
import { findApp } from './hosting-access.lookup.js';
import { FieldErrors, oneOf, queryParam } from './hosting-fields.validation.js';
import { routeOf } from './hosting-operations.config.js';
import { secretListingView } from './hosting-views.serializer.js';
import { applySecretChanges, parseSecretChanges } from './secret-operations.validation.js';

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
