/**
 * GET /apps/{appId}/logs?target=&source=&since=&lines=. `total` counts every entry matching target,
 * source and since; `logs` holds the newest `lines` of them in chronological order.
 */
import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../../sim-context.ts';
import { LOG_SOURCES, VARIANT_NAMES } from '../../fixtures/hosting.fixtures.ts';
import { findApp } from './hosting-access.lookup.ts';
import {
  boundedInteger,
  FieldErrors,
  oneOf,
  requiredQueryParam,
} from './hosting-fields.validation.ts';
import { routeOf } from './hosting-operations.config.ts';

export const LOG_LINES = { min: 1, max: 500, fallback: 100 } as const;

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
const RELATIVE = /^(\d{1,9})([smhd])$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `since` as epoch ms: an RFC 3339 timestamp, or a duration back from now (`15m`, `2h`, `7d`). */
export function parseSince(value: string, now: number): number | undefined {
  const relative = RELATIVE.exec(value);
  if (relative) {
    const unit = relative[2] as keyof typeof UNIT_MS;
    return now - Number(relative[1]) * UNIT_MS[unit];
  }
  const match = RFC3339.exec(value);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as number[];
  const calendar = new Date(Date.UTC(year ?? 0, (month ?? 1) - 1, day ?? 1));
  const validDate = calendar.getUTCMonth() === (month ?? 0) - 1 && calendar.getUTCDate() === day;
  if (!validDate || (hour ?? 0) > 23 || (minute ?? 0) > 59 || (second ?? 0) > 60) return undefined;
  const ms = Date.parse(value.replace(' ', 'T'));
  return Number.isNaN(ms) ? undefined : ms;
}

export function registerLogRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.route({
    ...routeOf('GET /apps/{appId}/logs'),
    handler: async (request) => {
      const record = findApp(ctx, request);
      const { query } = request;
      const errors = new FieldErrors('query');
      const target = oneOf(
        requiredQueryParam(query, 'target', errors),
        VARIANT_NAMES,
        '$.target',
        errors,
      );
      const source = oneOf(
        requiredQueryParam(query, 'source', errors),
        LOG_SOURCES,
        '$.source',
        errors,
      );
      const sinceText = requiredQueryParam(query, 'since', errors);
      const since = sinceText === undefined ? undefined : parseSince(sinceText, ctx.now());
      if (sinceText !== undefined && since === undefined) {
        errors.add(
          '$.since',
          'INVALID_FORMAT',
          'since must be an RFC 3339 timestamp or a duration such as 30s, 15m, 2h, 7d',
        );
      }
      const lines = boundedInteger(query, 'lines', LOG_LINES, errors);
      errors.throwIfAny();

      const matching = record.logs
        .filter(
          (entry) => entry.target === target && entry.source === source && entry.at >= (since ?? 0),
        )
        .sort((a, b) => a.at - b.at);
      return {
        logs: matching.slice(-lines).map((entry) => ({
          timestamp: new Date(entry.at).toISOString(),
          source: entry.source,
          message: entry.message,
          level: entry.level,
        })),
        total: matching.length,
      };
    },
  });
}
