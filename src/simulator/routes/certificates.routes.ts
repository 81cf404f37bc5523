/**
 * Certificate operations (certificate document, 11 endpoints under /v2).
 *
 * Decisions where the document says "not shown":
 * - Scopes: GETs need `ssl.certificates:read`, an order `ssl.certificates:create`, a reissue
 *   `ssl.certificates:update`.
 * - A customer, entitlement, certificate or subscription of another account is 404 (not visible).
 * - Customer list: `offset` is the number of certificates skipped before the page (0-based positions)
 *   and, as the document says, "digits only, positive": `offset=0` is 400 `$.offset`; the first page
 *   is asked for without `offset`. `limit` digits only 1..100, default 50. The pagination links are
 *   paths relative to the base URL; `first` (and a `previous` that reaches the start) carry no
 *   `offset`; `previous`/`next` are absent at the ends. An offset past the end is 200 with no items.
 * - v2 lists "accept neither limit nor marker" (commerce document): `marker` is 400 on the customer
 *   list (which documents its own `limit`), `limit` and `marker` are 400 on search and subscription.
 * - Search: `pageSize` 1..100 (the document gives no maximum), `page` 1..2^31−1 (int32). Unknown
 *   filter values are 400 with `fields`; every parameter may be given once.
 * - `guid` (subscription GUID) must be a GUID (8-4-4-4-12 hex digits), else 400 `$.guid`.
 * - `domain` path parameter ("domain-name format"): a host name of at most 253 characters, no
 *   wildcard (400 `$.domain`); matched case-insensitively.
 * - `X-Market-Id` (order, "locale"): a BCP 47 language tag such as `en-US` (2–3 letters, then up to
 *   three subtags of 2–8 letters or digits), else 400 `$['x-market-id']`. It changes nothing else.
 * - Verification `type`: every third name (index 2, 5, …) `DNS_TXT`, else `DOMAIN_CONTROL_EMAIL`;
 *   `usage` `COMMON_NAME` for the first name, `SUBJECT_ALTERNATIVE_NAME` after; `status` and the
 *   CAA `status` `COMPLETED` once issued, `PENDING` while pending or denied.
 * - Entitlement lookup SAN `status`: `PENDING` (seen) while the certificate is PENDING_ISSUANCE or
 *   DENIED, `VERIFIED` once it was issued (ISSUED, EXPIRED, REVOKED, …), like the verifications.
 * - `renewalAvailable` is true for an ACTIVE or EXPIRED certificate.
 * - Order body: `{csr (PKCS#10 PEM, required), productType (DV_SSL|OV_SSL|EV_SSL, required),
 *   period (1..3 years, required), commonName? (defaults to the CSR's CN), subjectAlternativeNames?,
 *   rootType?, slotSize?, contact?, organization? (required for OV/EV), callbackUrl?}`; 201 with the
 *   order result. A common name under `caa-blocked.example` is denied with `deniedReason`.
 * - Reissue body: `{csr?, commonName?, subjectAlternativeNames?, callbackUrl?}`; 204; only an ISSUED
 *   certificate can be reissued (409 otherwise). It returns to PENDING_ISSUANCE with a new serial.
 * - A pending certificate is issued after three reads of it or one minute, whichever comes first.
 * - Download of an entitlement whose latest certificate is not issued: 409 `CERTIFICATE_NOT_ISSUED`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SimContext } from '../sim-context.ts';
import { SimError, invalidField, notFound } from '../sim-errors.ts';
import {
  INT32_MAX,
  enumParam,
  intQuery,
  refuseParams,
  requiredParam,
  singleQuery,
} from '../sim-query.ts';
import {
  contactFor,
  coverageOf,
  isoTime,
  lifecycleOf,
  serialFor,
  type SimCertificate,
} from '../fixtures/certificates.fixtures.ts';
import { issuePemChain } from '../pem-issuer.ts';
import {
  isHostName,
  parseOrder,
  parseReissue,
} from './certificates/certificate-bodies.validation.ts';

const READ = { scope: 'ssl.certificates:read' };
const DAY = 86_400_000;

type Query = Record<string, string | string[] | undefined>;
type Params = Record<string, string>;

const decimalSerial = (hex: string): string => BigInt(`0x${hex}`).toString(10);

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A BCP 47 language tag as a market id (`en-US`, `fr`, `zh-Hant-TW`). */
const MARKET_ID = /^[a-z]{2,3}(-[a-z0-9]{2,8}){0,3}$/i;
const V2_LIST = 'v2 lists return the whole result and take no cursor';

/** The optional `X-Market-Id` header of an order: a locale. */
function checkMarketId(request: FastifyRequest): void {
  const raw = request.headers['x-market-id'];
  if (raw === undefined) return;
  if (typeof raw !== 'string' || !MARKET_ID.test(raw)) {
    throw invalidField(
      `$['x-market-id']`,
      'INVALID_FORMAT',
      'x-market-id must be a locale such as en-US',
    );
  }
}

export async function registerCertificateRoutes(
  app: FastifyInstance,
  ctx: SimContext,
): Promise<void> {
  const state = ctx.state.certificates;
  const pemCache = new Map<string, Promise<Awaited<ReturnType<typeof issuePemChain>>>>();

  /** Domain control is proven for every name once the certificate was issued (also revoked, expired). */
  const domainsVerified = (c: SimCertificate): boolean =>
    !['PENDING_ISSUANCE', 'DENIED'].includes(c.status);

  /** Pending certificates move to ISSUED after a few reads or a minute. */
  const advance = (certificate: SimCertificate): SimCertificate => {
    if (certificate.status !== 'PENDING_ISSUANCE') return certificate;
    certificate.pendingPollsLeft -= 1;
    const now = ctx.now();
    if (certificate.pendingPollsLeft > 0 && now < certificate.issueAt) {
      certificate.progress = Math.min(90, certificate.progress + 25);
      return certificate;
    }
    if (certificate.commonName.endsWith('caa-blocked.example')) {
      certificate.status = 'DENIED';
      certificate.deniedReason = 'CAA records present';
      certificate.progress = 0;
      return certificate;
    }
    certificate.status = 'ISSUED';
    certificate.progress = 100;
    certificate.completedAt = isoTime(now);
    certificate.validStart = isoTime(now);
    certificate.validEnd = isoTime(now + certificate.period * 365 * DAY);
    return certificate;
  };

  const visibleCustomer = (request: FastifyRequest, customerId: string) => {
    const customer = state.customers.get(customerId);
    if (!customer || customer.accountId !== request.principal.accountId) {
      throw notFound(`customer ${customerId}`);
    }
    return customer;
  };

  const customerCertificate = (request: FastifyRequest, params: Params): SimCertificate => {
    const customer = visibleCustomer(request, params.customerId ?? '');
    const certificate = state.certificates.get(params.certificateId ?? '');
    if (!certificate || certificate.customerId !== customer.customerId) {
      throw notFound(`certificate ${params.certificateId}`);
    }
    return certificate;
  };

  const accountOf = (certificate: SimCertificate) =>
    state.customers.get(certificate.customerId)?.accountId;

  const entitlementCertificates = (request: FastifyRequest, entitlementId: string) => {
    const found = [...state.certificates.values()]
      .filter(
        (c) => c.entitlementId === entitlementId && accountOf(c) === request.principal.accountId,
      )
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    if (found.length === 0) throw notFound(`entitlement ${entitlementId}`);
    return found;
  };

  const summary = (c: SimCertificate) => ({
    certificateId: c.certificateId,
    commonName: c.commonName,
    period: c.period,
    type: c.productType,
    status: c.status,
    createdAt: c.createdAt,
    completedAt: c.completedAt,
    validEndAt: c.validEnd,
    validStartAt: c.validStart,
    revokedAt: c.revokedAt,
    renewalAvailable:
      lifecycleOf(c, ctx.now()) === 'ACTIVE' || lifecycleOf(c, ctx.now()) === 'EXPIRED',
    serialNumber: decimalSerial(c.serialNumber),
    slotSize: c.slotSize,
    subjectAlternativeNames: c.subjectAlternativeNames,
  });

  const detail = (c: SimCertificate) => ({
    ...summary(c),
    serialNumberHex: c.serialNumber,
    contact: c.contact,
    organization: c.organization,
    csr: c.csr,
    rootType: c.rootType,
    deniedReason: c.deniedReason,
    progress: c.progress,
  });

  const entitlementItem = (c: SimCertificate) => ({
    certificateId: c.certificateId,
    commonName: c.commonName,
    contact: c.contact,
    createdAt: c.createdAt,
    deniedReason: c.deniedReason,
    organization: c.organization,
    period: c.period,
    productType: c.productType,
    progress: c.progress,
    revokedAt: c.revokedAt,
    rootType: c.rootType,
    serialNumber: decimalSerial(c.serialNumber),
    serialNumberHex: c.serialNumber,
    slotSize: c.slotSize,
    status: c.status,
    subjectAlternativeNames: c.subjectAlternativeNames.map((name) => ({
      status: domainsVerified(c) ? 'VERIFIED' : 'PENDING',
      subjectAlternativeName: name,
    })),
    validStart: c.validStart,
    validEnd: c.validEnd,
  });

  const domainsOf = (c: SimCertificate) => [
    ...new Set([c.commonName, ...c.subjectAlternativeNames].map((d) => d.replace(/^\*\./, ''))),
  ];

  const verification = (c: SimCertificate, domain: string, index: number) => {
    const done = domainsVerified(c);
    return {
      domain,
      domainEntityId: Number(c.certificateId.replace(/\D/g, '')) * 100 + index,
      dceToken: `dce-${c.certificateId}-${index}`,
      status: done ? 'COMPLETED' : 'PENDING',
      createdAt: c.createdAt,
      modifiedAt: c.completedAt ?? c.createdAt,
      type: index % 3 === 2 ? 'DNS_TXT' : 'DOMAIN_CONTROL_EMAIL',
      usage: index === 0 ? 'COMMON_NAME' : 'SUBJECT_ALTERNATIVE_NAME',
    };
  };

  // GET /v2/certificates?entitlementId&latest
  app.get('/v2/certificates', { config: READ }, async (request) => {
    const query = request.query as Query;
    const entitlementId = requiredParam(query, 'entitlementId');
    const latest = enumParam(query, 'latest', ['true', 'false'], 'true') === 'true';
    const all = entitlementCertificates(request, entitlementId).map(advance);
    return (latest ? all.slice(-1) : all).map(entitlementItem);
  });

  // POST /v2/certificates (order)
  app.post(
    '/v2/certificates',
    { config: { scope: 'ssl.certificates:create' } },
    async (request, reply) => {
      checkMarketId(request);
      const order = await parseOrder(request.body);
      const customer = [...state.customers.values()].find(
        (c) => c.accountId === request.principal.accountId,
      );
      if (!customer) throw new SimError(422, 'NO_PAYMENT_PROFILE', 'the account has no customer');
      const n = state.nextCertificate++;
      const guid = `00000000-0000-4000-8000-${String(state.nextSubscription++).padStart(12, '0')}`;
      const now = ctx.now();
      state.subscriptions.set(guid, {
        guid,
        accountId: request.principal.accountId,
        maxDomains: Math.max(1, order.subjectAlternativeNames.length),
        subscriptionStartDate: isoTime(now),
        subscriptionEndDate: isoTime(now + order.period * 365 * DAY),
        subscriptionStatus: 'ACTIVE',
      });
      const certificate: SimCertificate = {
        certificateId: `cert-${String(n).padStart(4, '0')}`,
        customerId: customer.customerId,
        entitlementId: `ent-${String(n).padStart(4, '0')}`,
        subscriptionGuid: guid,
        commonName: order.commonName,
        subjectAlternativeNames: order.subjectAlternativeNames,
        productType: order.productType,
        validation: order.productType.slice(0, 2) as SimCertificate['validation'],
        period: order.period,
        slotSize: order.slotSize,
        rootType: order.rootType,
        status: 'PENDING_ISSUANCE',
        progress: 0,
        serialNumber: serialFor(n, 0),
        csr: order.csr,
        contact: order.contact ?? contactFor(n),
        ...(order.organization ? { organization: order.organization } : {}),
        createdAt: isoTime(now),
        pendingPollsLeft: 3,
        issueAt: now + 60_000,
        generation: 0,
      };
      state.certificates.set(certificate.certificateId, certificate);
      return reply.status(201).send({
        certificateId: certificate.certificateId,
        subscriptionId: guid,
        subscriptionCreatedForOrder: true,
      });
    },
  );

  // POST /v2/certificates/{certificateId}/reissue
  app.post(
    '/v2/certificates/:certificateId/reissue',
    { config: { scope: 'ssl.certificates:update' } },
    async (request, reply) => {
      const { certificateId } = request.params as Params;
      const certificate = state.certificates.get(certificateId ?? '');
      if (!certificate || accountOf(certificate) !== request.principal.accountId) {
        throw notFound(`certificate ${certificateId}`);
      }
      const body = await parseReissue(request.body);
      if (certificate.status !== 'ISSUED') {
        throw new SimError(
          409,
          'CERTIFICATE_NOT_REISSUABLE',
          `certificate is ${certificate.status}; only an issued certificate can be reissued`,
        );
      }
      certificate.generation += 1;
      certificate.serialNumber = serialFor(
        Number(certificate.certificateId.slice(5)),
        certificate.generation,
      );
      if (body.csr) certificate.csr = body.csr;
      if (body.commonName) certificate.commonName = body.commonName;
      if (body.subjectAlternativeNames)
        certificate.subjectAlternativeNames = body.subjectAlternativeNames;
      certificate.status = 'PENDING_ISSUANCE';
      certificate.progress = 10;
      certificate.pendingPollsLeft = 3;
      certificate.issueAt = ctx.now() + 60_000;
      return reply.status(204).send();
    },
  );

  // GET /v2/certificates/download?entitlementId
  app.get('/v2/certificates/download', { config: READ }, async (request) => {
    const entitlementId = requiredParam(request.query as Query, 'entitlementId');
    const certificate = advance(entitlementCertificates(request, entitlementId).at(-1)!);
    if (
      !certificate.validStart ||
      !certificate.validEnd ||
      certificate.status === 'PENDING_ISSUANCE'
    ) {
      throw new SimError(409, 'CERTIFICATE_NOT_ISSUED', 'the latest certificate is not issued yet');
    }
    const key = `${certificate.certificateId}:${certificate.generation}`;
    let pems = pemCache.get(key);
    if (!pems) {
      pems = issuePemChain({
        commonName: certificate.commonName,
        subjectAlternativeNames: certificate.subjectAlternativeNames,
        serialHex: certificate.serialNumber,
        notBefore: new Date(certificate.validStart),
        notAfter: new Date(certificate.validEnd),
        ...(certificate.organization ? { organization: certificate.organization.name } : {}),
      });
      pemCache.set(key, pems);
    }
    return { pems: await pems, serialNumber: decimalSerial(certificate.serialNumber) };
  });

  // GET /v2/customers/{customerId}/certificates?offset&limit
  app.get('/v2/customers/:customerId/certificates', { config: READ }, async (request) => {
    const { customerId } = request.params as Params;
    const query = request.query as Query;
    // "digits only, positive": a given offset is at least 1; the first page has none (0 skipped).
    const offset = intQuery(query, 'offset', { min: 1, fallback: 0 });
    const limit = intQuery(query, 'limit', { min: 1, max: 100, fallback: 50 });
    refuseParams(query, ['marker'], V2_LIST);
    visibleCustomer(request, customerId ?? '');
    const all = [...state.certificates.values()].filter((c) => c.customerId === customerId);
    const page = all.slice(offset, offset + limit);
    const link = (o: number) =>
      `/v2/customers/${customerId}/certificates?${o > 0 ? `offset=${o}&` : ''}limit=${limit}`;
    const lastOffset = all.length === 0 ? 0 : Math.floor((all.length - 1) / limit) * limit;
    return {
      certificates: page.map(summary),
      pagination: {
        first: link(0),
        ...(offset > 0 ? { previous: link(Math.max(0, offset - limit)) } : {}),
        ...(offset + limit < all.length ? { next: link(offset + limit) } : {}),
        last: link(lastOffset),
        total: all.length,
      },
    };
  });

  // GET /v2/customers/{customerId}/certificates/acme/externalAccountBinding
  // (registered before the {certificateId} route; Fastify prefers the static segment anyway)
  app.get(
    '/v2/customers/:customerId/certificates/acme/externalAccountBinding',
    { config: READ },
    async (request) => {
      const customer = visibleCustomer(request, (request.params as Params).customerId ?? '');
      return {
        directoryUrl: 'https://acme.weft-simulator.example/directory',
        keyId: customer.keyId,
        hmacKey: customer.hmacKey,
      };
    },
  );

  // GET /v2/customers/{customerId}/certificates/{certificateId}
  app.get(
    '/v2/customers/:customerId/certificates/:certificateId',
    { config: READ },
    async (request) => detail(advance(customerCertificate(request, request.params as Params))),
  );

  // GET …/{certificateId}/domainVerifications
  app.get(
    '/v2/customers/:customerId/certificates/:certificateId/domainVerifications',
    { config: READ },
    async (request) => {
      const certificate = customerCertificate(request, request.params as Params);
      return domainsOf(certificate).map((domain, i) => verification(certificate, domain, i));
    },
  );

  // GET …/{certificateId}/domainVerifications/{domain}
  app.get(
    '/v2/customers/:customerId/certificates/:certificateId/domainVerifications/:domain',
    { config: READ },
    async (request) => {
      const params = request.params as Params;
      const domain = (params.domain ?? '').toLowerCase();
      if (!isHostName(domain)) {
        throw invalidField(
          '$.domain',
          'INVALID_FORMAT',
          'domain must be a host name of at most 253 characters (no wildcard)',
        );
      }
      const certificate = customerCertificate(request, params);
      const index = domainsOf(certificate).findIndex((name) => name.toLowerCase() === domain);
      if (index < 0) throw notFound(`domain ${domain} on certificate ${certificate.certificateId}`);
      const base = verification(certificate, domain, index);
      const labels = domain.split('.');
      const caaDone = base.status === 'COMPLETED';
      return {
        ...base,
        certificateAuthorityAuthorization: {
          status: caaDone ? 'COMPLETED' : 'PENDING',
          queryPaths: labels.slice(0, -1).map((_, i) => labels.slice(i).join('.')),
          recommendations: caaDone ? [] : ['ADD_CA_TO_CAA'],
          ...(caaDone ? { completedAt: base.modifiedAt } : {}),
        },
      };
    },
  );

  const searchParams = (query: Query) => ({
    pageSize: intQuery(query, 'pageSize', { min: 1, max: 100, fallback: 15 }),
    page: intQuery(query, 'page', { min: 1, max: INT32_MAX, fallback: 1 }),
    domain: singleQuery(query, 'domain')?.toLowerCase(),
    status: enumParam(
      query,
      'status',
      ['ANY', 'ACTIVE', 'DENIED', 'EXPIRED', 'PENDING', 'REVOKED'],
      'ANY',
    ),
    type: enumParam(query, 'type', ['ANY', 'SINGLE', 'UCC', 'WILDCARD'], 'ANY'),
    validation: enumParam(query, 'validation', ['ANY', 'DV', 'EV', 'OV'], 'ANY'),
  });

  const searchPage = (certificates: SimCertificate[], query: Query) => {
    const p = searchParams(query);
    refuseParams(query, ['limit', 'marker'], V2_LIST);
    const now = ctx.now();
    const matches = certificates
      .filter((c) => p.status === 'ANY' || lifecycleOf(c, now) === p.status)
      .filter((c) => p.type === 'ANY' || coverageOf(c) === p.type)
      .filter((c) => p.validation === 'ANY' || c.validation === p.validation)
      .filter(
        (c) =>
          p.domain === undefined ||
          [c.commonName, ...c.subjectAlternativeNames].some((d) =>
            d.toLowerCase().includes(p.domain!),
          ),
      );
    const data = matches.slice((p.page - 1) * p.pageSize, p.page * p.pageSize).map((c) => ({
      guid: c.subscriptionGuid,
      certificateId: c.certificateId,
      commonName: c.commonName,
      domains: c.subjectAlternativeNames,
      status: lifecycleOf(c, now),
      type: coverageOf(c),
      validation: c.validation,
      productType: c.productType,
      validStart: c.validStart,
      validEnd: c.validEnd,
    }));
    return { currentPage: String(p.page), data, pageSize: p.pageSize, total: matches.length };
  };

  const accountCertificates = (request: FastifyRequest) =>
    [...state.certificates.values()].filter((c) => accountOf(c) === request.principal.accountId);

  // GET /v2/certificates/subscriptions/search
  app.get('/v2/certificates/subscriptions/search', { config: READ }, async (request) =>
    searchPage(accountCertificates(request), request.query as Query),
  );

  // GET /v2/certificates/subscription/{guid}
  app.get('/v2/certificates/subscription/:guid', { config: READ }, async (request) => {
    const { guid } = request.params as Params;
    if (!GUID.test(guid ?? '')) {
      throw invalidField('$.guid', 'INVALID_FORMAT', 'guid must be a subscription GUID');
    }
    const subscription = state.subscriptions.get(guid ?? '');
    if (!subscription || subscription.accountId !== request.principal.accountId) {
      throw notFound(`subscription ${guid}`);
    }
    const certificates = accountCertificates(request).filter((c) => c.subscriptionGuid === guid);
    const page = searchPage(certificates, request.query as Query);
    const first = certificates[0];
    return {
      allowedDomains: [...new Set(certificates.flatMap((c) => c.subjectAlternativeNames))],
      domain: first?.commonName ?? '',
      guid: subscription.guid,
      maxDomains: subscription.maxDomains,
      subscriptionStartDate: subscription.subscriptionStartDate,
      subscriptionEndDate: subscription.subscriptionEndDate,
      subscriptionStatus: subscription.subscriptionStatus,
      ...page,
    };
  });
}
