/**
 * Fulfilments: shipments of an order's units. A fulfilment is made for an OPEN order that is not
 * on hold, for at most the units not yet in another (non-canceled) fulfilment; OPEN → DELIVERED or
 * OPEN → CANCELED, and repeating the transition that produced the current state changes nothing.
 * Tracking changes only while it is OPEN.
 */
import type {
  FulfillmentRecord,
  FulfillmentStatus,
  OrderRecord,
} from '../fixtures/subgraph.fixtures.ts';
import { withOrder } from './order-lines.ts';
import {
  checkStore,
  fulfilledQuantity,
  fulfillments,
  lineOf,
  openOrder,
  orders,
  visible,
} from './order.lookups.ts';
import {
  badInput,
  checkHttpsUrl,
  gqlError,
  isoNow,
  paginate,
  rootField,
  type SubgraphContext,
} from './subgraph-common.ts';
import { nextId } from '../fixtures/subgraph.fixtures.ts';
import type { SubgraphModule } from './subgraph-records.ts';

const typeDefs = /* GraphQL */ `
  "Where a fulfilment stands."
  enum FulfillmentStatus {
    "On its way (or being packed)."
    OPEN
    "Arrived."
    DELIVERED
    "Called off; its units can be fulfilled again."
    CANCELED
  }

  "How much of an order is fulfilled."
  enum OrderFulfillmentStatus {
    "No unit is in a fulfilment."
    UNFULFILLED
    "Some units are in fulfilments."
    PARTIALLY_FULFILLED
    "Every unit is in a fulfilment."
    FULFILLED
  }

  "Units of one line in a fulfilment."
  type FulfillmentLine {
    "The order line."
    lineItem: LineItem!
    "Units of it."
    quantity: Int!
  }

  "A shipment of units of an order."
  type Fulfillment implements Node {
    "The fulfilment's id (ful_…)."
    id: ID!
    "The order."
    order: Order!
    "Where it stands."
    status: FulfillmentStatus!
    "The units it carries."
    lines: [FulfillmentLine!]!
    "The carrier; null when not given."
    trackingCompany: String
    "The carrier's tracking number; null when not given."
    trackingNumber: String
    "Where to follow the shipment (https); null when not given."
    trackingUrl: String
    "When it was made (ISO 8601)."
    createdAt: String!
    "When it last changed (ISO 8601)."
    updatedAt: String!
    "When it arrived (ISO 8601); null unless DELIVERED."
    deliveredAt: String
    "When it was canceled (ISO 8601); null unless CANCELED."
    canceledAt: String
  }

  "A fulfilment in a page of fulfilments."
  type FulfillmentEdge {
    "Where this fulfilment is in the list: pass it as after to continue behind it."
    cursor: String!
    "The fulfilment."
    node: Fulfillment!
  }

  "A page of fulfilments."
  type FulfillmentConnection {
    "The fulfilments of the page with their cursors."
    edges: [FulfillmentEdge!]!
    "The fulfilments of the page."
    nodes: [Fulfillment!]!
    "Where the page ends."
    pageInfo: PageInfo!
    "How many fulfilments the whole list holds."
    totalCount: Int!
  }

  "Units of one line to fulfil."
  input FulfillmentLineInput {
    "A line of the order."
    lineItemId: ID!
    "Units, at least 1 and at most those not yet fulfilled."
    quantity: Int!
  }

  "A new fulfilment (OPEN)."
  input CreateFulfillmentInput {
    "The order: OPEN and not on hold."
    orderId: ID!
    "The units; every unit not yet fulfilled unless given."
    lines: [FulfillmentLineInput!]
    "The carrier."
    trackingCompany: String
    "The carrier's tracking number."
    trackingNumber: String
    "Where to follow the shipment (https)."
    trackingUrl: String
  }

  "New tracking of an OPEN fulfilment; omitted fields keep their values, null clears."
  input UpdateFulfillmentTrackingInput {
    "The fulfilment."
    id: ID!
    "The carrier."
    trackingCompany: String
    "The carrier's tracking number."
    trackingNumber: String
    "Where to follow the shipment (https)."
    trackingUrl: String
  }

  extend type Order {
    "How much of it is fulfilled."
    fulfillmentStatus: OrderFulfillmentStatus!
    "Its fulfilments, oldest first."
    fulfillments: [Fulfillment!]!
  }

  extend type Query {
    "A fulfilment by id; null when none is visible to the caller."
    fulfillment("The fulfilment's id." id: ID!): Fulfillment
    "Fulfilments, newest first, a page at a time."
    fulfillments(
      "Only this store's (one of the caller's account)."
      storeId: ID
      "Only this order's."
      orderId: ID
      "Only those in this status."
      status: FulfillmentStatus
      "Page size, 0-100; 20 unless given."
      first: Int
      "Cursor of the item after which the page starts."
      after: String
    ): FulfillmentConnection!
  }

  extend type Mutation {
    "Ships units of an OPEN order (needs commerce.order:update)."
    createFulfillment("The order and the units." input: CreateFulfillmentInput!): Fulfillment
    "Changes the tracking of an OPEN fulfilment (needs commerce.order:update)."
    updateFulfillmentTracking(
      "The new tracking."
      input: UpdateFulfillmentTrackingInput!
    ): Fulfillment
    "Cancels an OPEN fulfilment (needs commerce.order:cancel)."
    cancelFulfillment("The fulfilment." id: ID!): Fulfillment
    "Marks an OPEN fulfilment delivered (needs commerce.order:complete)."
    completeFulfillment("The fulfilment." id: ID!): Fulfillment
  }
`;

interface TrackingInput {
  trackingCompany?: string | null;
  trackingNumber?: string | null;
  trackingUrl?: string | null;
}

const clean = (text: string | null | undefined): string | null => text?.trim() || null;

const fulfilmentsOf = (ctx: SubgraphContext, order: OrderRecord): FulfillmentRecord[] =>
  [...ctx.state.fulfillments.values()].filter((f) => f.orderId === order.id);

/** The lines to fulfil: as given, else every unit not yet in a fulfilment. */
function checkLines(
  ctx: SubgraphContext,
  order: OrderRecord,
  given: { lineItemId: string; quantity: number }[] | null | undefined,
): FulfillmentRecord['lines'] {
  if (given == null) {
    const rest = order.lineItems
      .map((line) => ({
        lineItemId: line.id,
        quantity: line.quantity - fulfilledQuantity(ctx, line.id),
      }))
      .filter((line) => line.quantity > 0);
    if (rest.length === 0) throw badInput(`order ${order.id} has nothing left to fulfil`, 'lines');
    return rest;
  }
  if (given.length === 0) throw badInput('lines must not be empty', 'lines');
  const seen = new Set<string>();
  return given.map((item, index) => {
    const field = `lines[${index}]`;
    const line = lineOf(order, item.lineItemId, `${field}.lineItemId`);
    if (seen.has(line.id)) throw badInput(`lines repeat ${line.id}`, `${field}.lineItemId`);
    seen.add(line.id);
    const left = line.quantity - fulfilledQuantity(ctx, line.id);
    if (!Number.isInteger(item.quantity) || item.quantity < 1 || item.quantity > left) {
      throw badInput(
        `quantity must be between 1 and the ${left} unit(s) left`,
        `${field}.quantity`,
      );
    }
    return { lineItemId: line.id, quantity: item.quantity };
  });
}

function inStatus(
  ctx: SubgraphContext,
  id: string,
  target: Exclude<FulfillmentStatus, 'OPEN'>,
): FulfillmentRecord {
  const fulfilment = fulfillments.get(ctx, id);
  if (fulfilment.status === target) return fulfilment;
  if (fulfilment.status !== 'OPEN') {
    throw gqlError(
      'CONFLICT',
      `fulfillment ${fulfilment.id} is ${fulfilment.status} and cannot become ${target}`,
      { currentStatus: fulfilment.status },
    );
  }
  const now = isoNow(ctx);
  fulfilment.status = target;
  fulfilment.updatedAt = now;
  if (target === 'DELIVERED') fulfilment.deliveredAt = now;
  else fulfilment.canceledAt = now;
  return fulfilment;
}

export const fulfillmentModule: SubgraphModule = {
  typeDefs,
  resolvers: {
    Fulfillment: {
      order: (fulfilment: FulfillmentRecord, _args: unknown, ctx: SubgraphContext) =>
        orders.find(ctx, fulfilment.orderId),
      lines: (fulfilment: FulfillmentRecord, _args: unknown, ctx: SubgraphContext) => {
        const order = orders.find(ctx, fulfilment.orderId);
        return fulfilment.lines.flatMap((item) => {
          const line = order?.lineItems.find((l) => l.id === item.lineItemId);
          return order && line
            ? [{ lineItem: withOrder(order, line), quantity: item.quantity }]
            : [];
        });
      },
    },
    Order: {
      fulfillments: (order: OrderRecord, _args: unknown, ctx: SubgraphContext) =>
        fulfilmentsOf(ctx, order),
      fulfillmentStatus: (order: OrderRecord, _args: unknown, ctx: SubgraphContext) => {
        const ordered = order.lineItems.reduce((sum, line) => sum + line.quantity, 0);
        const fulfilled = order.lineItems.reduce(
          (sum, line) => sum + Math.min(line.quantity, fulfilledQuantity(ctx, line.id)),
          0,
        );
        if (fulfilled === 0) return 'UNFULFILLED';
        return fulfilled >= ordered ? 'FULFILLED' : 'PARTIALLY_FULFILLED';
      },
    },
    Query: {
      fulfillment: rootField((args: { id: string }, ctx: SubgraphContext) =>
        fulfillments.find(ctx, args.id),
      ),
      fulfillments: rootField(
        (
          args: {
            storeId?: string | null;
            orderId?: string | null;
            status?: FulfillmentStatus | null;
            first?: number | null;
            after?: string | null;
          },
          ctx: SubgraphContext,
        ) => {
          if (args.storeId) checkStore(ctx, args.storeId);
          return paginate(
            visible(ctx, ctx.state.fulfillments)
              .reverse()
              .filter(
                (f) =>
                  (!args.storeId || f.storeId === args.storeId) &&
                  (!args.orderId || f.orderId === args.orderId) &&
                  (!args.status || f.status === args.status),
              ),
            args.first,
            args.after,
          );
        },
      ),
    },
    Mutation: {
      createFulfillment: rootField(
        (
          {
            input,
          }: {
            input: TrackingInput & {
              orderId: string;
              lines?: { lineItemId: string; quantity: number }[] | null;
            };
          },
          ctx: SubgraphContext,
        ) => {
          const order = openOrder(ctx, input.orderId);
          if (order.holdReason !== null) {
            throw gqlError('CONFLICT', `order ${order.id} is on hold: ${order.holdReason}`, {
              currentStatus: order.status,
            });
          }
          const lines = checkLines(ctx, order, input.lines);
          const trackingUrl =
            input.trackingUrl == null ? null : checkHttpsUrl(input.trackingUrl, 'trackingUrl');
          const now = isoNow(ctx);
          const fulfilment: FulfillmentRecord = {
            id: nextId(ctx.state, 'ful'),
            orderId: order.id,
            storeId: order.storeId,
            status: 'OPEN',
            lines,
            trackingCompany: clean(input.trackingCompany),
            trackingNumber: clean(input.trackingNumber),
            trackingUrl,
            createdAt: now,
            updatedAt: now,
            deliveredAt: null,
            canceledAt: null,
          };
          ctx.state.fulfillments.set(fulfilment.id, fulfilment);
          order.updatedAt = now;
          return fulfilment;
        },
      ),
      updateFulfillmentTracking: rootField(
        ({ input }: { input: TrackingInput & { id: string } }, ctx: SubgraphContext) => {
          const fulfilment = fulfillments.get(ctx, input.id);
          if (fulfilment.status !== 'OPEN') {
            throw gqlError(
              'CONFLICT',
              `fulfillment ${fulfilment.id} is ${fulfilment.status}; its tracking no longer changes`,
              { currentStatus: fulfilment.status },
            );
          }
          const next: Partial<FulfillmentRecord> = {};
          if (input.trackingUrl !== undefined) {
            next.trackingUrl =
              input.trackingUrl === null ? null : checkHttpsUrl(input.trackingUrl, 'trackingUrl');
          }
          if (input.trackingCompany !== undefined)
            next.trackingCompany = clean(input.trackingCompany);
          if (input.trackingNumber !== undefined) next.trackingNumber = clean(input.trackingNumber);
          Object.assign(fulfilment, next, { updatedAt: isoNow(ctx) });
          return fulfilment;
        },
      ),
      cancelFulfillment: rootField((args: { id: string }, ctx: SubgraphContext) =>
        inStatus(ctx, args.id, 'CANCELED'),
      ),
      completeFulfillment: rootField((args: { id: string }, ctx: SubgraphContext) =>
        inStatus(ctx, args.id, 'DELIVERED'),
      ),
    },
  },
};
