import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../sim-context.js';

// Placeholder: filled in by the commerce simulator work.
export async function registerSubgraphRoutes(_app: FastifyInstance, _ctx: SimContext): Promise<void> {}
