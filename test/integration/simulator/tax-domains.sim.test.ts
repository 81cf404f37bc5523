/**
 * Round trips through each sub-domain of the tax subgraph, over HTTP: classifications, rates,
 * areas and jurisdictions, exemptions, settings and registrations, each seen by a later read and
 * by `calculateTax`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_A } from '../../../src/simulator/accounts.ts';
import { customerIdFor } from '../../../src/simulator/fixtures/commerce.fixtures.ts';
import { startSimulator, type RunningSimulator } from '../../support/simulator-harness.ts';
import { subgraphClient } from '../../support/subgraph-client.ts';

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});

const { ok, codes } = subgraphClient(() => sim, 'tax');

/** The tax of one 100.00 line of a classification in an area. */
const taxOf = async (classificationId: string, extra = ''): Promise<any> =>
  (
    await ok(`{ calculateTax(input: { taxAreaId: "txa_001", currencyCode: "USD", ${extra}
      lines: [{ classificationId: "${classificationId}", amount: 10000 }] }) {
      taxTotal { value } lines { percentage exempt taxableAmount { value } rates { id } } exemption { id } } }`)
  ).calculateTax;

describe('classifications', () => {
  it('duplicates one with its rates, deactivates it to the general rates, and deletes', async () => {
    expect((await taxOf('txc_003')).lines[0].percentage).toBe(0); // groceries in California
    const { duplicateClassification } = await ok(
      'mutation { duplicateClassification(input: { id: "txc_003", name: "prepared food" }) { id label rates { label value { percentage } taxArea { id } } } }',
    );
    const id = duplicateClassification.id;
    expect(duplicateClassification.label).toBe('Groceries');
    expect(duplicateClassification.rates).toEqual([
      { label: 'California groceries', value: { percentage: 0 }, taxArea: { id: 'txa_001' } },
      { label: 'New York groceries', value: { percentage: 0 }, taxArea: { id: 'txa_002' } },
    ]);
    await ok(`mutation { deactivateClassification(id: "${id}") { status } }`);
    expect((await taxOf(id)).lines[0].percentage).toBe(8.625); // the general rates
    await ok(`mutation { activateClassification(id: "${id}") { status } }`);
    expect((await taxOf(id)).lines[0].percentage).toBe(0);

    expect(await codes(`mutation { deleteClassification(id: "${id}") { id } }`)).toEqual([
      'CONFLICT',
    ]);
    const rates = (await ok(`{ classification(id: "${id}") { rates { id } } }`)).classification
      .rates;
    await ok(
      `mutation { deleteRates(ids: ${JSON.stringify(rates.map((r: any) => r.id))}) { deleted } }`,
    );
    expect(
      (await ok(`mutation { deleteClassification(id: "${id}") { deleted } }`)).deleteClassification,
    ).toEqual({
      deleted: true,
    });
  });
});

describe('rates', () => {
  it('creates several all or none, and applies a scheduled rate only inside its window', async () => {
    const before = (await ok('{ rates(first: 100) { totalCount } }')).rates.totalCount;
    expect(
      await codes(`mutation { createRates(inputs: [
        { label: "Good", value: { percentage: 1 } },
        { label: "Bad", value: { percentage: 101 } }
      ]) { id } }`),
    ).toEqual(['BAD_USER_INPUT']);
    expect((await ok('{ rates(first: 100) { totalCount } }')).rates.totalCount).toBe(before);

    const future = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const { createRates } = await ok(`mutation { createRates(inputs: [
      { label: "SF surcharge", value: { percentage: 0.5 }, jurisdictionId: "txj_002" },
      { label: "Next year's levy", value: { percentage: 2 }, effectiveFrom: "${future}" }
    ]) { id inEffect jurisdiction { code } taxArea { id } } }`);
    expect(createRates.map((r: any) => r.inEffect)).toEqual([true, false]);
    expect(createRates[0]).toMatchObject({
      jurisdiction: { code: 'CA-SF' },
      taxArea: { id: 'txa_001' },
    });
    expect((await taxOf('txc_001')).lines[0].percentage).toBe(9.125); // 8.625 + 0.5, not the levy

    await ok(
      `mutation { scheduleRate(input: { id: "${createRates[1].id}", effectiveFrom: null }) { inEffect } }`,
    );
    expect((await taxOf('txc_001')).lines[0].percentage).toBe(11.125);
    expect(
      await codes(
        `mutation { updateRate(input: { id: "${createRates[0].id}", jurisdictionId: "txj_003" }) { id } }`,
      ),
    ).toEqual(['BAD_USER_INPUT']); // a New York jurisdiction on a California rate
    await ok(
      `mutation { deleteRates(ids: ["${createRates[0].id}", "${createRates[1].id}"]) { id } }`,
    );
    expect((await taxOf('txc_001')).lines[0].percentage).toBe(8.625);
  });
});

describe('areas and jurisdictions', () => {
  it('finds the area by postal code, changes the default area and protects used jurisdictions', async () => {
    const { createTaxArea } = await ok(
      'mutation { createTaxArea(input: { name: "Seattle, WA", countryCode: "US", adminArea1: "WA", postalCodes: ["981*"] }) { id isDefault postalCodes } }',
    );
    const id = createTaxArea.id;
    expect(createTaxArea).toMatchObject({ isDefault: false, postalCodes: ['981*'] });
    expect(
      await codes(
        `mutation { addTaxAreaPostalCodes(id: "txa_001", postalCodes: ["981*"]) { id } }`,
      ),
    ).toEqual(['BAD_USER_INPUT']);
    const { createJurisdiction } = await ok(
      `mutation { createJurisdiction(input: { taxAreaId: "${id}", name: "Washington", level: STATE, code: "wa" }) { id code } }`,
    );
    expect(createJurisdiction.code).toBe('WA');
    await ok(
      `mutation { createRate(input: { label: "Washington state", value: { percentage: 6.5 }, taxAreaId: "${id}", jurisdictionId: "${createJurisdiction.id}" }) { id } }`,
    );
    const byPostalCode = await ok(
      '{ calculateTax(input: { postalCode: "98101", currencyCode: "USD", lines: [{ amount: 2000 }] }) { taxArea { id } taxTotal { value } } }',
    );
    expect(byPostalCode.calculateTax).toEqual({ taxArea: { id }, taxTotal: { value: 130 } });
    expect(
      await codes(
        '{ calculateTax(input: { postalCode: "60601", currencyCode: "USD", lines: [] }) { total { value } } }',
      ),
    ).toEqual(['BAD_USER_INPUT']);

    expect(
      await codes(`mutation { deleteJurisdiction(id: "${createJurisdiction.id}") { id } }`),
    ).toEqual(['CONFLICT']);
    expect(await codes(`mutation { deleteTaxArea(id: "${id}") { id } }`)).toEqual(['CONFLICT']);

    await ok(`mutation { setDefaultTaxArea(id: "${id}") { isDefault } }`);
    expect(
      (await ok('{ taxSettings { defaultTaxArea { id } } }')).taxSettings.defaultTaxArea.id,
    ).toBe(id);
    const defaulted = await ok(
      '{ calculateTax(input: { currencyCode: "USD", lines: [{ amount: 2000 }] }) { taxArea { id } } }',
    );
    expect(defaulted.calculateTax.taxArea.id).toBe(id);
    await ok('mutation { setDefaultTaxArea(id: "txa_001") { id } }');
  });
});

describe('exemptions', () => {
  const customer = customerIdFor(STORE_A, 7);

  it('applies an exemption only once approved, and not after it is revoked', async () => {
    const { createExemption } = await ok(
      `mutation { createExemption(input: { customerId: "${customer}", certificateNumber: "CA-RESALE-0777", reason: RESALE, taxAreaIds: ["txa_001"] }) { id status } }`,
    );
    const id = createExemption.id;
    expect(createExemption.status).toBe('PENDING');
    const asCustomer = `customerId: "${customer}",`;
    expect((await taxOf('txc_001', asCustomer)).lines[0].exempt).toBe(false);

    await ok(`mutation { approveExemption(id: "${id}") { status } }`);
    const exempt = await taxOf('txc_001', asCustomer);
    expect(exempt).toMatchObject({ taxTotal: { value: 0 }, exemption: { id } });
    expect(exempt.lines[0]).toMatchObject({ exempt: true, percentage: 0, rates: [] });
    expect(await codes(`mutation { rejectExemption(id: "${id}", reason: "late") { id } }`)).toEqual(
      ['CONFLICT'],
    );

    await ok(
      `mutation { revokeExemption(id: "${id}", reason: "certificate withdrawn") { status statusReason } }`,
    );
    expect((await taxOf('txc_001', asCustomer)).lines[0].exempt).toBe(false);
    const listed = await ok(
      `{ taxSettings { exemptions(customerId: "${customer}") { id status statusReason } } }`,
    );
    expect(listed.taxSettings.exemptions).toEqual([
      { id, status: 'REVOKED', statusReason: 'certificate withdrawn' },
    ]);
    await ok(`mutation { deleteExemption(id: "${id}") { deleted } }`);
    expect(
      (await ok(`{ taxSettings { exemption(id: "${id}") { id } } }`)).taxSettings.exemption,
    ).toBeNull();
  });

  it('reads an approved certificate past its expiry as EXPIRED until renewed', async () => {
    const expired = await ok(
      '{ taxSettings { exemption(id: "txe_003") { status taxAreas { id } } } }',
    );
    expect(expired.taxSettings.exemption).toEqual({
      status: 'EXPIRED',
      taxAreas: [{ id: 'txa_002' }],
    });
    const next = new Date(Date.now() + 365 * 86_400_000).toISOString();
    const renewed = await ok(
      `mutation { renewExemption(id: "txe_003", expiresAt: "${next}") { status expiresAt } }`,
    );
    expect(renewed.renewExemption).toEqual({ status: 'APPROVED', expiresAt: next });
    expect(
      await codes(
        'mutation { renewExemption(id: "txe_002", expiresAt: "2999-01-01T00:00:00Z") { id } }',
      ),
    ).toEqual(['CONFLICT']); // PENDING
  });
});

describe('settings and registrations', () => {
  it('extracts tax from tax-inclusive prices, rounds as told, and resets', async () => {
    await ok(
      'mutation { updateTaxSettings(input: { pricesIncludeTax: true, roundingMode: DOWN }) { pricesIncludeTax } }',
    );
    const inclusive = await taxOf('txc_001');
    // 100.00 including 8.625 %: tax 7.94 (rounded down), taxable 92.06
    expect(inclusive).toMatchObject({
      taxTotal: { value: 794 },
      lines: [{ taxableAmount: { value: 9206 } }],
    });
    await ok(
      'mutation { setShippingTaxClassification(classificationId: "txc_004") { shippingClassification { id } } }',
    );
    const shipped = await ok(
      '{ calculateTax(input: { taxAreaId: "txa_001", currencyCode: "USD", shippingAmount: 1000, lines: [] }) { shipping { percentage tax { value } } } }',
    );
    expect(shipped.calculateTax.shipping).toEqual({ percentage: 0, tax: { value: 0 } }); // exempt class
    const reset = await ok(
      'mutation { resetTaxSettings { pricesIncludeTax roundingMode shippingClassification { id } defaultTaxArea { id } } }',
    );
    expect(reset.resetTaxSettings).toEqual({
      pricesIncludeTax: false,
      roundingMode: 'HALF_UP',
      shippingClassification: null,
      defaultTaxArea: { id: 'txa_001' },
    });
    expect(
      await codes(
        'mutation { setDefaultClassification(classificationId: "txc_999") { updatedAt } }',
      ),
    ).toEqual(['BAD_USER_INPUT']);
  });

  it('registers the store in an area once, and updates and deletes the registration', async () => {
    expect(
      await codes(
        'mutation { createTaxRegistration(input: { taxAreaId: "txa_001", registrationNumber: "X" }) { id } }',
      ),
    ).toEqual(['BAD_USER_INPUT']);
    const { createTaxRegistration } = await ok(
      'mutation { createTaxRegistration(input: { taxAreaId: "txa_003", registrationNumber: "OR-1" }) { id taxArea { id registration { registrationNumber } } } }',
    );
    expect(createTaxRegistration.taxArea).toEqual({
      id: 'txa_003',
      registration: { registrationNumber: 'OR-1' },
    });
    const id = createTaxRegistration.id;
    await ok(
      `mutation { updateTaxRegistration(input: { id: "${id}", registrationNumber: "OR-2" }) { id } }`,
    );
    const listed = await ok('{ taxSettings { registrations { registrationNumber } } }');
    expect(listed.taxSettings.registrations.map((r: any) => r.registrationNumber)).toContain(
      'OR-2',
    );
    await ok(`mutation { deleteTaxRegistration(id: "${id}") { deleted } }`);
    expect(
      (await ok('{ taxArea(id: "txa_003") { registration { id } } }')).taxArea.registration,
    ).toBeNull();
  });
});
