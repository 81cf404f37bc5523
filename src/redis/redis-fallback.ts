/**
 * The one way a Redis-backed store falls back to this process's memory: a command goes to Redis
 * while Redis is usable and answers; otherwise (or when it fails) the local version runs. The
 * switch is logged once each way, not once per command, so an outage does not flood the log.
 */
import type { FastifyBaseLogger } from 'fastify';

export interface RedisFallbackOptions {
  /** Whether Redis can take commands now (`RedisConnection.usable`). */
  readonly usable: () => Promise<boolean>;
  readonly logger: FastifyBaseLogger;
  /** Logged when the store leaves Redis, and when it is back. */
  readonly onDown: string;
  readonly onUp: string;
  /** Called once each time the store leaves Redis, before the local version first runs. */
  readonly leavingRedis?: () => void;
  /** Called once each time Redis answers again after the store left it. */
  readonly backOnRedis?: () => void;
}

export type RedisOrLocal = <T>(
  viaRedis: () => Promise<T>,
  viaLocal: () => Promise<T>,
) => Promise<T>;

export function createRedisFallback(options: RedisFallbackOptions): RedisOrLocal {
  let degraded = false;
  const note = (down: boolean, error?: unknown) => {
    if (down && !degraded) {
      options.leavingRedis?.();
      options.logger.warn(
        { err: error instanceof Error ? { message: error.message } : undefined },
        options.onDown,
      );
    } else if (!down && degraded) {
      options.backOnRedis?.();
      options.logger.info(options.onUp);
    }
    degraded = down;
  };
  return async (viaRedis, viaLocal) => {
    if (await options.usable()) {
      try {
        const result = await viaRedis();
        note(false);
        return result;
      } catch (error) {
        note(true, error);
        return viaLocal();
      }
    }
    note(true);
    return viaLocal();
  };
}
