/**
 * Every Redis key and channel Weft uses, built here and nowhere else, each with what it holds: the
 * reference (docs/redis-keys.md, `npm run docs:keys`) is generated from this file, so the
 * documented layout is the one the code writes.
 *
 * A Redis Cluster spreads keys over its slots by the part in braces (the hash tag) when there is
 * one, and a script or a multi-key command may only touch keys of one slot: every group of keys
 * touched together shares a tag — the credential's HMAC id for a credential's keys, the route
 * class's name for a class the whole gateway shares. A key without a tag is read and written one
 * key per command. No key carries a token or a request value: a credential appears as its HMAC id,
 * a request as a digest.
 */
import { createHash } from 'node:crypto';

/** The part of a key that picks its slot on a cluster: keys with the same tag share a slot. */
export const hashTag = (id: string): string => `{${id}}`;

/**
 * The slot part of a route class's keys: a class the gateway shares is tagged by its name, a
 * class each credential has for itself by the credential (so it joins the credential's slot).
 */
export const routeClassTag = (
  name: string,
  credentialId: string,
  perCredential: boolean,
): string => (perCredential ? `${name}:${hashTag(credentialId)}` : hashTag(name));

/** A watched resource's key, as a digest: the key names ids the key layout need not show. */
export const watchDigest = (watchKey: string): string =>
  createHash('sha256').update(watchKey).digest('hex').slice(0, 32);

const watchBase = (prefix: string, credentialId: string, digest: string) =>
  `${prefix}:watch:${hashTag(credentialId)}:${digest}`;

/** Each key's builder; `prefix` is `REDIS_KEY_PREFIX`, shared by the replicas of one deployment. */
export const redisKeys = {
  bucket: (prefix: string, credentialId: string) => `${prefix}:bucket:${hashTag(credentialId)}`,
  leases: (prefix: string, credentialId: string) => `${prefix}:leases:${hashTag(credentialId)}`,
  leasesRecall: (prefix: string) => `${prefix}:leases:recall`,
  routeClass: (prefix: string, classTag: string) => `${prefix}:class:${classTag}`,
  routeClassFair: (prefix: string, classTag: string) => `${prefix}:class:${classTag}:fair`,
  routeClassCredential: (prefix: string, classTag: string, credentialId: string) =>
    `${prefix}:class:${classTag}:credential:${credentialId}`,
  routeClassBlock: (prefix: string, classTag: string) => `${prefix}:class-block:${classTag}`,
  routeClassUnproven: (prefix: string, classTag: string) => `${prefix}:class-unproven:${classTag}`,
  proven: (prefix: string, credentialId: string) => `${prefix}:proven:${hashTag(credentialId)}`,
  cacheEntries: (prefix: string) => `${prefix}:cache`,
  cacheTags: (prefix: string) => `${prefix}:tag`,
  flight: (prefix: string, credentialId: string, cacheKey: string) =>
    `${prefix}:flight:${hashTag(credentialId)}:${cacheKey}`,
  flightDone: (prefix: string) => `${prefix}:flight:done`,
  watchLease: (prefix: string, credentialId: string, digest: string) =>
    `${watchBase(prefix, credentialId, digest)}:lease`,
  watchLatest: (prefix: string, credentialId: string, digest: string) =>
    `${watchBase(prefix, credentialId, digest)}:latest`,
  watchEvents: (prefix: string, credentialId: string, digest: string) =>
    `${watchBase(prefix, credentialId, digest)}:events`,
  replays: (prefix: string, credentialId: string) => `${prefix}:replays:${hashTag(credentialId)}`,
  quota: (prefix: string, name: string, credentialId: string) =>
    `${prefix}:quota:${name}:${hashTag(credentialId)}`,
  idempotency: (prefix: string, digest: string) => `${prefix}:idempotency:${digest}`,
  persisted: (prefix: string) => `${prefix}:persisted`,
  epoch: (prefix: string) => `${prefix}:epoch`,
} as const;

type Parts<Name extends keyof typeof redisKeys> =
  Parameters<(typeof redisKeys)[Name]> extends [string, ...infer Rest] ? Rest : never;

/** One key's line in the reference. */
export interface RedisKeyDescription<Name extends keyof typeof redisKeys = keyof typeof redisKeys> {
  /** What stands for each part of the key after the prefix, in the reference. */
  readonly parts: Parts<Name>;
  /**
   * A keyv namespace: what keyv appends to the name (its separator and the entry's key), so that
   * the reference shows a whole key.
   */
  readonly entries?: string;
  readonly channel?: true;
  readonly holds: string;
}

const CREDENTIAL = '<credential id>';
const CLASS = hashTag('<class>');
const OWN_CLASS = '<class>:{<credential id>}';

/** What each key holds, one line each: the rows of docs/redis-keys.md, in this order. */
export const REDIS_KEY_DESCRIPTIONS: {
  readonly [Name in keyof typeof redisKeys]: RedisKeyDescription<Name>;
} = {
  bucket: {
    parts: [CREDENTIAL],
    holds: "a credential's shared bucket: what no replica holds (hash)",
  },
  leases: {
    parts: [CREDENTIAL],
    holds:
      "each replica's lease of the credential's bucket: `held end demand`, one field per replica (hash)",
  },
  leasesRecall: {
    parts: [],
    channel: true,
    holds:
      'a credential id, or `class:<class>`: a replica was refused for what the others hold, which they give back',
  },
  routeClass: {
    parts: [CLASS],
    holds:
      "a shared route class's calls of the last window, and places leased for calls to come (sorted set); a class of a credential's own: `<class>:{<credential id>}`",
  },
  routeClassFair: {
    parts: [OWN_CLASS],
    holds: "a credential's own class's fair share: named in its script's keys, never written",
  },
  routeClassCredential: {
    parts: [CLASS, CREDENTIAL],
    holds: "one credential's calls in a shared route class (its fair share)",
  },
  routeClassBlock: {
    parts: [CLASS],
    holds: "set while a route class's own 429 lasts",
  },
  routeClassUnproven: {
    parts: [CLASS],
    holds: "a route class's calls in flight for never-answered tokens",
  },
  proven: {
    parts: [CREDENTIAL],
    holds: 'set once the upstream has accepted the credential, for every replica',
  },
  cacheEntries: {
    parts: [],
    entries: '::<credential id>:<kind>:<digest>',
    holds: 'an upstream answer (JSON), its TTL plus the stale bound (keyv)',
  },
  cacheTags: {
    parts: [],
    entries: '::<tag>',
    holds: "a cache tag's version (keyv)",
  },
  flight: {
    parts: [CREDENTIAL, '<cache key>'],
    holds: 'the lease of the replica fetching a missed entry for the others, then `done:<outcome>`',
  },
  flightDone: {
    parts: [],
    channel: true,
    holds: "`<outcome> <cache key>` when a replica's fetch for the others ends",
  },
  watchLease: {
    parts: [CREDENTIAL, '<digest>'],
    holds: 'which replica polls a watched resource, renewed by its holder',
  },
  watchLatest: {
    parts: [CREDENTIAL, '<digest>'],
    holds: "the watch's last state or error announced (JSON), for replicas that join late",
  },
  watchEvents: {
    parts: [CREDENTIAL, '<digest>'],
    channel: true,
    holds: "each announcement of a watch, and its holder's release",
  },
  replays: {
    parts: [CREDENTIAL],
    holds: 'the replays a credential holds (sorted set)',
  },
  quota: {
    parts: ['<name>', CREDENTIAL],
    holds: "a per-credential quota's count (`apq`)",
  },
  idempotency: {
    parts: ['<digest>'],
    holds: 'an idempotency record: pending with its owner, then the answer (JSON)',
  },
  persisted: {
    parts: [],
    entries: ':apq:<sha256>',
    holds: 'an APQ document (keyv)',
  },
  epoch: {
    parts: [],
    holds: 'a random id: its change means Redis lost its data',
  },
};
