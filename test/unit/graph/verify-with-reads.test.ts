/**
 * Every `verifyWith` a write's error of unknown outcome names is a read the graph answers: filled
 * with argument values, it validates against the public schema. A renamed field or argument would
 * otherwise send a client, mid-incident, a read that fails.
 */
import { buildSchema, parse, validate } from 'graphql';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VERIFY_WITH as CERTIFICATE_READS } from '../../../src/certificates/certificate-write-outcome.ts';
import { VERIFY_WITH as CUSTOMER_READS } from '../../../src/commerce/customer-write-outcome.ts';
import { VERIFY_WITH as HOSTING_READS } from '../../../src/hosting/hosting-write-outcome.ts';

const schema = buildSchema(
  readFileSync(new URL('./__snapshots__/public-schema.graphql', import.meta.url), 'utf8'),
);
const reads = Object.entries({ ...HOSTING_READS, ...CERTIFICATE_READS, ...CUSTOMER_READS });

/** `app(appId:) { … }` → `app(appId: "x") { … }`: every named argument is an ID. */
const filled = (read: string): string => `{ ${read.replace(/(\w+):(?=\s*[,)])/g, '$1: "x"')} }`;

describe('verifyWith', () => {
  it.each(reads)('of %s is a valid read', (_write, read) => {
    expect(validate(schema, parse(filled(read))).map((error) => error.message)).toEqual([]);
  });

  it('is keyed by the name of a mutation of the graph', () => {
    const mutations = Object.keys(schema.getMutationType()?.getFields() ?? {});
    for (const [write] of reads) expect(mutations).toContain(write);
  });
});
