/**
 * The tax calculation: the tax of a basket in one area, from the rates in effect now, the store's
 * settings (tax-inclusive or -exclusive prices, rounding per line) and the customer's exemptions.
 * The area is the one named, else the one whose postal codes match, else the store's default.
 */
import {
  applicableExemption,
  applicableRates,
  postalCodeMatches,
  roundMinor,
  type ExemptionRecord,
  type RateRecord,
  type TaxAreaRecord,
} from '../fixtures/subgraph.fixtures.ts';
import {
  badInput,
  checkCurrency,
  rootField,
  storeOf,
  type SubgraphContext,
} from './subgraph-common.ts';
import type { SubgraphModule } from './subgraph-records.ts';
import { areaOrDefault, checkClassificationId } from './tax-rates.ts';
import { taxAreas, taxSettingsOf } from './tax.lookups.ts';

const typeDefs = /* GraphQL */ `
  "The tax of one line of a calculation."
  type TaxCalculationLine {
    "The caller's reference of the line, echoed; null when none was given."
    reference: String
    "The classification the line was taxed as (given, else the default); null: the general rates."
    classificationId: ID
    "The amount tax is levied on: the line total without tax."
    taxableAmount: TaxAmount!
    "The summed percentage of the rates applied (0 when exempt)."
    percentage: Float!
    "The tax of the line, rounded per the settings."
    tax: TaxAmount!
    "Whether an exemption of the customer zeroed the line's tax."
    exempt: Boolean!
    "The rates applied, stacked."
    rates: [Rate!]!
  }

  "The tax of a basket in one area."
  type TaxCalculation {
    "The area the basket was taxed in."
    taxArea: TaxArea!
    "Whether the amounts given included tax (the store's setting)."
    pricesIncludeTax: Boolean!
    "The taxable amounts of every line and of shipping."
    subtotal: TaxAmount!
    "The tax of every line and of shipping."
    taxTotal: TaxAmount!
    "subtotal plus taxTotal."
    total: TaxAmount!
    "The lines, in the order given."
    lines: [TaxCalculationLine!]!
    "The tax of the shipping amount; null when none was given."
    shipping: TaxCalculationLine
    "The customer's exemption that applied to at least one line; null when none did."
    exemption: TaxExemption
  }

  "One line of a basket to calculate tax for."
  input CalculateTaxLineInput {
    "Any reference of the caller, echoed back."
    reference: String
    "The classification of the item; the default classification unless given."
    classificationId: ID
    "Unit amount in minor units."
    amount: Int!
    "Units, at least 1."
    quantity: Int = 1
  }

  "A basket to calculate tax for."
  input CalculateTaxInput {
    "The area; else the area whose postal codes match postalCode; else the store's default area."
    taxAreaId: ID
    "The delivery postal code, used to find the area when taxAreaId is not given."
    postalCode: String
    "ISO 4217 currency of every amount."
    currencyCode: String!
    "The customer, whose approved exemptions apply."
    customerId: ID
    "Shipping amount in minor units, taxed at the shipping classification."
    shippingAmount: Int
    "The lines."
    lines: [CalculateTaxLineInput!]!
  }

  extend type Query {
    "Calculates the tax of a basket; nothing is stored."
    calculateTax("The basket." input: CalculateTaxInput!): TaxCalculation!
  }
`;

interface CalculateTaxInput {
  taxAreaId?: string | null;
  postalCode?: string | null;
  currencyCode: string;
  customerId?: string | null;
  shippingAmount?: number | null;
  lines: {
    reference?: string | null;
    classificationId?: string | null;
    amount: number;
    quantity?: number | null;
  }[];
}

function areaFor(ctx: SubgraphContext, input: CalculateTaxInput): TaxAreaRecord {
  if (input.taxAreaId == null && input.postalCode != null) {
    const code = input.postalCode.trim().toUpperCase();
    const area = taxAreas.all(ctx).find((candidate) => postalCodeMatches(candidate, code));
    if (!area) throw badInput(`no tax area of the store covers postal code ${code}`, 'postalCode');
    return area;
  }
  return areaOrDefault(ctx, input.taxAreaId);
}

function calculate(ctx: SubgraphContext, input: CalculateTaxInput) {
  const currencyCode = checkCurrency(input.currencyCode, 'currencyCode');
  const area = areaFor(ctx, input);
  const settings = taxSettingsOf(ctx);
  const money = (value: number) => ({ value, currencyCode });
  const applied = new Set<ExemptionRecord>();

  const taxLine = (
    reference: string | null,
    classificationId: string | null,
    gross: number,
  ): {
    reference: string | null;
    classificationId: string | null;
    taxableAmount: { value: number; currencyCode: string };
    percentage: number;
    tax: { value: number; currencyCode: string };
    exempt: boolean;
    rates: RateRecord[];
  } => {
    const exemption = input.customerId
      ? applicableExemption(
          ctx.state,
          storeOf(ctx),
          input.customerId,
          area.id,
          classificationId,
          ctx.now(),
        )
      : null;
    if (exemption) applied.add(exemption);
    const rates = exemption ? [] : applicableRates(ctx.state, area.id, classificationId, ctx.now());
    const percentage = rates.reduce((sum, rate) => sum + rate.percentage, 0);
    const tax = settings.pricesIncludeTax
      ? roundMinor((gross * percentage) / (100 + percentage), settings.roundingMode)
      : roundMinor((gross * percentage) / 100, settings.roundingMode);
    const taxable = settings.pricesIncludeTax ? gross - tax : gross;
    return {
      reference,
      classificationId,
      taxableAmount: money(taxable),
      percentage,
      tax: money(tax),
      exempt: exemption !== null,
      rates,
    };
  };

  const checked = input.lines.map((line, index) => {
    if (line.amount < 0) throw badInput('amount must not be negative', `lines[${index}].amount`);
    const quantity = line.quantity ?? 1;
    if (quantity < 1) throw badInput('quantity must be at least 1', `lines[${index}].quantity`);
    const classificationId =
      checkClassificationId(ctx, line.classificationId, `lines[${index}].classificationId`) ??
      settings.defaultClassificationId;
    return { reference: line.reference ?? null, classificationId, gross: line.amount * quantity };
  });
  if (input.shippingAmount != null && input.shippingAmount < 0) {
    throw badInput('shippingAmount must not be negative', 'shippingAmount');
  }
  const lines = checked.map((line) => taxLine(line.reference, line.classificationId, line.gross));
  const shipping =
    input.shippingAmount == null
      ? null
      : taxLine('shipping', settings.shippingClassificationId, input.shippingAmount);
  const all = shipping ? [...lines, shipping] : lines;
  const subtotal = all.reduce((sum, line) => sum + line.taxableAmount.value, 0);
  const taxTotal = all.reduce((sum, line) => sum + line.tax.value, 0);
  return {
    taxArea: area,
    pricesIncludeTax: settings.pricesIncludeTax,
    subtotal: money(subtotal),
    taxTotal: money(taxTotal),
    total: money(subtotal + taxTotal),
    lines,
    shipping,
    exemption: [...applied][0] ?? null,
  };
}

export const calculationModule: SubgraphModule = {
  typeDefs,
  resolvers: {
    Query: {
      calculateTax: rootField((args: { input: CalculateTaxInput }, ctx: SubgraphContext) =>
        calculate(ctx, args.input),
      ),
    },
  },
};
