import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../sim-context.js';

export async function registerCertificateRoutes(_app: FastifyInstance, _ctx: SimContext): Promise<void> {}
