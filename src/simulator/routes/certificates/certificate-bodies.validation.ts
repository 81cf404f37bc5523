/**
 * Request bodies of the certificate order and reissue (the document shows none; the decisions are in
 * certificates.routes.ts): parsed and validated into 400/422 envelopes with JSONPath `fields`.
 */
import { SimError } from '../../sim-errors.ts';
import { loadX509 } from '../../x509.ts';
import type { SimContact, SimOrganization } from '../../fixtures/certificates.fixtures.ts';

/** Letters, digits and inner hyphens; labels of 1..63; a TLD of letters. */
const HOST_LABELS = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

/** Longest DNS name in text form (RFC 1035: 255 octets on the wire). */
export const MAX_DOMAIN_LENGTH = 253;

/**
 * The certificate document's "domain-name format" (path parameter `domain`): a host name of at most
 * 253 characters. A wildcard is a certificate name, not a domain: `*.` is refused here.
 */
export const isHostName = (value: string): boolean =>
  value.length <= MAX_DOMAIN_LENGTH && HOST_LABELS.test(value);

/** A name a certificate covers: a host name, or `*.` and a host name (253 characters in all). */
export const isCertificateName = (value: string): boolean =>
  value.length <= MAX_DOMAIN_LENGTH &&
  HOST_LABELS.test(value.startsWith('*.') ? value.slice(2) : value);

export interface Order {
  csr: string;
  productType: string;
  period: number;
  commonName: string;
  subjectAlternativeNames: string[];
  rootType: string;
  slotSize: string;
  contact?: SimContact;
  organization?: SimOrganization;
}

const PRODUCT_TYPES = ['DV_SSL', 'OV_SSL', 'EV_SSL'];

/** Parses a PKCS#10 PEM; returns its common name, or throws a 422 naming `path`. */
async function csrCommonName(csr: unknown, path: string): Promise<string | undefined> {
  if (typeof csr !== 'string' || !csr.includes('BEGIN CERTIFICATE REQUEST')) {
    throw new SimError(422, 'INVALID_FORMAT', 'csr must be a PEM certificate request', [
      { path, code: 'INVALID_FORMAT', message: 'csr must be a PEM certificate request' },
    ]);
  }
  const { Pkcs10CertificateRequest } = await loadX509();
  try {
    const request = new Pkcs10CertificateRequest(csr);
    return /CN=([^,]+)/.exec(request.subject)?.[1];
  } catch {
    throw new SimError(422, 'INVALID_FORMAT', 'csr could not be parsed', [
      { path, code: 'INVALID_FORMAT', message: 'csr could not be parsed' },
    ]);
  }
}

function stringList(value: unknown, path: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || !isCertificateName(v))) {
    throw new SimError(422, 'INVALID_FORMAT', 'subjectAlternativeNames must be domain names', [
      { path, code: 'INVALID_FORMAT', message: 'subjectAlternativeNames must be domain names' },
    ]);
  }
  return value as string[];
}

export async function parseOrder(body: unknown): Promise<Order> {
  const b = (body ?? {}) as Record<string, unknown>;
  const missing = (['csr', 'productType', 'period'] as const).filter((k) => b[k] === undefined);
  if (missing.length > 0) {
    throw new SimError(
      400,
      'INVALID_BODY',
      `missing required fields: ${missing.join(', ')}`,
      missing.map((k) => ({ path: `$.${k}`, code: 'REQUIRED', message: `${k} is required` })),
    );
  }
  const fields: { path: string; code: string; message: string }[] = [];
  if (typeof b.productType !== 'string' || !PRODUCT_TYPES.includes(b.productType)) {
    fields.push({
      path: '$.productType',
      code: 'INVALID_VALUE',
      message: `productType must be one of ${PRODUCT_TYPES.join(', ')}`,
    });
  }
  if (typeof b.period !== 'number' || !Number.isInteger(b.period) || b.period < 1 || b.period > 3) {
    fields.push({ path: '$.period', code: 'OUT_OF_RANGE', message: 'period must be 1 to 3 years' });
  }
  if (
    b.productType !== 'DV_SSL' &&
    typeof b.productType === 'string' &&
    b.organization === undefined
  ) {
    fields.push({
      path: '$.organization',
      code: 'REQUIRED',
      message: 'organization is required for OV and EV',
    });
  }
  const csrName = await csrCommonName(b.csr, '$.csr');
  const commonName = typeof b.commonName === 'string' ? b.commonName : csrName;
  if (commonName === undefined || !isCertificateName(commonName)) {
    fields.push({
      path: '$.commonName',
      code: 'INVALID_FORMAT',
      message: 'commonName must be a domain name',
    });
  }
  const sans = stringList(b.subjectAlternativeNames, '$.subjectAlternativeNames');
  if (fields.length > 0) throw new SimError(422, 'INVALID_FORMAT', fields[0]!.message, fields);
  return {
    csr: b.csr as string,
    productType: b.productType as string,
    period: b.period as number,
    commonName: commonName!,
    subjectAlternativeNames: [...new Set([commonName!, ...(sans ?? [])])],
    rootType: typeof b.rootType === 'string' ? b.rootType : 'STANDARD_SHA_2',
    slotSize: typeof b.slotSize === 'string' ? b.slotSize : 'ONE',
    ...(b.contact ? { contact: b.contact as SimContact } : {}),
    ...(b.organization ? { organization: b.organization as SimOrganization } : {}),
  };
}

export async function parseReissue(body: unknown): Promise<{
  csr?: string;
  commonName?: string;
  subjectAlternativeNames?: string[];
}> {
  const b = (body ?? {}) as Record<string, unknown>;
  if (b.csr !== undefined) await csrCommonName(b.csr, '$.csr');
  if (
    b.commonName !== undefined &&
    (typeof b.commonName !== 'string' || !isCertificateName(b.commonName))
  ) {
    throw new SimError(422, 'INVALID_FORMAT', 'commonName must be a domain name', [
      { path: '$.commonName', code: 'INVALID_FORMAT', message: 'commonName must be a domain name' },
    ]);
  }
  const sans = stringList(b.subjectAlternativeNames, '$.subjectAlternativeNames');
  return {
    ...(typeof b.csr === 'string' ? { csr: b.csr } : {}),
    ...(typeof b.commonName === 'string' ? { commonName: b.commonName } : {}),
    ...(sans ? { subjectAlternativeNames: sans } : {}),
  };
}
