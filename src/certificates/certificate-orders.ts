/**
 * Request bodies of the order and reissue calls. The upstream shows none; Weft sends fields named
 * after the Certificate record, and checks what it can before spending an upstream call.
 */
import { badInput } from '../kit/bad-input.ts';
import type { OrderCertificateInput, ReissueCertificateInput } from '../generated/resolvers.ts';

/** Drops null/undefined members (GraphQL nulls mean "not given" for these optional fields). */
function compact(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record)
      .filter(([, value]) => value !== null && value !== undefined)
      .map(([key, value]) => [
        key,
        typeof value === 'object' && !Array.isArray(value)
          ? compact(value as Record<string, unknown>)
          : value,
      ]),
  );
}

function checkCsr(csr: string | null | undefined): void {
  if (csr != null && !/-----BEGIN (NEW )?CERTIFICATE REQUEST-----/.test(csr)) {
    throw badInput('csr', '`csr` must be a PEM-encoded PKCS#10 certificate request');
  }
}

/** `X-Market-Id` is "locale" (certificates document): a BCP 47 tag such as `en-US` or `fr`. */
const LOCALE = /^[a-z]{2,3}(-[a-z0-9]{2,8}){0,3}$/i;

export function buildOrderBody(input: OrderCertificateInput): Record<string, unknown> {
  checkCsr(input.csr);
  if (!Number.isInteger(input.period) || input.period < 1) {
    throw badInput('period', '`period` must be a whole number of years, at least 1');
  }
  if (input.productType.trim() === '')
    throw badInput('productType', '`productType` must not be empty');
  if (input.marketId != null && !LOCALE.test(input.marketId)) {
    throw badInput('marketId', '`marketId` must be a locale such as en-US');
  }
  const { marketId: _marketId, ...body } = input;
  return compact(body);
}

export function buildReissueBody(input: ReissueCertificateInput): Record<string, unknown> {
  checkCsr(input.csr);
  const { certificateId: _certificateId, ...body } = input;
  return compact(body);
}
