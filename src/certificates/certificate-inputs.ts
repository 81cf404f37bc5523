/**
 * Checks of certificate arguments made before any upstream call (a refusal is BAD_USER_INPUT naming
 * the argument), and the subscription search's query.
 */
import type { CertificateSubscriptionFilter } from '../generated/resolvers.ts';
import { badInput } from '../kit/bad-input.ts';
import { isUuid } from '../kit/id-checks.ts';
import type { SubscriptionQuery } from './certificates.api.ts';

const HOST_NAME = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;
const isHostName = (value: string): boolean => value.length <= 253 && HOST_NAME.test(value);
/** "path guid (string, subscription GUID)": a uuid, passed on as the client wrote it. */
export const requireGuid = (value: string): string => {
  if (!isUuid(value)) {
    throw badInput('guid', '`guid` must be a subscription GUID (8-4-4-4-12 hexadecimal digits)');
  }
  return value;
};

/**
 * The `domain` of a verification read: the certificate document's "domain-name format", a host name
 * of at most 253 characters. A wildcard (`*.example.com`) is not one: the graph takes it and asks for
 * its base name (`example.com`), where domain control of a wildcard is proven and which is how the
 * verification list names it.
 */
export function verificationDomain(value: string): string {
  const domain = value.startsWith('*.') ? value.slice(2) : value;
  if (!isHostName(domain)) {
    throw badInput(
      'domain',
      '`domain` must be a domain name of at most 253 characters (`*.` wildcard allowed)',
    );
  }
  return domain;
}

/** The search's query: a filter value `ANY` (or none) leaves the parameter out. */
export function subscriptionQuery(
  filter: CertificateSubscriptionFilter | null | undefined,
  page: number,
  pageSize: number,
): SubscriptionQuery {
  const pick = (value: string | null | undefined) => (value && value !== 'ANY' ? value : undefined);
  const domain = filter?.domain?.trim();
  return {
    page,
    pageSize,
    ...(domain ? { domain } : {}),
    ...(pick(filter?.status) ? { status: pick(filter?.status) } : {}),
    ...(pick(filter?.type) ? { type: pick(filter?.type) } : {}),
    ...(pick(filter?.validation) ? { validation: pick(filter?.validation) } : {}),
  };
}
