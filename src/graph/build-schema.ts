/**
 * The executable local schema: every SDL file under schema/ plus the resolvers of each domain.
 * The SDL is read from disk once at start-up (the same files codegen reads).
 */
import { readdir, readFile } from 'node:fs/promises';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type { GraphQLSchema } from 'graphql';
import type { Resolvers } from '../generated/resolvers.js';
import { certificateResolvers } from '../certificates/certificates.resolvers.js';
import { nodeResolvers } from './node.resolvers.js';
import { viewerResolvers } from './viewer.resolvers.js';

/** schema/ at the project root, from src/graph (tsx) or dist/graph (compiled). */
const SCHEMA_DIR = new URL('../../schema/', import.meta.url);

export async function loadTypeDefs(): Promise<string[]> {
  const files = (await readdir(SCHEMA_DIR)).filter((file) => file.endsWith('.graphql')).sort();
  return Promise.all(files.map((file) => readFile(new URL(file, SCHEMA_DIR), 'utf8')));
}

const scalarResolvers: Resolvers = { DateTime: DateTimeResolver, JSON: JSONResolver };

export async function buildLocalSchema(): Promise<GraphQLSchema> {
  return makeExecutableSchema({
    typeDefs: await loadTypeDefs(),
    resolvers: [scalarResolvers, nodeResolvers, viewerResolvers, certificateResolvers] as never,
  });
}
