/**
 * The public schema documents itself: every type, field, argument, input field and enum value the
 * gateway serves — local, stitched from the subgraphs, or added by stitching (`Store` fields) — has
 * a description, as the explorer and generated clients show it. (The SDL lint in `npm run check`
 * catches a missing description in schema/ earlier; this catches what the build adds.)
 */
import { describe, expect, it } from 'vitest';
import { buildGatewaySchema } from '../../../src/graph/build-schema.ts';
import { undescribedElements } from '../../support/undescribed.ts';

describe('the public schema', () => {
  it('describes every type, field, argument, input field, enum value and directive', async () => {
    const schema = await buildGatewaySchema();
    expect(undescribedElements(schema, { directives: true })).toEqual([]);
  });
});
