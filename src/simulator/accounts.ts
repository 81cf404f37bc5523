/**
 * The simulator's credentials and scopes (docs/simulator.md).
 *
 * Decisions where the seeds say "not shown":
 * - Certificates: the document shows no scopes; the simulator uses `ssl.certificates:read` for every
 *   GET, `ssl.certificates:create` for an order and `ssl.certificates:update` for a reissue.
 * - Hosting: the document names eight scopes but not which operation needs which; see
 *   {@link HOSTING_SCOPES} in the hosting routes (reads need `apps:read`, logs need `logs:read`, …).
 */
export type AccountId = 'A' | 'B';

export interface SimPrincipal {
  readonly token: string;
  readonly accountId: AccountId;
  readonly scopes: ReadonlySet<string>;
}

export const ALL_SCOPES = [
  'ssl.certificates:read',
  'ssl.certificates:create',
  'ssl.certificates:update',
  'hosting.paas.apps:read',
  'hosting.paas.apps:create',
  'hosting.paas.apps:update',
  'hosting.paas.apps:delete',
  'hosting.paas.code:write',
  'hosting.paas.deploy:execute',
  'hosting.paas.secrets:write',
  'hosting.paas.logs:read',
  'commerce.store:read',
  'commerce.channel:read',
  'commerce.customer:read',
  'commerce.customer:create',
  'commerce.customer:update',
  'commerce.product:read',
  'commerce.product:write',
  'commerce.order:read',
  'commerce.order:create',
  'commerce.order:update',
  'commerce.order:cancel',
  'commerce.order:complete',
  'commerce.tax:read',
  'commerce.tax:create',
  'commerce.tax:write',
  'commerce.tax:delete',
  'commerce.transaction:read',
] as const;

const READ_SCOPES = ALL_SCOPES.filter((scope) => scope.endsWith(':read'));
/** A token made for the certificates alone (docs/provider.md: `npm run doctor` names what it lacks). */
const CERTIFICATE_SCOPES = ALL_SCOPES.filter((scope) => scope.startsWith('ssl.certificates:'));

const PRINCIPALS: readonly SimPrincipal[] = [
  { token: 'demo-token', accountId: 'A', scopes: new Set(ALL_SCOPES) },
  { token: 'demo-readonly', accountId: 'A', scopes: new Set(READ_SCOPES) },
  { token: 'demo-other', accountId: 'B', scopes: new Set(ALL_SCOPES) },
  { token: 'demo-certificates', accountId: 'A', scopes: new Set(CERTIFICATE_SCOPES) },
];

/** A bearer token is a non-empty run of token68 characters (RFC 7235). */
const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/;

export type AuthResult =
  | { ok: true; principal: SimPrincipal }
  | { ok: false; reason: 'missing' | 'malformed' | 'unknown' };

/** Resolves an `Authorization` header to a principal, or says why it cannot. */
export function authenticate(header: string | undefined): AuthResult {
  if (header === undefined || header === '') return { ok: false, reason: 'missing' };
  const match = BEARER.exec(header);
  if (!match) return { ok: false, reason: 'malformed' };
  const principal = PRINCIPALS.find((p) => p.token === match[1]);
  return principal ? { ok: true, principal } : { ok: false, reason: 'unknown' };
}

/** The commerce stores of the fixtures and the account that owns each (docs/simulator.md). */
export const STORE_A = '11111111-1111-4111-8111-111111111111';
export const STORE_B = '22222222-2222-4222-8222-222222222222';
export const STORE_ACCOUNTS: Readonly<Record<string, AccountId>> = {
  [STORE_A]: 'A',
  [STORE_B]: 'B',
};
