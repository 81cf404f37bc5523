/**
 * Tax rates: a percentage levied in a tax area, for one classification or (classification null)
 * for every classification without rates of its own, optionally by a named jurisdiction and within
 * a window of time. The several-at-once mutations (`createRates`, `deleteRates`) are all or
 * nothing: every item is checked before any takes effect.
 */
import {
  defaultTaxArea,
  rateInEffect,
  type RateRecord,
  type TaxAreaRecord,
  type TaxStatus,
} from '../fixtures/subgraph.fixtures.ts';
import {
  badInput,
  optionalInstant,
  paginate,
  requireText,
  rootField,
  storeOf,
  type SubgraphContext,
} from './subgraph-common.ts';
import { stamps, touch, type DeletePayload, type SubgraphModule } from './subgraph-records.ts';
import { classifications, jurisdictions, rates, taxAreas } from './tax.lookups.ts';

const typeDefs = /* GraphQL */ `
  "The size of a rate."
  type RateValue {
    "Percent, e.g. 8.875."
    percentage: Float!
  }

  "A percentage levied in a tax area."
  type Rate {
    "The rate's id (txr_…)."
    id: ID!
    "Display label."
    label: String!
    "The percentage."
    value: RateValue!
    "Null for a general rate of the area, used by classifications without rates of their own."
    classificationId: ID
    "The classification it taxes; null for a general rate."
    classification: Classification
    "The area it applies in."
    taxArea: TaxArea!
    "The jurisdiction that levies it; null when not recorded."
    jurisdiction: Jurisdiction
    "Whether it applies."
    status: Status!
    "Start of its window (ISO 8601); null: always."
    effectiveFrom: String
    "End of its window (ISO 8601, exclusive); null: open-ended."
    effectiveTo: String
    "Whether it applies now: ACTIVE and inside its window."
    inEffect: Boolean!
    "When the rate was created (ISO 8601)."
    createdAt: String!
    "When the rate last changed (ISO 8601)."
    updatedAt: String!
  }

  "A rate in a page of rates."
  type RateEdge {
    "Where this rate is in the list: pass it as after to continue behind it."
    cursor: String!
    "The rate."
    node: Rate!
  }

  "A page of rates."
  type RateConnection {
    "The rates of the page with their cursors."
    edges: [RateEdge!]!
    "Where the page ends."
    pageInfo: PageInfo!
    "How many rates the whole list holds."
    totalCount: Int!
  }

  "The size of a rate to set."
  input RateValueInput {
    "Percent, 0 to 100."
    percentage: Float!
  }

  "A new rate."
  input MutationCreateRateInput {
    "Display label, not empty."
    label: String!
    "The percentage."
    value: RateValueInput!
    "The classification it taxes; a general rate of the area unless given."
    classificationId: ID
    "Defaults to the store's default tax area."
    taxAreaId: ID
    "A jurisdiction of the same area that levies it."
    jurisdictionId: ID
    "ACTIVE unless told."
    status: Status = ACTIVE
    "Start of its window (ISO 8601)."
    effectiveFrom: String
    "End of its window (ISO 8601), after effectiveFrom."
    effectiveTo: String
  }

  "Changes to a rate; omitted fields keep their values."
  input MutationUpdateRateInput {
    "The rate."
    id: ID!
    "New display label."
    label: String
    "New percentage."
    value: RateValueInput
    "Null makes the rate a general rate of its area."
    classificationId: ID
    "A jurisdiction of the rate's area; null clears it."
    jurisdictionId: ID
    "New status."
    status: Status
  }

  "The window a rate applies in."
  input MutationScheduleRateInput {
    "The rate."
    id: ID!
    "Start (ISO 8601); null: always."
    effectiveFrom: String
    "End (ISO 8601, exclusive), after effectiveFrom; null: open-ended."
    effectiveTo: String
  }

  extend type Query {
    "A rate of the store by id; null when there is none."
    rate("The rate's id." id: ID!): Rate
    "The store's rates in creation order, a page at a time."
    rates(
      "Page size, 0-100; 20 unless given."
      first: Int
      "Cursor of the item after which the page starts."
      after: String
      "Only rates of this classification."
      classificationId: ID
      "Only rates of this area."
      taxAreaId: ID
      "Only rates in this status."
      status: Status
    ): RateConnection!
  }

  extend type Mutation {
    "Creates a rate."
    createRate("The new rate." input: MutationCreateRateInput!): Rate
    "Creates several rates, all or none."
    createRates("The new rates, 1-100." inputs: [MutationCreateRateInput!]!): [Rate!]
    "Changes a rate."
    updateRate("The changes." input: MutationUpdateRateInput!): Rate
    "Sets the window a rate applies in."
    scheduleRate("The rate and its window." input: MutationScheduleRateInput!): Rate
    "Makes a rate ACTIVE."
    activateRate("The rate." id: ID!): Rate
    "Makes a rate INACTIVE."
    deactivateRate("The rate." id: ID!): Rate
    "Deletes a rate."
    deleteRate("The rate." id: ID!): DeleteResult
    "Deletes several rates, all or none."
    deleteRates("The rates, 1-100." ids: [ID!]!): [DeleteResult!]
  }
`;

export interface CreateRateInput {
  label: string;
  value: { percentage: number };
  classificationId?: string | null;
  taxAreaId?: string | null;
  jurisdictionId?: string | null;
  status?: TaxStatus | null;
  effectiveFrom?: string | null;
  effectiveTo?: string | null;
}

interface UpdateRateInput {
  id: string;
  label?: string | null;
  value?: { percentage: number } | null;
  classificationId?: string | null;
  jurisdictionId?: string | null;
  status?: TaxStatus | null;
}

const MAX_ITEMS = 100;

function checkPercentage(percentage: number, field = 'value.percentage'): number {
  if (!Number.isFinite(percentage) || percentage < 0 || percentage > 100) {
    throw badInput(`${field} must be between 0 and 100`, field);
  }
  return percentage;
}

export function checkClassificationId(
  ctx: SubgraphContext,
  id: string | null | undefined,
  field = 'classificationId',
): string | null {
  if (id === null || id === undefined) return null;
  return classifications.ref(ctx, id, field).id;
}

/** The area an input names, else the store's default area. */
export function areaOrDefault(ctx: SubgraphContext, id: string | null | undefined): TaxAreaRecord {
  if (id === null || id === undefined) {
    const area = defaultTaxArea(ctx.state, storeOf(ctx));
    if (!area) throw badInput('the store has no tax area; create one first', 'taxAreaId');
    return area;
  }
  return taxAreas.ref(ctx, id, 'taxAreaId');
}

function checkJurisdiction(
  ctx: SubgraphContext,
  id: string | null | undefined,
  area: TaxAreaRecord,
): string | null {
  if (id === null || id === undefined) return null;
  const jurisdiction = jurisdictions.ref(ctx, id, 'jurisdictionId');
  if (jurisdiction.taxAreaId !== area.id) {
    throw badInput(`jurisdiction ${id} belongs to another tax area`, 'jurisdictionId');
  }
  return jurisdiction.id;
}

export function checkWindow(from: string | null, to: string | null): void {
  if (from !== null && to !== null && Date.parse(to) <= Date.parse(from)) {
    throw badInput('effectiveTo must be after effectiveFrom', 'effectiveTo');
  }
}

/** The fields of a new rate, every input checked. */
function rateFields(
  ctx: SubgraphContext,
  input: CreateRateInput,
): Omit<RateRecord, 'id' | 'storeId'> {
  const label = requireText(input.label, 'label');
  const percentage = checkPercentage(input.value.percentage);
  const classificationId = checkClassificationId(ctx, input.classificationId);
  const area = areaOrDefault(ctx, input.taxAreaId);
  const jurisdictionId = checkJurisdiction(ctx, input.jurisdictionId, area);
  const effectiveFrom = optionalInstant(input.effectiveFrom, 'effectiveFrom');
  const effectiveTo = optionalInstant(input.effectiveTo, 'effectiveTo');
  checkWindow(effectiveFrom, effectiveTo);
  return {
    label,
    percentage,
    classificationId,
    taxAreaId: area.id,
    jurisdictionId,
    status: input.status ?? 'ACTIVE',
    effectiveFrom,
    effectiveTo,
    ...stamps(ctx),
  };
}

function checkCount(count: number, field: string): void {
  if (count === 0 || count > MAX_ITEMS) {
    throw badInput(`${field} must hold 1 to ${MAX_ITEMS} items`, field);
  }
}

function setStatus(ctx: SubgraphContext, id: string, status: TaxStatus): RateRecord {
  const rate = rates.get(ctx, id);
  if (rate.status === status) return rate;
  rate.status = status;
  return touch(ctx, rate);
}

export const rateModule: SubgraphModule = {
  typeDefs,
  resolvers: {
    Rate: {
      value: (rate: RateRecord) => ({ percentage: rate.percentage }),
      classification: (rate: RateRecord, _args: unknown, ctx: SubgraphContext) =>
        classifications.find(ctx, rate.classificationId),
      taxArea: (rate: RateRecord, _args: unknown, ctx: SubgraphContext) =>
        taxAreas.find(ctx, rate.taxAreaId),
      jurisdiction: (rate: RateRecord, _args: unknown, ctx: SubgraphContext) =>
        jurisdictions.find(ctx, rate.jurisdictionId),
      inEffect: (rate: RateRecord, _args: unknown, ctx: SubgraphContext) =>
        rate.status === 'ACTIVE' && rateInEffect(rate, ctx.now()),
    },
    Query: {
      rate: rootField((args: { id: string }, ctx: SubgraphContext) => rates.find(ctx, args.id)),
      rates: rootField(
        (
          args: {
            first?: number | null;
            after?: string | null;
            classificationId?: string | null;
            taxAreaId?: string | null;
            status?: TaxStatus | null;
          },
          ctx: SubgraphContext,
        ) =>
          paginate(
            rates
              .all(ctx)
              .filter(
                (rate) =>
                  (!args.classificationId || rate.classificationId === args.classificationId) &&
                  (!args.taxAreaId || rate.taxAreaId === args.taxAreaId) &&
                  (!args.status || rate.status === args.status),
              ),
            args.first,
            args.after,
          ),
      ),
    },
    Mutation: {
      createRate: rootField(({ input }: { input: CreateRateInput }, ctx: SubgraphContext) =>
        rates.insert(ctx, rateFields(ctx, input)),
      ),
      createRates: rootField(({ inputs }: { inputs: CreateRateInput[] }, ctx: SubgraphContext) => {
        checkCount(inputs.length, 'inputs');
        const checked = inputs.map((input) => rateFields(ctx, input));
        return checked.map((fields) => rates.insert(ctx, fields));
      }),
      updateRate: rootField(({ input }: { input: UpdateRateInput }, ctx: SubgraphContext) => {
        const rate = rates.get(ctx, input.id);
        const area = taxAreas.get(ctx, rate.taxAreaId);
        const next: Partial<RateRecord> = {};
        if (input.label != null) next.label = requireText(input.label, 'label');
        if (input.value != null) next.percentage = checkPercentage(input.value.percentage);
        if (input.classificationId !== undefined) {
          next.classificationId = checkClassificationId(ctx, input.classificationId);
        }
        if (input.jurisdictionId !== undefined) {
          next.jurisdictionId = checkJurisdiction(ctx, input.jurisdictionId, area);
        }
        if (input.status != null) next.status = input.status;
        Object.assign(rate, next);
        return touch(ctx, rate);
      }),
      scheduleRate: rootField(
        (
          {
            input,
          }: { input: { id: string; effectiveFrom?: string | null; effectiveTo?: string | null } },
          ctx: SubgraphContext,
        ) => {
          const rate = rates.get(ctx, input.id);
          const effectiveFrom = optionalInstant(input.effectiveFrom, 'effectiveFrom');
          const effectiveTo = optionalInstant(input.effectiveTo, 'effectiveTo');
          checkWindow(effectiveFrom, effectiveTo);
          Object.assign(rate, { effectiveFrom, effectiveTo });
          return touch(ctx, rate);
        },
      ),
      activateRate: rootField((args: { id: string }, ctx: SubgraphContext) =>
        setStatus(ctx, args.id, 'ACTIVE'),
      ),
      deactivateRate: rootField((args: { id: string }, ctx: SubgraphContext) =>
        setStatus(ctx, args.id, 'INACTIVE'),
      ),
      deleteRate: rootField((args: { id: string }, ctx: SubgraphContext) =>
        rates.remove(ctx, args.id),
      ),
      deleteRates: rootField(({ ids }: { ids: string[] }, ctx: SubgraphContext) => {
        checkCount(ids.length, 'ids');
        const found = [...new Set(ids)].map((id) => rates.get(ctx, id));
        return found.map((rate): DeletePayload => rates.remove(ctx, rate.id));
      }),
    },
  },
};
