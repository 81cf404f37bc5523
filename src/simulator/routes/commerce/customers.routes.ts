/**
 * Store customers: list (v1 cursor pagination), read, create, partial update.
 * Scopes: `commerce.customer:read`, `commerce.customer:create`, `commerce.customer:update`.
 */
import type { FastifyInstance } from 'fastify';
import type { CommerceCustomer } from '../../fixtures/commerce.fixtures.ts';
import { customerIdFor } from '../../fixtures/commerce.fixtures.ts';
import type { SimContext } from '../../sim-context.ts';
import { SimError, notFound, type SimFieldError } from '../../sim-errors.ts';
import { isoSeconds } from '../../fixtures/transactions.fixtures.ts';
import { cursorPage, cursorQuery, queryOf, uuidParam, visibleStore } from './commerce-http.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const E164 = /^\+[1-9]\d{6,14}$/;
const MAX_TAGS = 20;

type StoreParams = { storeId: string };
type CustomerParams = { storeId: string; customerId: string };

/** The writable fields of a customer. */
interface CustomerInput {
  email?: string;
  givenName?: string | null;
  familyName?: string | null;
  phone?: string | null;
  tags?: string[];
}

const WRITABLE = ['email', 'givenName', 'familyName', 'phone', 'tags'] as const;

const bodyError = (fields: SimFieldError[]): SimError =>
  new SimError(
    400,
    fields.some((f) => f.code === 'REQUIRED' || f.path === '$') ? 'INVALID_BODY' : 'INVALID_FORMAT',
    fields.length === 1 ? (fields[0] as SimFieldError).message : 'the request body is invalid',
    fields,
  );

/** Validates a create (`email` required) or update (at least one field) body. */
function parseCustomerBody(body: unknown, mode: 'create' | 'update'): CustomerInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw bodyError([
      { path: '$', code: 'INVALID_TYPE', message: 'the request body must be a JSON object' },
    ]);
  }
  const raw = body as Record<string, unknown>;
  const fields: SimFieldError[] = [];
  const fail = (path: string, code: string, message: string): void => {
    fields.push({ path, code, message });
  };
  const input: CustomerInput = {};

  if (raw.email === undefined || raw.email === null || raw.email === '') {
    if (mode === 'create' || raw.email !== undefined)
      fail('$.email', 'REQUIRED', 'email is required');
  } else if (typeof raw.email !== 'string') {
    fail('$.email', 'INVALID_TYPE', 'email must be a string');
  } else if (raw.email.length > 254 || !EMAIL.test(raw.email)) {
    fail('$.email', 'INVALID_FORMAT', 'email must be a valid email address');
  } else {
    input.email = raw.email;
  }

  for (const name of ['givenName', 'familyName'] as const) {
    const value = raw[name];
    if (value === undefined) continue;
    if (value === null) input[name] = null;
    else if (typeof value !== 'string')
      fail(`$.${name}`, 'INVALID_TYPE', `${name} must be a string`);
    else if (value.trim() === '' || value.length > 100) {
      fail(`$.${name}`, 'OUT_OF_RANGE', `${name} must have 1 to 100 characters`);
    } else input[name] = value;
  }

  if (raw.phone !== undefined) {
    if (raw.phone === null) input.phone = null;
    else if (typeof raw.phone !== 'string' || !E164.test(raw.phone)) {
      fail('$.phone', 'INVALID_FORMAT', 'phone must be an E.164 number such as +14155550100');
    } else input.phone = raw.phone;
  }

  if (raw.tags !== undefined) {
    if (!Array.isArray(raw.tags))
      fail('$.tags', 'INVALID_TYPE', 'tags must be an array of strings');
    else if (raw.tags.length > MAX_TAGS) {
      fail('$.tags', 'OUT_OF_RANGE', `tags holds at most ${MAX_TAGS} items`);
    } else {
      raw.tags.forEach((tag: unknown, i) => {
        if (typeof tag !== 'string' || tag.trim() === '' || tag.length > 50) {
          fail(`$.tags[${i}]`, 'INVALID_FORMAT', 'a tag is a string of 1 to 50 characters');
        }
      });
      input.tags = [...new Set(raw.tags as string[])];
    }
  }

  if (fields.length > 0) throw bodyError(fields);
  if (mode === 'update' && !WRITABLE.some((name) => name in input)) {
    throw bodyError([
      { path: '$', code: 'REQUIRED', message: `give at least one of ${WRITABLE.join(', ')}` },
    ]);
  }
  return input;
}

const emailTaken = (
  customers: readonly CommerceCustomer[],
  email: string,
  exceptId?: string,
): boolean =>
  customers.some((c) => c.customerId !== exceptId && c.email.toLowerCase() === email.toLowerCase());

const customerExists = (email: string): SimError =>
  new SimError(409, 'CUSTOMER_EXISTS', 'a customer with this email already exists in the store', [
    { path: '$.email', code: 'CUSTOMER_EXISTS', message: `${email} is already registered` },
  ]);

export function registerCustomerRoutes(app: FastifyInstance, ctx: SimContext): void {
  const state = ctx.state.commerce;
  const customersOf = (storeId: string): CommerceCustomer[] => {
    let list = state.customers.get(storeId);
    if (!list) {
      list = [];
      state.customers.set(storeId, list);
    }
    return list;
  };
  const findCustomer = (storeId: string, rawId: string): CommerceCustomer => {
    const customerId = uuidParam(rawId, 'customerId');
    const customer = customersOf(storeId).find((c) => c.customerId === customerId);
    if (!customer) throw notFound(`customer ${customerId}`);
    return customer;
  };

  app.get<{ Params: StoreParams }>(
    '/v1/commerce/stores/:storeId/customers',
    { config: { scope: 'commerce.customer:read' } },
    async (request) => {
      const store = visibleStore(state, request, request.params.storeId);
      const { limit, marker } = cursorQuery(queryOf(request));
      return { items: cursorPage(customersOf(store.storeId), (c) => c.customerId, marker, limit) };
    },
  );

  app.get<{ Params: CustomerParams }>(
    '/v1/commerce/stores/:storeId/customers/:customerId',
    { config: { scope: 'commerce.customer:read' } },
    async (request) => {
      const store = visibleStore(state, request, request.params.storeId);
      return findCustomer(store.storeId, request.params.customerId);
    },
  );

  app.post<{ Params: StoreParams }>(
    '/v1/commerce/stores/:storeId/customers',
    { config: { scope: 'commerce.customer:create' } },
    async (request, reply) => {
      const store = visibleStore(state, request, request.params.storeId);
      const input = parseCustomerBody(request.body, 'create');
      const customers = customersOf(store.storeId);
      const email = input.email as string;
      if (emailTaken(customers, email)) throw customerExists(email);
      const seq = state.nextCustomerSeq.get(store.storeId) ?? customers.length + 1;
      state.nextCustomerSeq.set(store.storeId, seq + 1);
      const at = isoSeconds(ctx.now());
      const customer: CommerceCustomer = {
        customerId: customerIdFor(store.storeId, seq),
        storeId: store.storeId,
        email,
        givenName: input.givenName ?? null,
        familyName: input.familyName ?? null,
        phone: input.phone ?? null,
        status: 'ACTIVE',
        addresses: [],
        tags: input.tags ?? [],
        createdAt: at,
        updatedAt: at,
      };
      customers.push(customer);
      customers.sort((x, y) => x.customerId.localeCompare(y.customerId));
      return reply.status(201).send(customer);
    },
  );

  app.patch<{ Params: CustomerParams }>(
    '/v1/commerce/stores/:storeId/customers/:customerId',
    { config: { scope: 'commerce.customer:update' } },
    async (request) => {
      const store = visibleStore(state, request, request.params.storeId);
      const customer = findCustomer(store.storeId, request.params.customerId);
      const input = parseCustomerBody(request.body, 'update');
      if (
        input.email !== undefined &&
        emailTaken(customersOf(store.storeId), input.email, customer.customerId)
      ) {
        throw customerExists(input.email);
      }
      Object.assign(customer, input, { updatedAt: isoSeconds(ctx.now()) });
      return customer;
    },
  );
}
