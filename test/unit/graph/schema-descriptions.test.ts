/**
 * The public schema documents itself: every type, field, argument, input field and enum value the
 * gateway serves — local, stitched from the subgraphs, or added by stitching (`Store` fields) — has
 * a description, as the explorer and generated clients show it. (The SDL lint in `npm run check`
 * catches a missing description in schema/ earlier; this catches what the build adds.)
 */
import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildGatewaySchema } from '../../../src/graph/build-schema.ts';

const blank = (text: string | null | undefined) => (text ?? '').trim() === '';

describe('the public schema', () => {
  it('describes every type, field, argument, input field and enum value', async () => {
    const schema = await buildGatewaySchema();
    const undescribed: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
      if (blank(type.description)) undescribed.push(type.name);
      if (isObjectType(type) || isInterfaceType(type)) {
        for (const field of Object.values(type.getFields())) {
          if (blank(field.description)) undescribed.push(`${type.name}.${field.name}`);
          for (const arg of field.args) {
            if (blank(arg.description)) undescribed.push(`${type.name}.${field.name}(${arg.name})`);
          }
        }
      } else if (isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          if (blank(field.description)) undescribed.push(`${type.name}.${field.name}`);
        }
      } else if (isEnumType(type)) {
        for (const value of type.getValues()) {
          if (blank(value.description)) undescribed.push(`${type.name}.${value.name}`);
        }
      }
    }
    for (const directive of schema.getDirectives()) {
      if (blank(directive.description)) undescribed.push(`@${directive.name}`);
    }
    expect(undescribed).toEqual([]);
  });
});
