import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../sim-context.js';

// Placeholder: filled in by the hosting simulator work.
export async function registerHostingRoutes(_app: FastifyInstance, _ctx: SimContext): Promise<void> {}
