/**
 * Every field that may call the upstream declares its call bound (docs/budget.md), so a new field
 * cannot be added without one; and every list below which calls can happen declares its items.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  defaultFieldResolver,
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  type GraphQLSchema,
} from 'graphql';
import type { StitchingInfo } from '@graphql-tools/delegate';
import { buildGatewaySchema } from '../../../src/graph/build-schema.ts';
import { localSdlDocuments } from '../../../src/kit/local-sdl.ts';
import { localNames } from '../../../src/stitching/name-collisions.ts';
import { callBounds } from '../../../src/graph/call-bounds.ts';
import { resolverInside } from '../../../src/graph/ledger-paths.ts';

let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await buildGatewaySchema();
  localTypes = new Set(localNames(localSdlDocuments()).objectFields.keys());
});

/**
 * Types a stitched subgraph defines (other than the root types): their fields are answered from the
 * subgraph's result, within the request that fetched their parent.
 */
function fromSubgraph(typeName: string): boolean {
  const stitching = schema.extensions['stitchingInfo'] as StitchingInfo | undefined;
  const roots = [schema.getQueryType(), schema.getMutationType()].map((type) => type?.name);
  if (roots.includes(typeName)) return false;
  return (stitching?.mergedTypes[typeName]?.typeMaps.size ?? 0) > 0 && !localTypes.has(typeName);
}
let localTypes: Set<string>;

/** `Type.field` of every field whose resolver is not graphql's default (a property read). */
function resolvedFields(): string[] {
  const fields: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    if (type === schema.getSubscriptionType()) continue; // polls, bounded per event elsewhere
    if (fromSubgraph(type.name)) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = resolverInside(field.resolve);
      if (resolve && resolve !== defaultFieldResolver) fields.push(`${type.name}.${field.name}`);
    }
  }
  return fields.sort();
}

describe('call-bound declarations', () => {
  it('cover every field a resolver answers', () => {
    const declared = callBounds();
    expect(resolvedFields().filter((field) => !(field in declared))).toEqual([]);
  });

  it('name only fields of the schema', () => {
    const missing = Object.keys(callBounds()).filter((key) => {
      const [typeName, fieldName] = key.split('.');
      const type = schema.getType(typeName!);
      return !isObjectType(type) || !type.getFields()[fieldName!];
    });
    expect(missing).toEqual([]);
  });

  it('size every list below which a call can happen', () => {
    const declared = callBounds();
    const calling = new Set(
      Object.entries(declared)
        .filter(([, bound]) => bound.calls !== 0)
        .map(([key]) => key.split('.')[0]!),
    );
    // Types from which a calling field can be reached.
    const reaches = new Map<string, boolean>();
    const reachesCall = (typeName: string, seen = new Set<string>()): boolean => {
      if (reaches.has(typeName)) return reaches.get(typeName)!;
      if (seen.has(typeName)) return false;
      seen.add(typeName);
      const type = schema.getType(typeName);
      let result = calling.has(typeName);
      if (!result && isObjectType(type)) {
        result = Object.values(type.getFields()).some((field) =>
          reachesCall(getNamedType(field.type).name, seen),
        );
      }
      reaches.set(typeName, result);
      return result;
    };
    // Connections: types returned by a field that declares items; their own lists (edges, nodes)
    // are sized by it (the estimator's walk hands the connection's items to the lists below it).
    const sizedByConnection = new Set<string>();
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        const bound = declared[`${type.name}.${field.name}`];
        if (bound?.items !== undefined && !isListType(getNullableType(field.type))) {
          sizedByConnection.add(getNamedType(field.type).name);
        }
      }
    }
    const unsized: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        if (!isListType(getNullableType(field.type))) continue;
        if (!reachesCall(getNamedType(field.type).name)) continue;
        const key = `${type.name}.${field.name}`;
        // Sized by itself, or by the connection field that leads to its type.
        if (declared[key]?.items !== undefined || sizedByConnection.has(type.name)) continue;
        unsized.push(key);
      }
    }
    expect(unsized.sort()).toEqual([]);
  });
});
