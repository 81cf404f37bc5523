/**
 * Structured JSON logs (pino). Credentials and cookies are redacted wherever they appear, and request
 * URLs are logged without their query string (GET operations may carry variables).
 */
import pino, { type Logger } from 'pino';
import type { Config } from '../config.ts';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'authorization',
  'cookie',
  'token',
  'hmacKey',
  'variables',
];

export function createLogger(
  config: Pick<Config, 'LOG_LEVEL'>,
  destination?: pino.DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    level: config.LOG_LEVEL,
    base: { service: 'weft' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: {
      req: (req: { method?: string; url?: string; id?: string }) => ({
        id: req.id,
        method: req.method,
        path: req.url?.split('?')[0],
      }),
    },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  // stdout written asynchronously: lines logged while a write is under way go out together in the
  // next one, off the event loop; pino flushes what is left when the process exits.
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}
