/**
 * What `TRUST_PROXY` costs, said once (docs/deploy.md "Behind a load balancer"). The client's address
 * bounds the calls of tokens the upstream has not accepted yet (`upstream/budget/unproven-gate.ts`):
 * - unset while requests carry `X-Forwarded-For`: Weft is behind a proxy it does not believe, so
 *   every client behind it shares the proxy's address — logged at the first such request, once per
 *   process (the header's value is not logged);
 * - `true` (refused in production by `config.ts`): any client names its own address — logged at
 *   start-up.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';

export function registerProxyWarnings(app: FastifyInstance, config: Pick<Config, 'TRUST_PROXY'>) {
  if (config.TRUST_PROXY === 'true') {
    app.log.warn(
      'TRUST_PROXY=true: every X-Forwarded-For is believed, so any client can choose the address ' +
        "Weft bounds it by; set the balancer's addresses/CIDRs instead",
    );
    return;
  }
  if (config.TRUST_PROXY !== undefined) return;
  let warned = false;
  // A callback hook: an async one costs a promise on every request.
  app.addHook('onRequest', (request, _reply, done) => {
    if (warned || request.headers['x-forwarded-for'] === undefined) {
      done();
      return;
    }
    warned = true;
    request.log.warn(
      'X-Forwarded-For arrived but TRUST_PROXY is unset: every client behind that proxy shares its ' +
        "address, and so its room for tokens the upstream has not accepted yet; set TRUST_PROXY to the proxy's addresses/CIDRs",
    );
    done();
  });
}
