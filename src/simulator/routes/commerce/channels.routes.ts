/**
 * GET channels (list) and GET a channel by id (`commerce.channel:read`).
 *
 * The documented quirk: get-by-id checks access on that specific channel, so a token that can list
 * a channel may get 401 there. A restricted channel, or a channel of another account, answers 401
 * `UNAUTHORIZED`; an unknown channel answers 404. The workaround is the list with the
 * `registeredStores.storeId` filter.
 */
import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../../sim-context.ts';
import { SimError, invalidField, notFound } from '../../sim-errors.ts';
import { UUID, cursorQuery, queryOf, singleQuery, uuidParam } from './commerce-http.ts';

const STORE_FILTER = 'registeredStores.storeId';

export function registerChannelRoutes(app: FastifyInstance, ctx: SimContext): void {
  const state = ctx.state.commerce;
  const config = { scope: 'commerce.channel:read' };

  app.get('/v1/commerce/channels', { config }, async (request) => {
    const query = queryOf(request);
    const { limit, marker } = cursorQuery(query);
    const storeFilter = singleQuery(query, STORE_FILTER, `$['${STORE_FILTER}']`);
    if (storeFilter !== undefined && !UUID.test(storeFilter)) {
      throw invalidField(
        `$['${STORE_FILTER}']`,
        'INVALID_FORMAT',
        `${STORE_FILTER} must be a uuid`,
      );
    }
    const storeId = storeFilter?.toLowerCase();
    const visible = state.channels
      .filter((entry) => entry.accountId === request.principal.accountId)
      .map((entry) => entry.channel);
    const filtered =
      storeId === undefined
        ? visible
        : visible.filter((channel) => channel.registeredStores.some((s) => s.storeId === storeId));
    // A marker names a visible channel; the page holds the channels after it (ids ascending).
    const after =
      marker !== undefined && visible.some((c) => c.channelId === marker) ? marker : undefined;
    const rest = after === undefined ? filtered : filtered.filter((c) => c.channelId > after);
    return { items: rest.slice(0, limit) };
  });

  app.get<{ Params: { channelId: string } }>(
    '/v1/commerce/channels/:channelId',
    { config },
    async (request) => {
      const channelId = uuidParam(request.params.channelId, 'channelId');
      const entry = state.channels.find((e) => e.channel.channelId === channelId);
      if (!entry) throw notFound(`channel ${channelId}`);
      if (entry.restricted || entry.accountId !== request.principal.accountId) {
        throw new SimError(401, 'UNAUTHORIZED', 'the credential has no access to this channel');
      }
      return entry.channel;
    },
  );
}
