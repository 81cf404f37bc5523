/**
 * Documents whose field paths are long (issue 42, "one tenant crashes the gateway with the
 * ledger"): every alias is repeated in the path of every field under it, so a traced answer names
 * them again for each call each field asks for — the ledger grew to 6 MB beside a 1.3 MB answer.
 */

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
}

/**
 * The finding's shape: the customer, its certificate list, `edges` and `node` aliased, and
 * `fields` aliased detail fields under each certificate — `4 + fields` aliases. The finding's own
 * document is `{ fields: 26, aliasChars: 1050 }`: 30 aliases, 32,012 bytes, within the default
 * limits (LIMIT_MAX_ALIASES 30, LIMIT_MAX_DOCUMENT_BYTES 32 KiB).
 */
export function longAliasCertificates(options: LongAliasOptions): string {
  const { fields, aliasChars, first = 44 } = options;
  const above = options.ancestorChars ?? aliasChars;
  const details = Array.from(
    { length: fields },
    (_, index) => `${alias('d', index, aliasChars)}: ${DETAIL_FIELDS[index % DETAIL_FIELDS.length]}`,
  ).join(' ');
  return `{ ${alias('c', 0, above)}: certificateCustomer(customerId: "demo-customer") {
    ${alias('l', 0, above)}: certificates(first: ${first}) {
    ${alias('e', 0, above)}: edges { ${alias('n', 0, above)}: node { ${details} } } } } }`;
}
