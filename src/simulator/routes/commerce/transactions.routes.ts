/**
 * Payment transactions (v2): list with page/pageSize paging and filters, and read by id
 * (`commerce.transaction:read`). Every query-parameter error is 400 `INVALID_FORMAT` with
 * `fields[].path` `$.<param>`. The optional header `x-request-id` must be a uuid and is echoed back.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CommerceTransaction } from '../../fixtures/commerce.fixtures.ts';
import type { SimContext } from '../../sim-context.ts';
import { invalidField, notFound } from '../../sim-errors.ts';
import {
  UUID,
  intQuery,
  queryOf,
  singleQuery,
  uuidParam,
  visibleStore,
  type Query,
} from './commerce-http.ts';
import { enumParam, refuseParams } from '../../sim-query.ts';

const MAX_IDS = 100;
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

type StoreParams = { storeId: string };
type TransactionParams = { storeId: string; transactionId: string };

/** Validates and echoes the optional `x-request-id` header (the document's "Request Id"). */
function echoRequestId(request: FastifyRequest, reply: FastifyReply): void {
  const raw = request.headers['x-request-id'];
  if (raw === undefined) return;
  const value = Array.isArray(raw) ? raw.join(',') : raw;
  if (!UUID.test(value)) {
    throw invalidField(`$['x-request-id']`, 'INVALID_FORMAT', 'x-request-id must be a uuid');
  }
  reply.header('x-request-id', value);
}

/** Epoch milliseconds (fractional) of an RFC 3339 date-time, or undefined when it is not one. */
export function parseRfc3339(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const offsetHours = m[9] === undefined ? 0 : Number(m[9]);
  const offsetMinutes = m[10] === undefined ? 0 : Number(m[10]);
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth ||
    hour > 23 ||
    minute > 59 ||
    second > 60 ||
    offsetHours > 23 ||
    offsetMinutes > 59
  ) {
    return undefined;
  }
  const fraction = m[7] === undefined ? 0 : Number(`0${m[7]}`) * 1000;
  const offset = (m[8] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  return Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59)) + fraction - offset;
}

function dateTimeQuery(query: Query, name: string): number | undefined {
  const raw = singleQuery(query, name);
  if (raw === undefined) return undefined;
  if (raw.length < 20 || raw.length > 64) {
    throw invalidField(`$.${name}`, 'INVALID_FORMAT', `${name} must have 20 to 64 characters`);
  }
  const ms = parseRfc3339(raw);
  if (ms === undefined) {
    throw invalidField(`$.${name}`, 'INVALID_FORMAT', `${name} must be an RFC 3339 date-time`);
  }
  return ms;
}

/** `transactionIds`, repeated (`?transactionIds=a&transactionIds=b`) or comma-separated, or both. */
function idsQuery(query: Query): string[] | undefined {
  const raw = query.transactionIds;
  if (raw === undefined || raw === '') return undefined;
  const ids = (Array.isArray(raw) ? raw : [raw]).flatMap((value) => value.split(','));
  if (ids.length > MAX_IDS) {
    throw invalidField('$.transactionIds', 'OUT_OF_RANGE', `at most ${MAX_IDS} transactionIds`);
  }
  return ids.map((value, i) => {
    const id = value.trim();
    if (!UUID.test(id)) {
      throw invalidField(
        `$.transactionIds[${i}]`,
        'INVALID_FORMAT',
        'a transactionId must be a uuid',
      );
    }
    return id.toLowerCase();
  });
}

export function registerTransactionRoutes(app: FastifyInstance, ctx: SimContext): void {
  const state = ctx.state.commerce;
  const config = { scope: 'commerce.transaction:read' };

  app.get<{ Params: StoreParams }>(
    '/v2/commerce/stores/:storeId/transactions',
    { config },
    async (request, reply) => {
      echoRequestId(request, reply);
      const store = visibleStore(state, request, request.params.storeId);
      const query = queryOf(request);
      // "v2 list endpoints … accept neither limit nor marker": refused, not ignored.
      refuseParams(query, ['limit', 'marker'], 'v2 lists page with page and pageSize');
      const page = intQuery(query, 'page', { min: 1, max: 1_000_000, fallback: 1 });
      const pageSize = intQuery(query, 'pageSize', { min: 1, max: 100, fallback: 10 });
      const totalRequired =
        enumParam(query, 'totalRequired', ['true', 'false'], 'false') === 'true';
      const ids = idsQuery(query);
      const after = dateTimeQuery(query, 'updatedAtAfter');
      const before = dateTimeQuery(query, 'updatedAtBefore');
      const sortBy = enumParam(query, 'sortBy', ['updatedAt'], 'updatedAt');
      const sortOrder = enumParam(query, 'sortOrder', ['ASC', 'DESC'], 'ASC');

      const wanted = ids ? new Set(ids) : undefined;
      const direction = sortOrder === 'ASC' ? 1 : -1;
      const matching = (state.transactions.get(store.storeId) ?? [])
        .filter((t) => {
          if (wanted && !wanted.has(t.transactionId)) return false;
          const updated = Date.parse(t.updatedAt);
          return (
            (after === undefined || updated > after) && (before === undefined || updated < before)
          );
        })
        .sort(
          (x, y) =>
            direction *
            (x.updatedAt.localeCompare(y.updatedAt) ||
              x.transactionId.localeCompare(y.transactionId)),
        );

      const totalItems = matching.length;
      const totalPages = Math.ceil(totalItems / pageSize);
      const items: CommerceTransaction[] = matching.slice((page - 1) * pageSize, page * pageSize);

      const href = (target: number): string => {
        const params = new URLSearchParams({ page: String(target), pageSize: String(pageSize) });
        if (totalRequired) params.set('totalRequired', 'true');
        if (ids) params.set('transactionIds', ids.join(','));
        for (const name of ['updatedAtAfter', 'updatedAtBefore'] as const) {
          const value = singleQuery(query, name);
          if (value !== undefined) params.set(name, value);
        }
        if (singleQuery(query, 'sortBy') !== undefined) params.set('sortBy', sortBy);
        if (singleQuery(query, 'sortOrder') !== undefined) params.set('sortOrder', sortOrder);
        return `/v2/commerce/stores/${store.storeId}/transactions?${params.toString()}`;
      };
      const links = [{ href: href(page), rel: 'self' }];
      if (page < totalPages) links.push({ href: href(page + 1), rel: 'next' });
      if (page > 1 && totalPages > 0)
        links.push({ href: href(Math.min(page - 1, totalPages)), rel: 'prev' });

      return totalRequired ? { items, totalItems, totalPages, links } : { items, links };
    },
  );

  app.get<{ Params: TransactionParams }>(
    '/v2/commerce/stores/:storeId/transactions/:transactionId',
    { config },
    async (request, reply) => {
      echoRequestId(request, reply);
      const store = visibleStore(state, request, request.params.storeId);
      const transactionId = uuidParam(request.params.transactionId, 'transactionId');
      const transaction = state.transactions
        .get(store.storeId)
        ?.find((t) => t.transactionId === transactionId);
      if (!transaction) throw notFound(`transaction ${transactionId}`);
      return transaction;
    },
  );
}
