/**
 * Documents whose field paths are long ("one tenant crashes the gateway with the
 * ledger"): every alias is repeated in the path of every field under it, so a traced answer names
 * them again for each call each field asks for — the ledger grew to 6 MB beside a 1.3 MB answer.
 */
import type { CertificateState } from '../../src/simulator/fixtures/certificates.fixtures.ts';

/** Detail fields of a certificate: each asks the per-request detail loader for its record. */
const DETAIL_FIELDS = ['csr', 'rootType', 'deniedReason', 'progress', 'serialNumberHex'];

/** An alias `<letter><nn>xxx…` of `length` characters. */
const alias = (letter: string, index: number, length: number) =>
  `${letter}${String(index).padStart(2, '0')}${'x'.repeat(length - 3)}`;

export interface LongAliasOptions {
  /** Aliased detail fields under each certificate. */
  readonly fields: number;
  /** Characters of each alias of a detail field. */
  readonly aliasChars: number;
  /** Characters of each of the four ancestors' aliases (default: `aliasChars`). */
  readonly ancestorChars?: number;
  /** Certificates listed (`first`; demo-customer has 44). */
  readonly first?: number;
  /** 0–99, in the first alias: documents that differ in nothing else (no whole-response replay). */
  readonly variant?: number;
}

/**
 * The finding's shape: the customer, its certificate list, `edges` and `node` aliased, and
 * `fields` aliased detail fields under each certificate — `4 + fields` aliases. The finding's own
 * document is `{ fields: 26, aliasChars: 1050 }`: 30 aliases, 32,012 bytes, within the default
 * limits (LIMIT_MAX_ALIASES 30, LIMIT_MAX_DOCUMENT_BYTES 32 KiB).
 */
export function longAliasCertificates(options: LongAliasOptions): string {
  const { fields, aliasChars, first = 44, variant = 0 } = options;
  const above = options.ancestorChars ?? aliasChars;
  const details = Array.from(
    { length: fields },
    (_, index) =>
      `${alias('d', index, aliasChars)}: ${DETAIL_FIELDS[index % DETAIL_FIELDS.length]}`,
  ).join(' ');
  return `{ ${alias('c', variant, above)}: certificateCustomer(customerId: "demo-customer") {
    ${alias('l', 0, above)}: certificates(first: ${first}) {
    ${alias('e', 0, above)}: edges { ${alias('n', 0, above)}: node { ${details} } } } } }`;
}

/**
 * Gives demo-customer `total` certificates (it has 44): copies of its own, with ids after the
 * simulator's (`cert-0100` on) — a page of `certificates(first: 100)` is then full.
 */
export function seedCertificates(state: CertificateState, total: number): void {
  const own = [...state.certificates.values()].filter((c) => c.customerId === 'demo-customer');
  for (let index = own.length; index < total; index += 1) {
    const n = state.nextCertificate;
    state.nextCertificate += 1;
    const copy = structuredClone(own[index % own.length]!);
    copy.certificateId = `cert-${String(n).padStart(4, '0')}`;
    copy.entitlementId = `ent-${String(n).padStart(4, '0')}`;
    state.certificates.set(copy.certificateId, copy);
  }
}
