/**
 * The tax subgraph (`POST /v2/commerce/stores/{storeId}/tax-subgraph`): tax classifications, tax
 * areas and rates of one store, and a tax calculation. The document names `classification(id: ID!)`
 * with `id name label` and `createRate(input: MutationCreateRateInput!)` with `label` and
 * `value { percentage }`, in a schema of 8 query and 38 mutation fields; the simulator carries a
 * representative handful.
 *
 * Its own `Status` (ACTIVE, INACTIVE) and `PageInfo` (forward only) collide by name, not by shape,
 * with the catalog's.
 */
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import {
  defaultTaxArea,
  nextId,
  taxOf,
  taxPercentage,
  type ClassificationRecord,
  type RateRecord,
  type TaxAreaRecord,
  type TaxStatus,
} from '../fixtures/subgraph.fixtures.ts';
import {
  badInput,
  checkCurrency,
  gqlError,
  isoNow,
  paginate,
  requireText,
  storeOf,
  type SubgraphContext,
} from './subgraph-common.ts';
import { taxTypeDefs } from './tax.sdl.ts';

interface CreateRateInput {
  label: string;
  value: { percentage: number };
  classificationId?: string | null;
  taxAreaId?: string | null;
  status: TaxStatus;
}

interface UpdateRateInput {
  id: string;
  label?: string | null;
  value?: { percentage: number } | null;
  classificationId?: string | null;
  status?: TaxStatus | null;
}

interface ClassificationInput {
  name?: string | null;
  label?: string | null;
  description?: string | null;
  status?: TaxStatus | null;
}

interface CalculateTaxInput {
  taxAreaId?: string | null;
  currencyCode: string;
  lines: {
    reference?: string | null;
    classificationId?: string | null;
    amount: number;
    quantity: number;
  }[];
}

const inStore = <T extends { storeId: string }>(
  ctx: SubgraphContext,
  record: T | undefined,
): T | null => (record && record.storeId === storeOf(ctx) ? record : null);

const storeRates = (ctx: SubgraphContext): RateRecord[] =>
  [...ctx.state.rates.values()].filter((rate) => rate.storeId === storeOf(ctx));

const storeClassifications = (ctx: SubgraphContext): ClassificationRecord[] =>
  [...ctx.state.classifications.values()].filter((cls) => cls.storeId === storeOf(ctx));

function checkPercentage(percentage: number): number {
  if (!Number.isFinite(percentage) || percentage < 0 || percentage > 100) {
    throw badInput('value.percentage must be between 0 and 100', 'value.percentage');
  }
  return percentage;
}

function checkClassificationId(ctx: SubgraphContext, id: string | null | undefined): string | null {
  if (id === null || id === undefined) return null;
  if (!inStore(ctx, ctx.state.classifications.get(id))) {
    throw badInput(`unknown classification ${id}`, 'classificationId');
  }
  return id;
}

function areaOrDefault(ctx: SubgraphContext, id: string | null | undefined): TaxAreaRecord {
  if (id === null || id === undefined) {
    const area = defaultTaxArea(ctx.state, storeOf(ctx));
    if (!area) throw badInput('the store has no tax area; create one first', 'taxAreaId');
    return area;
  }
  const area = inStore(ctx, ctx.state.taxAreas.get(id));
  if (!area) throw badInput(`unknown tax area ${id}`, 'taxAreaId');
  return area;
}

function checkClassificationName(ctx: SubgraphContext, name: string, exceptId?: string): string {
  const text = requireText(name, 'name');
  const taken = storeClassifications(ctx).some(
    (cls) => cls.id !== exceptId && cls.name.toLowerCase() === text.toLowerCase(),
  );
  if (taken) throw badInput(`a classification named ${text} already exists`, 'name');
  return text;
}

function rateOrThrow(ctx: SubgraphContext, id: string): RateRecord {
  const rate = inStore(ctx, ctx.state.rates.get(id));
  if (!rate) throw gqlError('NOT_FOUND', `rate ${id} was not found in this store`);
  return rate;
}

function classificationOrThrow(ctx: SubgraphContext, id: string): ClassificationRecord {
  const cls = inStore(ctx, ctx.state.classifications.get(id));
  if (!cls) throw gqlError('NOT_FOUND', `classification ${id} was not found in this store`);
  return cls;
}

function calculate(ctx: SubgraphContext, input: CalculateTaxInput) {
  const currencyCode = checkCurrency(input.currencyCode, 'currencyCode');
  const area = areaOrDefault(ctx, input.taxAreaId);
  const money = (value: number) => ({ value, currencyCode });
  const lines = input.lines.map((line, index) => {
    if (line.amount < 0) throw badInput('amount must not be negative', `lines[${index}].amount`);
    if (line.quantity < 1)
      throw badInput('quantity must be at least 1', `lines[${index}].quantity`);
    const classificationId = checkClassificationId(ctx, line.classificationId);
    const taxable = line.amount * line.quantity;
    const percentage = taxPercentage(ctx.state, area.id, classificationId);
    return {
      reference: line.reference ?? null,
      classificationId,
      taxableAmount: money(taxable),
      percentage,
      tax: money(taxOf(taxable, percentage)),
    };
  });
  const subtotal = lines.reduce((sum, line) => sum + line.taxableAmount.value, 0);
  const taxTotal = lines.reduce((sum, line) => sum + line.tax.value, 0);
  return {
    taxArea: area,
    subtotal: money(subtotal),
    taxTotal: money(taxTotal),
    total: money(subtotal + taxTotal),
    lines,
  };
}

const resolvers = {
  Classification: {
    rates: (cls: ClassificationRecord, _args: unknown, ctx: SubgraphContext) =>
      storeRates(ctx).filter((rate) => rate.classificationId === cls.id),
  },
  Rate: {
    value: (rate: RateRecord) => ({ percentage: rate.percentage }),
    classification: (rate: RateRecord, _args: unknown, ctx: SubgraphContext) =>
      rate.classificationId ? (ctx.state.classifications.get(rate.classificationId) ?? null) : null,
    taxArea: (rate: RateRecord, _args: unknown, ctx: SubgraphContext) =>
      ctx.state.taxAreas.get(rate.taxAreaId),
  },
  TaxArea: {
    rates: (area: TaxAreaRecord, _args: unknown, ctx: SubgraphContext) =>
      storeRates(ctx).filter((rate) => rate.taxAreaId === area.id),
  },
  Query: {
    classification: (_root: unknown, args: { id: string }, ctx: SubgraphContext) =>
      inStore(ctx, ctx.state.classifications.get(args.id)),
    classifications: (_root: unknown, args: { status?: TaxStatus | null }, ctx: SubgraphContext) =>
      storeClassifications(ctx).filter((cls) => !args.status || cls.status === args.status),
    rate: (_root: unknown, args: { id: string }, ctx: SubgraphContext) =>
      inStore(ctx, ctx.state.rates.get(args.id)),
    rates: (
      _root: unknown,
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
        storeRates(ctx).filter(
          (rate) =>
            (!args.classificationId || rate.classificationId === args.classificationId) &&
            (!args.taxAreaId || rate.taxAreaId === args.taxAreaId) &&
            (!args.status || rate.status === args.status),
        ),
        args.first,
        args.after,
      ),
    taxArea: (_root: unknown, args: { id: string }, ctx: SubgraphContext) =>
      inStore(ctx, ctx.state.taxAreas.get(args.id)),
    taxAreas: (_root: unknown, _args: unknown, ctx: SubgraphContext) =>
      [...ctx.state.taxAreas.values()].filter((area) => area.storeId === storeOf(ctx)),
    calculateTax: (_root: unknown, args: { input: CalculateTaxInput }, ctx: SubgraphContext) =>
      calculate(ctx, args.input),
  },
  Mutation: {
    createRate: (_root: unknown, { input }: { input: CreateRateInput }, ctx: SubgraphContext) => {
      const label = requireText(input.label, 'label');
      const percentage = checkPercentage(input.value.percentage);
      const classificationId = checkClassificationId(ctx, input.classificationId);
      const area = areaOrDefault(ctx, input.taxAreaId);
      const rate: RateRecord = {
        id: nextId(ctx.state, 'txr'),
        storeId: storeOf(ctx),
        label,
        percentage,
        classificationId,
        taxAreaId: area.id,
        status: input.status,
        createdAt: isoNow(ctx),
        updatedAt: isoNow(ctx),
      };
      ctx.state.rates.set(rate.id, rate);
      return rate;
    },
    updateRate: (_root: unknown, { input }: { input: UpdateRateInput }, ctx: SubgraphContext) => {
      const rate = rateOrThrow(ctx, input.id);
      const next: Partial<RateRecord> = {};
      if (input.label != null) next.label = requireText(input.label, 'label');
      if (input.value != null) next.percentage = checkPercentage(input.value.percentage);
      if (input.classificationId !== undefined) {
        next.classificationId = checkClassificationId(ctx, input.classificationId);
      }
      if (input.status != null) next.status = input.status;
      Object.assign(rate, next, { updatedAt: isoNow(ctx) });
      return rate;
    },
    deleteRate: (_root: unknown, args: { id: string }, ctx: SubgraphContext) => {
      const rate = rateOrThrow(ctx, args.id);
      ctx.state.rates.delete(rate.id);
      return { id: rate.id, deleted: true };
    },
    createClassification: (
      _root: unknown,
      { input }: { input: ClassificationInput & { name: string; label: string } },
      ctx: SubgraphContext,
    ) => {
      const cls: ClassificationRecord = {
        id: '',
        storeId: storeOf(ctx),
        name: checkClassificationName(ctx, input.name),
        label: requireText(input.label, 'label'),
        description: input.description ?? null,
        status: input.status ?? 'ACTIVE',
        createdAt: isoNow(ctx),
        updatedAt: isoNow(ctx),
      };
      cls.id = nextId(ctx.state, 'txc');
      ctx.state.classifications.set(cls.id, cls);
      return cls;
    },
    updateClassification: (
      _root: unknown,
      { input }: { input: ClassificationInput & { id: string } },
      ctx: SubgraphContext,
    ) => {
      const cls = classificationOrThrow(ctx, input.id);
      const next: Partial<ClassificationRecord> = {};
      if (input.name != null) next.name = checkClassificationName(ctx, input.name, cls.id);
      if (input.label != null) next.label = requireText(input.label, 'label');
      if (input.description !== undefined) next.description = input.description;
      if (input.status != null) next.status = input.status;
      Object.assign(cls, next, { updatedAt: isoNow(ctx) });
      return cls;
    },
    deleteClassification: (_root: unknown, args: { id: string }, ctx: SubgraphContext) => {
      const cls = classificationOrThrow(ctx, args.id);
      const used = storeRates(ctx).filter((rate) => rate.classificationId === cls.id);
      if (used.length > 0) {
        throw gqlError(
          'CONFLICT',
          `classification ${cls.id} is used by ${used.length} rate(s); delete them first`,
          { rateIds: used.map((rate) => rate.id) },
        );
      }
      ctx.state.classifications.delete(cls.id);
      return { id: cls.id, deleted: true };
    },
    createTaxArea: (
      _root: unknown,
      { input }: { input: { name: string; countryCode: string; adminArea1?: string | null } },
      ctx: SubgraphContext,
    ) => {
      const name = requireText(input.name, 'name');
      if (!/^[A-Z]{2}$/.test(input.countryCode)) {
        throw badInput('countryCode must be a two-letter ISO 3166-1 code', 'countryCode');
      }
      const area: TaxAreaRecord = {
        id: nextId(ctx.state, 'txa'),
        storeId: storeOf(ctx),
        name,
        countryCode: input.countryCode,
        adminArea1: input.adminArea1 ?? null,
      };
      ctx.state.taxAreas.set(area.id, area);
      return area;
    },
  },
};

/** Builds the tax schema; resolvers read the store and state from the execution context. */
export function createTaxSchema(): GraphQLSchema {
  return makeExecutableSchema({ typeDefs: taxTypeDefs, resolvers });
}
