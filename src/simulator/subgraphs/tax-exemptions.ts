/**
 * Customer tax exemptions: a certificate that exempts a customer (a customer id of the commerce
 * REST API; the tax service does not look it up) in some or all areas, for some or all
 * classifications. PENDING → APPROVED or REJECTED; APPROVED → REVOKED; an APPROVED certificate past
 * its expiry reads EXPIRED until renewed. Only an APPROVED, unexpired exemption zeroes tax in
 * `calculateTax`. A transition from the wrong status is a CONFLICT; repeating the transition that
 * produced the current status changes nothing.
 */
import {
  exemptionStatus,
  type ExemptionReason,
  type ExemptionRecord,
  type ExemptionStatus,
} from '../fixtures/subgraph.fixtures.ts';
import {
  badInput,
  checkHttpsUrl,
  checkInstant,
  gqlError,
  requireText,
  rootField,
  type SubgraphContext,
} from './subgraph-common.ts';
import { stamps, touch, type SubgraphModule } from './subgraph-records.ts';
import { classifications, exemptions, taxAreas } from './tax.lookups.ts';

const typeDefs = /* GraphQL */ `
  "Why a customer is exempt from tax."
  enum ExemptionReason {
    "Buys to resell."
    RESALE
    "A non-profit organisation."
    NON_PROFIT
    "A government body."
    GOVERNMENT
    "Agricultural use."
    AGRICULTURAL
    "Any other reason; see the note."
    OTHER
  }

  "Where an exemption stands."
  enum ExemptionStatus {
    "Submitted, not yet reviewed; does not apply."
    PENDING
    "Reviewed and accepted; applies until it expires."
    APPROVED
    "Reviewed and refused; does not apply."
    REJECTED
    "Withdrawn after approval; does not apply."
    REVOKED
    "Approved, but past its expiry; does not apply until renewed."
    EXPIRED
  }

  "A certificate that exempts a customer from tax."
  type TaxExemption {
    "The exemption's id (txe_…)."
    id: ID!
    "The exempt customer (a customer id of the commerce API)."
    customerId: ID!
    "The certificate's number, unique in the store."
    certificateNumber: String!
    "Why the customer is exempt."
    reason: ExemptionReason!
    "Where the exemption stands, as of now."
    status: ExemptionStatus!
    "The areas it covers; empty when it covers every area."
    taxAreas: [TaxArea!]!
    "The classifications it covers; empty when it covers every classification."
    classifications: [Classification!]!
    "When it expires (ISO 8601); null: never."
    expiresAt: String
    "Where the scanned certificate is kept (https); null when none."
    documentUrl: String
    "A free-text note; null when none."
    note: String
    "Why it was rejected or revoked; null otherwise."
    statusReason: String
    "When the exemption was created (ISO 8601)."
    createdAt: String!
    "When the exemption last changed (ISO 8601)."
    updatedAt: String!
  }

  "A new exemption (PENDING)."
  input MutationCreateExemptionInput {
    "The exempt customer, not empty."
    customerId: ID!
    "The certificate's number, unique in the store."
    certificateNumber: String!
    "Why the customer is exempt."
    reason: ExemptionReason!
    "Areas it covers; every area unless given."
    taxAreaIds: [ID!]
    "Classifications it covers; every classification unless given."
    classificationIds: [ID!]
    "When it expires (ISO 8601), in the future; never unless given."
    expiresAt: String
    "Where the scanned certificate is kept (https)."
    documentUrl: String
    "A free-text note."
    note: String
  }

  "Changes to a PENDING or APPROVED exemption; omitted fields keep their values."
  input MutationUpdateExemptionInput {
    "The exemption."
    id: ID!
    "New certificate number, unique in the store."
    certificateNumber: String
    "New reason."
    reason: ExemptionReason
    "Replaces the areas; empty: every area."
    taxAreaIds: [ID!]
    "Replaces the classifications; empty: every classification."
    classificationIds: [ID!]
    "New note; null clears it."
    note: String
  }

  extend type TaxSettings {
    "The store's customer exemptions in creation order."
    exemptions(
      "Only this customer's."
      customerId: ID
      "Only those in this status (as of now)."
      status: ExemptionStatus
    ): [TaxExemption!]!
    "A customer exemption of the store by id; null when there is none."
    exemption("The exemption's id." id: ID!): TaxExemption
  }

  extend type Mutation {
    "Records a customer's exemption certificate for review."
    createExemption("The new exemption." input: MutationCreateExemptionInput!): TaxExemption
    "Changes a PENDING or APPROVED exemption."
    updateExemption("The changes." input: MutationUpdateExemptionInput!): TaxExemption
    "Approves a PENDING exemption; it must not have expired."
    approveExemption("The exemption." id: ID!): TaxExemption
    "Rejects a PENDING exemption."
    rejectExemption("The exemption." id: ID!, "Why, not empty." reason: String!): TaxExemption
    "Revokes an APPROVED (or expired) exemption."
    revokeExemption("The exemption." id: ID!, "Why, not empty." reason: String!): TaxExemption
    "Gives an APPROVED (or expired) exemption a new expiry."
    renewExemption(
      "The exemption."
      id: ID!
      "The new expiry (ISO 8601), in the future."
      expiresAt: String!
    ): TaxExemption
    "Deletes an exemption."
    deleteExemption("The exemption." id: ID!): DeleteResult
    "Sets the scanned certificate of an exemption."
    attachExemptionDocument(
      "The exemption."
      id: ID!
      "Where the file is kept (https)."
      documentUrl: String!
    ): TaxExemption
  }
`;

interface ExemptionInput {
  certificateNumber?: string | null;
  reason?: ExemptionReason | null;
  taxAreaIds?: string[] | null;
  classificationIds?: string[] | null;
  note?: string | null;
}

function checkCertificate(ctx: SubgraphContext, number: string, exceptId?: string): string {
  const text = requireText(number, 'certificateNumber');
  if (exemptions.all(ctx).some((e) => e.id !== exceptId && e.certificateNumber === text)) {
    throw badInput(`an exemption with certificate ${text} already exists`, 'certificateNumber');
  }
  return text;
}

function futureInstant(ctx: SubgraphContext, value: string, field: string): string {
  const instant = checkInstant(value, field);
  if (Date.parse(instant) <= ctx.now()) throw badInput(`${field} must be in the future`, field);
  return instant;
}

/** The exemption in one of `allowed` statuses (as read now): CONFLICT otherwise. */
function inStatus(
  ctx: SubgraphContext,
  id: string,
  allowed: readonly (ExemptionStatus | 'EXPIRED')[],
  action: string,
): ExemptionRecord {
  const exemption = exemptions.get(ctx, id);
  const status = exemptionStatus(exemption, ctx.now());
  if (!allowed.includes(status)) {
    throw gqlError('CONFLICT', `exemption ${exemption.id} is ${status} and cannot be ${action}`, {
      currentStatus: status,
    });
  }
  return exemption;
}

const areaIdsOf = (ctx: SubgraphContext, ids: readonly string[]) =>
  taxAreas.refs(ctx, ids, 'taxAreaIds').map((area) => area.id);
const classificationIdsOf = (ctx: SubgraphContext, ids: readonly string[]) =>
  classifications.refs(ctx, ids, 'classificationIds').map((cls) => cls.id);

export const exemptionModule: SubgraphModule = {
  typeDefs,
  resolvers: {
    TaxExemption: {
      status: (exemption: ExemptionRecord, _args: unknown, ctx: SubgraphContext) =>
        exemptionStatus(exemption, ctx.now()),
      taxAreas: (exemption: ExemptionRecord, _args: unknown, ctx: SubgraphContext) =>
        exemption.taxAreaIds.map((id) => taxAreas.find(ctx, id)).filter((a) => a !== null),
      classifications: (exemption: ExemptionRecord, _args: unknown, ctx: SubgraphContext) =>
        exemption.classificationIds
          .map((id) => classifications.find(ctx, id))
          .filter((c) => c !== null),
    },
    TaxSettings: {
      exemptions: (
        _settings: unknown,
        args: { customerId?: string | null; status?: ExemptionStatus | null },
        ctx: SubgraphContext,
      ) =>
        exemptions
          .all(ctx)
          .filter(
            (e) =>
              (!args.customerId || e.customerId === args.customerId) &&
              (!args.status || exemptionStatus(e, ctx.now()) === args.status),
          ),
      exemption: (_settings: unknown, args: { id: string }, ctx: SubgraphContext) =>
        exemptions.find(ctx, args.id),
    },
    Mutation: {
      createExemption: rootField(
        (
          {
            input,
          }: {
            input: ExemptionInput & {
              customerId: string;
              certificateNumber: string;
              reason: ExemptionReason;
              expiresAt?: string | null;
              documentUrl?: string | null;
            };
          },
          ctx: SubgraphContext,
        ) =>
          exemptions.insert(ctx, {
            customerId: requireText(input.customerId, 'customerId'),
            certificateNumber: checkCertificate(ctx, input.certificateNumber),
            reason: input.reason,
            status: 'PENDING',
            taxAreaIds: areaIdsOf(ctx, input.taxAreaIds ?? []),
            classificationIds: classificationIdsOf(ctx, input.classificationIds ?? []),
            expiresAt:
              input.expiresAt == null ? null : futureInstant(ctx, input.expiresAt, 'expiresAt'),
            documentUrl:
              input.documentUrl == null ? null : checkHttpsUrl(input.documentUrl, 'documentUrl'),
            note: input.note ?? null,
            statusReason: null,
            ...stamps(ctx),
          }),
      ),
      updateExemption: rootField(
        ({ input }: { input: ExemptionInput & { id: string } }, ctx: SubgraphContext) => {
          const exemption = inStatus(ctx, input.id, ['PENDING', 'APPROVED', 'EXPIRED'], 'changed');
          const next: Partial<ExemptionRecord> = {};
          if (input.certificateNumber != null) {
            next.certificateNumber = checkCertificate(ctx, input.certificateNumber, exemption.id);
          }
          if (input.reason != null) next.reason = input.reason;
          if (input.taxAreaIds != null) next.taxAreaIds = areaIdsOf(ctx, input.taxAreaIds);
          if (input.classificationIds != null) {
            next.classificationIds = classificationIdsOf(ctx, input.classificationIds);
          }
          if (input.note !== undefined) next.note = input.note;
          Object.assign(exemption, next);
          return touch(ctx, exemption);
        },
      ),
      approveExemption: rootField((args: { id: string }, ctx: SubgraphContext) => {
        const exemption = inStatus(ctx, args.id, ['PENDING', 'APPROVED'], 'approved');
        if (exemption.status === 'APPROVED') return exemption;
        if (exemption.expiresAt !== null && Date.parse(exemption.expiresAt) <= ctx.now()) {
          throw gqlError(
            'CONFLICT',
            `exemption ${exemption.id} expired before approval; renew it`,
            {
              currentStatus: exemption.status,
            },
          );
        }
        exemption.status = 'APPROVED';
        return touch(ctx, exemption);
      }),
      rejectExemption: rootField((args: { id: string; reason: string }, ctx: SubgraphContext) => {
        const exemption = inStatus(ctx, args.id, ['PENDING', 'REJECTED'], 'rejected');
        if (exemption.status === 'REJECTED') return exemption;
        exemption.statusReason = requireText(args.reason, 'reason');
        exemption.status = 'REJECTED';
        return touch(ctx, exemption);
      }),
      revokeExemption: rootField((args: { id: string; reason: string }, ctx: SubgraphContext) => {
        const exemption = inStatus(ctx, args.id, ['APPROVED', 'EXPIRED', 'REVOKED'], 'revoked');
        if (exemption.status === 'REVOKED') return exemption;
        exemption.statusReason = requireText(args.reason, 'reason');
        exemption.status = 'REVOKED';
        return touch(ctx, exemption);
      }),
      renewExemption: rootField((args: { id: string; expiresAt: string }, ctx: SubgraphContext) => {
        const exemption = inStatus(ctx, args.id, ['APPROVED', 'EXPIRED'], 'renewed');
        exemption.expiresAt = futureInstant(ctx, args.expiresAt, 'expiresAt');
        return touch(ctx, exemption);
      }),
      deleteExemption: rootField((args: { id: string }, ctx: SubgraphContext) =>
        exemptions.remove(ctx, args.id),
      ),
      attachExemptionDocument: rootField(
        (args: { id: string; documentUrl: string }, ctx: SubgraphContext) => {
          const exemption = exemptions.get(ctx, args.id);
          exemption.documentUrl = checkHttpsUrl(args.documentUrl, 'documentUrl');
          return touch(ctx, exemption);
        },
      ),
    },
  },
};
