/** The value shapes the configuration's variables share: bounded integers, URLs, TTL overrides. */
import { z } from 'zod';

export const int = (min: number, max?: number) => {
  let schema = z.coerce.number().int().min(min);
  if (max !== undefined) schema = schema.max(max);
  return schema;
};

export const httpUrl = () =>
  z
    .string()
    .url()
    .refine((u) => /^https?:\/\//.test(u), 'must be an http(s) URL');

/**
 * `kind=seconds,kind=seconds` → a map. Only the form is checked here: the kinds are whatever the
 * domains' upstream route declarations name, which this bottom layer cannot see, so an unknown kind
 * is refused where those declarations meet the overrides (`createCachePolicy`, when the upstream
 * stack is built — still before the gateway listens).
 */
export const ttlOverrides = () =>
  z
    .string()
    .regex(
      /^[a-z0-9-]+=\d+(,[a-z0-9-]+=\d+)*$/,
      'must look like kind=seconds,kind=seconds (e.g. app=10,store=300)',
    )
    .transform((text): ReadonlyMap<string, number> => {
      const overrides = new Map<string, number>();
      for (const pair of text.split(',')) {
        const [kind = '', seconds = ''] = pair.split('=');
        overrides.set(kind, Number(seconds));
      }
      return overrides;
    });
