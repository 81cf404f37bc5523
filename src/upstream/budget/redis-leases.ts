/**
 * The shared side of token leases (docs/budget.md "Across replicas: leases"): ONE Lua script grants
 * a replica a slice of a credential's bucket, settles what it gives back, and folds in the upstream
 * answers it reports — one run per lease, not per call. It mirrors the pure policy of
 * `lease-policy.ts` (`leaseOf`, `grantOf`, `settledTokens`, `correctedShared`, `tokensAtReset`), on
 * Redis's clock.
 *
 * Keys, in the credential's slot (its HMAC id as the hash tag; no token, no secret):
 * - `<prefix>:bucket:{<credentialId>}`: hash {tokens, ts, resetAt, cap, freshUntil, drain, drainAt,
 *   epoch, probeUntil} — `tokens` is what no replica holds; `epoch` counts the windows, so a lease
 *   granted in an earlier window settles for nothing; `probeUntil` holds the others back while a
 *   stale view's one call (the probe) is out;
 * - `<prefix>:leases:{<credentialId>}`: hash, one field per replica: "held endsAt demand".
 *
 * The invariant: `tokens` plus every replica's held tokens is never more than the bucket had. On a
 * cluster a grant is spent once a replica has it (`replica-acknowledgement.ts`); a record lost
 * otherwise (Redis back empty) is re-registered by its holder's next run (its held tokens are taken
 * from `tokens` again), and what was spent meanwhile comes off with the upstream answers it reports
 * (`remaining` less what the reporter still holds or has in flight).
 */
import type { RedisClient } from '../../redis/redis-connection.ts';
import { redisScript } from '../../redis/redis-script.ts';
import { LEASE_LUA } from './lease-script.ts';
import { DEFAULT_LEASE_CONFIG, type LeaseConfig } from './lease-policy.ts';
import type { ReplicaAcknowledgement } from '../../redis/replica-acknowledgement.ts';
import { redisKeys } from '../../redis/redis-keys.ts';

const LEASE_SCRIPT = redisScript(LEASE_LUA);

/** The upstream answer a replica reports with its next run. */
export interface ReportedAnswer {
  readonly limit?: number;
  readonly remaining?: number;
  /** `RateLimit-Reset`, ms from when the run is sent. */
  readonly resetMs?: number;
  /** A 429 of the credential's window: nothing for this long, from when the run is sent. */
  readonly blockMs?: number;
  /** The reporter's tokens the upstream had not counted when it answered: held and in flight. */
  readonly outstanding: number;
}

/** One run: a lease request, a renewal, a give-back (ask 0), or a report. */
export interface LeaseRun {
  readonly ask: number;
  readonly demandPerSec: number;
  /** What the asker holds unspent: of its live lease, or of its ended one (to settle). */
  readonly held: number;
  readonly live: boolean;
  /** The tokens the asking call's priority must leave. */
  readonly floor: number;
  readonly waiting: number;
  readonly durationMs: number;
  /** Tokens it spent out of what an earlier run took back (a give-back crossed by a call). */
  readonly debt: number;
  /** Its probe ended without an answer that confirms the view: the next call may probe. */
  readonly probeEnded?: boolean;
  readonly answer?: ReportedAnswer;
}

/** The script's answer. */
export interface LeaseReply {
  readonly grant: number;
  /** Of what the asker held, what its lease keeps (the rest went back). */
  readonly carried: number;
  /** What no replica holds, after the run. */
  readonly sharedLeft: number;
  readonly cap: number;
  /** Until the window's end (or the bucket is full again), ms. */
  readonly resetMs: number;
  readonly durationMs: number;
  /** An upstream answer confirmed the view lately. */
  readonly fresh: boolean;
  /**
   * What the other replicas' records hold: their leases' tokens not reported spent, ended leases'
   * included (those come back when their holders settle them, at their next run or a recall).
   */
  readonly othersHeld: number;
  /** Until a token above the asker's floor is free in the shared bucket (ms; 0: now). */
  readonly waitMs: number;
  /** Nothing granted: the view is stale and another call is out as its probe; wait for its answer. */
  readonly probing: boolean;
}

export interface RedisLeasesOptions {
  readonly client: RedisClient;
  readonly prefix: string;
  readonly capacity: number;
  readonly windowMs: number;
  /** The write reserve's share of the window (reads' floor). */
  readonly writeReserveShare: number;
  readonly staleAfterMs: number;
  /** How long a stale view's probe holds the others back without an answer (a call's lease). */
  readonly probeMs: number;
  /** This replica's name in the leases hash (unique per process). */
  readonly replica: string;
  /** A test's clock; default Redis's `TIME`. */
  readonly now?: () => number;
  readonly config?: LeaseConfig;
  /**
   * On a Redis Cluster: waits until a replica has a grant before it is spent, so a failover cannot
   * lose it and grant the same tokens again (`replica-acknowledgement.ts`).
   */
  readonly replicated?: ReplicaAcknowledgement;
}

export interface RedisLeases {
  lease(credentialId: string, run: LeaseRun): Promise<LeaseReply>;
  /** The shared bucket as it stands (nothing written). */
  peek(credentialId: string): Promise<LeaseReply>;
}

type Reply = number[];

export function createRedisLeases(options: RedisLeasesOptions): RedisLeases {
  const { client, prefix } = options;
  const config = options.config ?? DEFAULT_LEASE_CONFIG;
  const num = (value: number | undefined) => (value === undefined ? '-1' : String(value));

  const run = async (op: 'lease' | 'peek', credentialId: string, lease: LeaseRun) => {
    const keys = [redisKeys.bucket(prefix, credentialId), redisKeys.leases(prefix, credentialId)];
    const answer = lease.answer;
    const args = [
      op,
      String(options.capacity),
      String(options.windowMs),
      options.replica,
      String(lease.ask),
      String(lease.demandPerSec),
      String(lease.held),
      lease.live ? '1' : '0',
      String(lease.floor),
      String(lease.waiting),
      String(Math.round(lease.durationMs)),
      num(answer?.limit),
      num(answer?.remaining),
      num(answer?.resetMs === undefined ? undefined : Math.max(0, Math.round(answer.resetMs))),
      num(answer?.blockMs === undefined ? undefined : Math.max(1, Math.round(answer.blockMs))),
      String(answer?.outstanding ?? 0),
      String(options.writeReserveShare),
      String(options.staleAfterMs),
      options.now ? String(Math.floor(options.now())) : '',
      String(lease.debt),
      String(config.minLeaseMs),
      String(config.maxLeaseMs),
      String(config.singlesBelowPerHolder),
      String(config.maxShareOfFree),
      String(config.graceMs),
      String(config.demandTauMs),
      String(config.poolTimeShare),
      String(options.probeMs),
      answer ? '1' : '0',
      lease.probeEnded ? '1' : '0',
    ];
    const reply = (await LEASE_SCRIPT.run(client, keys, args)) as Reply;
    // Spent only once a replica has it: a failover would otherwise lose the grant and give the
    // same tokens to another replica.
    if (op === 'lease' && Number(reply[0]) > 0) await options.replicated?.(keys[0]!);
    return {
      grant: Number(reply[0]),
      carried: Number(reply[1]),
      sharedLeft: Number(reply[2]),
      cap: Number(reply[3]),
      resetMs: Number(reply[4]),
      durationMs: Number(reply[5]),
      fresh: Number(reply[6]) === 1,
      othersHeld: Number(reply[7]),
      waitMs: Number(reply[8]),
      probing: Number(reply[9]) === 1,
    };
  };

  const nothing: LeaseRun = {
    ask: 0,
    demandPerSec: 0,
    held: 0,
    live: false,
    floor: 0,
    waiting: 0,
    durationMs: 0,
    debt: 0,
  };
  return {
    lease: (credentialId, lease) => run('lease', credentialId, lease),
    peek: (credentialId) => run('peek', credentialId, nothing),
  };
}
