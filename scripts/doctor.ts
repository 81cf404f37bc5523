/**
 * `npm run doctor`: before pointing Weft at the provider, checks a Personal Access Token against
 * `UPSTREAM_URL` with at most {@link MAX_CALLS} read calls (one per read scope the graph uses) and
 * says which parts of the graph will work, which scope is missing for the rest, and how much of the
 * token's budget is left (docs/provider.md "Check the token"). It never writes: the write scopes
 * are listed, not checked (no read can prove them, and a write may change the account).
 *
 *   WEFT_TOKEN=… UPSTREAM_URL=https://… npm run doctor [-- --store <storeId>] [--app <appId>]
 *
 * The token comes from `WEFT_TOKEN` (or `--token`, which other users of the machine can see in the
 * process list); it is sent to UPSTREAM_URL only and never printed. Exit code: 0 when every read
 * works, 1 when a scope is missing, the token is refused or the URL does not answer as the provider,
 * 2 on a usage error (nothing called).
 *
 * Each probe is a read Weft itself makes, with the smallest page: the provider answers it with the
 * scope check any field on that route meets. A probe that needs an id (an app's logs, a store's
 * customers) takes it from an earlier answer or from `--app` / `--store`; without one it is not
 * checked, and says so.
 */
import { CERTIFICATE_ROUTES } from '../src/certificates/certificates.upstream-routes.ts';
import { COMMERCE_ROUTES } from '../src/commerce/commerce.upstream-routes.ts';
import { loadDoctorEnvironment, type DoctorEnvironment } from '../src/config.ts';
import { fieldScopes, type FieldScope } from '../src/graph/field-routes.ts';
import { upstreamRoutes } from '../src/graph/upstream-routes.ts';
import { HOSTING_ROUTES } from '../src/hosting/hosting.upstream-routes.ts';
import {
  CATALOG_SUBGRAPH,
  ORDER_SUBGRAPH,
  TAX_SUBGRAPH,
} from '../src/stitching/remote-subgraphs.ts';

const USAGE = `usage: WEFT_TOKEN=<token> UPSTREAM_URL=<provider API base> npm run doctor [-- options]
options:
  --url <base>     the provider's API base (default: UPSTREAM_URL)
  --token <token>  the Personal Access Token (default: WEFT_TOKEN; prefer the variable: an
                   argument shows in the process list)
  --store <id>     a commerce store to check the store scopes on (default: the first store of
                   the first channels)
  --app <id>       an app to check hosting.paas.logs:read on (default: the first app)`;

/** The read calls a run spends at most: one per probe (10). */
export const MAX_CALLS = 10;
const TIMEOUT_MS = 10_000;

type Part = 'certificates' | 'hosting' | 'commerce' | 'stitched subgraphs';

interface Found {
  storeId?: string;
  appId?: string;
}

interface Probe {
  readonly part: Part;
  readonly method: 'GET' | 'POST';
  readonly route: string;
  /** Absent: the probe cannot run (it says why). */
  readonly request: (found: Found) =>
    | {
        readonly path: string;
        readonly headers?: Record<string, string>;
        readonly body?: unknown;
      }
    | { readonly skip: string };
  /** What the answer tells the next probes. */
  readonly learn?: (body: unknown, found: Found) => void;
}

const fill = (route: string, params: Record<string, string>): string =>
  route.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
const withQuery = (path: string, query: Record<string, string>): string =>
  `${path}?${new URLSearchParams(query).toString()}`;
const TYPENAME_QUERY = { query: 'query WeftDoctor { __typename }', operationName: 'WeftDoctor' };
const items = (body: unknown, key: string): unknown[] => {
  const list = (body as Record<string, unknown> | null)?.[key];
  return Array.isArray(list) ? list : [];
};

const PROBES: readonly Probe[] = [
  {
    part: 'certificates',
    method: 'GET',
    route: CERTIFICATE_ROUTES.subscriptionSearch,
    request: () => ({ path: withQuery(CERTIFICATE_ROUTES.subscriptionSearch, { pageSize: '1' }) }),
  },
  {
    part: 'hosting',
    method: 'GET',
    route: HOSTING_ROUTES.apps,
    request: () => ({ path: HOSTING_ROUTES.apps }),
    learn: (body, found) => {
      const id = (items(body, 'apps')[0] as { id?: unknown } | undefined)?.id;
      if (found.appId === undefined && typeof id === 'string') found.appId = id;
    },
  },
  {
    part: 'hosting',
    method: 'GET',
    route: HOSTING_ROUTES.logs,
    request: ({ appId }) => {
      if (appId === undefined) return { skip: 'no app to read the logs of (give --app)' };
      const since = new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
      return {
        path: withQuery(fill(HOSTING_ROUTES.logs, { appId }), {
          target: 'preview',
          source: 'app',
          since,
          lines: '1',
        }),
      };
    },
  },
  {
    part: 'commerce',
    method: 'GET',
    route: COMMERCE_ROUTES.channels,
    request: () => ({ path: withQuery(COMMERCE_ROUTES.channels, { limit: '20' }) }),
    learn: (body, found) => {
      if (found.storeId !== undefined) return;
      for (const channel of items(body, 'items')) {
        const store = items(channel, 'registeredStores')[0] as { storeId?: unknown } | undefined;
        if (typeof store?.storeId === 'string') {
          found.storeId = store.storeId;
          return;
        }
      }
    },
  },
  ...(
    [
      [COMMERCE_ROUTES.store, {}],
      [COMMERCE_ROUTES.customers, { limit: '1' }],
      [COMMERCE_ROUTES.transactions, { pageSize: '1' }],
    ] as const
  ).map(([route, query]): Probe => ({
    part: 'commerce',
    method: 'GET',
    route,
    request: ({ storeId }) =>
      storeId === undefined
        ? { skip: 'no store to read (give --store)' }
        : { path: withQuery(fill(route, { storeId }), query) },
  })),
  ...[CATALOG_SUBGRAPH, TAX_SUBGRAPH].map((subgraph): Probe => ({
    part: 'stitched subgraphs',
    method: 'POST',
    route: subgraph.route,
    request: ({ storeId }) =>
      storeId === undefined
        ? { skip: 'no store to query (give --store)' }
        : {
            path: fill(subgraph.route, { storeId }),
            headers: { 'x-store-id': storeId },
            body: TYPENAME_QUERY,
          },
  })),
  {
    part: 'stitched subgraphs',
    method: 'POST',
    route: ORDER_SUBGRAPH.route,
    request: () => ({ path: ORDER_SUBGRAPH.route, body: TYPENAME_QUERY }),
  },
];

interface Options {
  readonly base: string;
  readonly token: string;
  readonly tokenFrom: string;
  readonly storeId: string | undefined;
  readonly appId: string | undefined;
}

class UsageError extends Error {}

function optionsOf(argv: readonly string[], env: DoctorEnvironment): Options {
  const given = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 1) {
    const name = argv[i]!;
    if (name === '--help' || name === '-h') throw new UsageError('');
    if (!['--url', '--token', '--store', '--app'].includes(name)) {
      throw new UsageError(`unknown argument ${JSON.stringify(name)}`);
    }
    const value = argv[i + 1];
    if (value === undefined || value === '') throw new UsageError(`${name} needs a value`);
    given.set(name, value);
    i += 1;
  }
  const base = given.get('--url') ?? env.UPSTREAM_URL ?? '';
  if (base === '') throw new UsageError('UPSTREAM_URL is not set (nor --url)');
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new UsageError(`UPSTREAM_URL is not a URL: ${JSON.stringify(base)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`UPSTREAM_URL must be an http(s) URL, not ${url.protocol}`);
  }
  const fromArgument = given.get('--token');
  const token = fromArgument ?? env.WEFT_TOKEN ?? '';
  if (token === '') throw new UsageError('no token: set WEFT_TOKEN (or --token)');
  // A bearer token is token68 (RFC 7235): anything else would not make a valid header.
  if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(token)) {
    throw new UsageError('the token has characters a bearer token cannot have (RFC 7235 token68)');
  }
  return {
    base: base.replace(/\/+$/, ''),
    token,
    tokenFrom: fromArgument === undefined ? 'WEFT_TOKEN' : '--token',
    storeId: given.get('--store'),
    appId: given.get('--app'),
  };
}

type Verdict =
  | { readonly kind: 'works' }
  | { readonly kind: 'missing' }
  | { readonly kind: 'skipped'; readonly why: string }
  | { readonly kind: 'failed'; readonly why: string };

interface Budget {
  readonly limit: string;
  readonly remaining: string;
  readonly reset: string;
}

/** Why a whole run stops: every later probe would meet the same answer. */
class Stop extends Error {}

async function run(options: Options): Promise<number> {
  const table = upstreamRoutes();
  const scopes = fieldScopes(table);
  /** The probe's scope, as its route declares it (a GraphQL route: its queries'). */
  const scopeOfProbe = (probe: Probe): string => {
    const declared = table.of(probe)?.scope;
    if (declared === undefined) throw new Error(`${probe.method} ${probe.route} declares no scope`);
    return typeof declared === 'string' ? declared : declared.query;
  };

  const found: Found = { storeId: options.storeId, appId: options.appId };
  const verdicts = new Map<Probe, Verdict>();
  let calls = 0;
  let budget: Budget | undefined;
  let stopped: string | undefined;

  console.log(`Weft doctor: ${options.base} (token from ${options.tokenFrom}, not printed)`);
  console.log(`At most ${MAX_CALLS} read calls, one per read scope the graph uses.\n`);
  for (const probe of PROBES) {
    const scope = scopeOfProbe(probe);
    if (stopped !== undefined) {
      verdicts.set(probe, { kind: 'skipped', why: 'not called (see above)' });
      continue;
    }
    const request = probe.request(found);
    if ('skip' in request) {
      verdicts.set(probe, { kind: 'skipped', why: request.skip });
      continue;
    }
    let verdict: Verdict;
    try {
      calls += 1;
      const response = await fetch(`${options.base}${request.path}`, {
        method: probe.method,
        headers: {
          authorization: `Bearer ${options.token}`,
          accept: 'application/json',
          ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...request.headers,
        },
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      const limit = response.headers.get('ratelimit-limit');
      const remaining = response.headers.get('ratelimit-remaining');
      if (limit !== null && remaining !== null) {
        budget = { limit, remaining, reset: response.headers.get('ratelimit-reset') ?? '?' };
      }
      const text = await response.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      verdict = verdictOf(probe, response.status, body, request.path);
      if (verdict.kind === 'works') probe.learn?.(body, found);
    } catch (error) {
      if (error instanceof Stop) {
        stopped = error.message;
        verdict = { kind: 'failed', why: error.message };
      } else {
        const cause = (error as { cause?: { code?: string } }).cause?.code;
        const why =
          (error as Error).name === 'TimeoutError'
            ? `no answer within ${TIMEOUT_MS / 1000} s`
            : (cause ?? (error as Error).message);
        stopped = `${options.base} does not answer (${why}): is UPSTREAM_URL the provider's API base, and reachable from here?`;
        verdict = { kind: 'failed', why: stopped };
      }
    }
    verdicts.set(probe, verdict);
    const mark = { works: 'ok', missing: 'MISSING', failed: 'FAILED', skipped: 'skipped' }[
      verdict.kind
    ];
    console.log(`  ${mark.padEnd(8)} ${scope.padEnd(27)} ${probe.method} ${probe.route}`);
  }
  for (const [probe, verdict] of verdicts) {
    if (verdict.kind === 'skipped' && stopped === undefined) {
      console.log(`  ${'skipped'.padEnd(8)} ${scopeOfProbe(probe).padEnd(27)} ${verdict.why}`);
    }
  }
  if (stopped !== undefined) {
    console.log(`\n${stopped}\nParts of the graph: not known until this is fixed.`);
  } else {
    console.log('\nParts of the graph:');
    reportParts(verdicts, scopes, scopeOfProbe);
  }

  const writeScopes = [...new Set(scopes.map((row) => row.scope))]
    .filter((scope) => !scope.endsWith(':read'))
    .sort();
  console.log(
    `\nWrite scopes are not checked (a read cannot prove them; a write may change the account).` +
      `\nMutations need: ${writeScopes.join(', ')} (docs/provider.md "Scopes").`,
  );
  console.log(
    budget === undefined
      ? '\nBudget: the provider sent no RateLimit headers.'
      : `\nBudget: ${budget.remaining} of ${budget.limit} calls left in this window; it resets in ${budget.reset} s.`,
  );
  console.log(`Calls spent: ${calls} (reads).`);
  const worked = [...verdicts.values()].every((v) => v.kind === 'works' || v.kind === 'skipped');
  return stopped === undefined && worked ? 0 : 1;
}

/** One line per part: its reads work, or which scope is missing and which fields that stops. */
function reportParts(
  verdicts: ReadonlyMap<Probe, Verdict>,
  scopes: readonly FieldScope[],
  scopeOfProbe: (probe: Probe) => string,
): void {
  const parts: Part[] = ['certificates', 'hosting', 'commerce', 'stitched subgraphs'];
  for (const part of parts) {
    const own = PROBES.filter((probe) => probe.part === part);
    const notes = own.flatMap((probe) => {
      const verdict = verdicts.get(probe)!;
      const scope = scopeOfProbe(probe);
      switch (verdict.kind) {
        case 'works':
          return [];
        case 'missing':
          return [`missing ${scope}, needed by ${fieldsNeeding(scopes, scope)}`];
        case 'skipped':
          return [`${scope} not checked: ${verdict.why}`];
        case 'failed':
          return [`${probe.method} ${probe.route} answered ${verdict.why} (not a scope problem)`];
      }
    });
    const working = own.filter((probe) => verdicts.get(probe)!.kind === 'works').length;
    const state =
      notes.length === 0 ? 'reads work' : working > 0 ? 'some reads work' : 'no read works';
    console.log(`  ${part}: ${[state, ...notes].join('; ')}`);
  }
}

/** The fields a missing scope stops, named briefly. */
function fieldsNeeding(scopes: readonly FieldScope[], scope: string): string {
  const fields = [...new Set(scopes.filter((row) => row.scope === scope).map((row) => row.field))];
  const shown = fields.slice(0, 4).join(', ');
  return fields.length > 4 ? `${shown} and ${fields.length - 4} more fields` : shown;
}

/** What one answer says; throws {@link Stop} when it says the same for every other probe. */
function verdictOf(probe: Probe, status: number, body: unknown, path: string): Verdict {
  if (status >= 200 && status < 300) return { kind: 'works' };
  const code = (body as { code?: unknown } | undefined)?.code;
  const named = typeof code === 'string' ? ` ${code}` : '';
  if (status === 403) return { kind: 'missing' };
  if (status === 401) {
    throw new Stop(
      `The provider refused the token (401${named}): it is missing, malformed, expired or revoked. Create a new Personal Access Token (docs/provider.md).`,
    );
  }
  if (status === 429) {
    throw new Stop(
      `The token's budget is spent (429${named}): wait for the window to reset (RateLimit-Reset) and run again.`,
    );
  }
  if (status === 404 && !path.includes('/stores/') && !path.includes('/apps/')) {
    throw new Stop(
      `${probe.method} ${probe.route} is 404: the URL answers but does not serve the provider's paths. UPSTREAM_URL must be the API base the paths /v1/… and /v2/… are under, without a path of its own.`,
    );
  }
  return { kind: 'failed', why: `HTTP ${status}${named}` };
}

if (PROBES.length > MAX_CALLS) throw new Error('more probes than MAX_CALLS');

if (import.meta.main) {
  let options: Options;
  try {
    options = optionsOf(process.argv.slice(2), loadDoctorEnvironment());
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    if (error.message !== '') console.error(`doctor: ${error.message}`);
    console.error(USAGE);
    process.exit(2);
  }
  process.exitCode = await run(options);
}
