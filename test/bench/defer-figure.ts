/**
 * The `@defer` figure (docs/clients.md "Incremental delivery"): a dashboard whose slow part is deferred, against a
 * gateway process and a simulator where one route is slow (deployments, held `SLOW_MS`) and every
 * other answers at once. Measured per run, cold (no cache): how long after the last fast call
 * answered the first part arrives (target ≤ 50 ms), how long after the last slow call answered the
 * last deferred part arrives (each app's fragment comes once its own slow call has answered: one
 * part or several), and, for the same query not deferred, how long after the last fast call
 * the whole answer arrives (it waits for the slow calls).
 */
import { createSimulator } from '../../src/simulator/simulator.ts';
import { freePort, startGatewayProcess } from '../support/gateway-process.ts';
import { postForParts, type ArrivedPart } from '../support/multipart-parts.ts';

const SLOW_MS = 300;
const FAST = 'appId name status urls { publish } runtimeStatus { __typename }';
const SLOW = 'deployments(limit: 3) { __typename }';
const DEFERRED = `query Dashboard { apps { ${FAST} ... @defer { ${SLOW} } } }`;
const WHOLE = `query Dashboard { apps { ${FAST} ${SLOW} } }`;
const HEADERS = {
  authorization: 'Bearer demo-token',
  accept: 'multipart/mixed;deferSpec=20220824,application/graphql-response+json;q=0.9',
};

export interface DeferFigures {
  /** First part after the last fast call answered, ms, per run. */
  readonly firstAfterFast: number[];
  /** Last deferred part after the last slow call answered, ms, per run. */
  readonly deferredAfterSlow: number[];
  /** Whole answer (not deferred) after the last fast call answered, ms, per run. */
  readonly wholeAfterFast: number[];
}

const isSlow = (url: string) => url.split('?')[0]!.endsWith('/deployments');

export async function measureDefer(runs: number): Promise<DeferFigures> {
  let answers: { slow: boolean; at: number }[] = [];
  const simulator = await createSimulator({
    latencyMs: 0,
    rateLimit: 1_000_000_000,
    rateWindowSec: 1399,
    onArrival: async ({ url }) => {
      if (isSlow(url)) await new Promise((resolve) => setTimeout(resolve, SLOW_MS));
    },
    onAnswered: ({ url }) => {
      answers.push({ slow: isSlow(url), at: performance.now() });
    },
  });
  const simUrl = await simulator.listen(0);
  const gateway = await startGatewayProcess(
    {
      UPSTREAM_URL: simUrl,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      UPSTREAM_RATE_LIMIT: '1000000000',
      UPSTREAM_CACHE: 'off',
      RESPONSE_CACHE: 'false',
      PORT: String(await freePort()),
    },
    120_000,
  );
  const lastOf = (slow: boolean) =>
    Math.max(...answers.filter((answer) => answer.slow === slow).map((answer) => answer.at));
  const figures: DeferFigures = { firstAfterFast: [], deferredAfterSlow: [], wholeAfterFast: [] };
  try {
    // One of each first: the gateway's code paths warm, as on a replica that has served before.
    for (let run = -1; run < runs; run += 1) {
      answers = [];
      const deferred = await postForParts(`${gateway.url}/graphql`, { query: DEFERRED }, HEADERS);
      const parts = await deferred.parts;
      if (parts.length < 2) {
        throw new Error(
          `@defer answered ${parts.length} part, not 2 or more: ${JSON.stringify(parts[0]?.body).slice(0, 300)}`,
        );
      }
      const first = parts[0]!;
      const last = parts.at(-1)!;
      const fastDone = lastOf(false);
      const slowDone = lastOf(true);
      answers = [];
      const whole = await postForParts(`${gateway.url}/graphql`, { query: WHOLE }, HEADERS);
      const [answer] = (await whole.parts) as [ArrivedPart];
      if (run < 0) continue;
      figures.firstAfterFast.push(first.at - fastDone);
      figures.deferredAfterSlow.push(last.at - slowDone);
      figures.wholeAfterFast.push(answer.at - lastOf(false));
    }
  } finally {
    await gateway.stop();
    await simulator.close();
  }
  return figures;
}
