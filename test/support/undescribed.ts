/**
 * Every element of a schema a client sees without a description: types, fields, arguments, input
 * fields, enum values and (when asked) directives, named as `Type`, `Type.field`,
 * `Type.field(arg)`, `Enum.VALUE`, `@directive`. Built-in scalars and introspection types are left
 * out: graphql-js describes them.
 */
import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
  type GraphQLSchema,
} from 'graphql';

const blank = (text: string | null | undefined) => (text ?? '').trim() === '';

export function undescribedElements(
  schema: GraphQLSchema,
  options: { directives?: boolean } = {},
): string[] {
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
  if (options.directives) {
    for (const directive of schema.getDirectives()) {
      if (blank(directive.description)) undescribed.push(`@${directive.name}`);
    }
  }
  return undescribed;
}
