/**
 * Hosting mutations. Each takes one `input`, checks what it can before any upstream call, sends at
 * most one write (never retried), and reports upstream 400/409/422 and the gateway's own input
 * problems as `userErrors`; everything else is a GraphQL error, with `outcome: "UNKNOWN"` and
 * `verifyWith` when the write may have been applied (hosting-write-outcome.ts).
 */
import { toUserErrors, type UserError } from '../errors/graphql-errors.ts';
import type { Resolvers } from '../generated/resolvers.ts';
import { requireId } from '../kit/id-checks.ts';
import { secretChangesBody, updateAppBody } from './hosting-inputs.ts';
import { fromAppRecord, fromCreatedJob, fromPublishResult } from './hosting.mappers.ts';
import { prepareSourceUpload, uploadDeadlineMs } from './hosting-source-upload.ts';
import { withOutcomeHint, type HostingWrite } from './hosting-write-outcome.ts';
import { hostingOf } from './hosting.request.ts';

/** userErrors for the input problems; the unknown-outcome hint for the rest (rethrown). */
const userErrorsOf = (error: unknown, write: HostingWrite): UserError[] =>
  toUserErrors(withOutcomeHint(error, write));

/**
 * The upstream's secret operations live under `operations` (`$.operations.additions[0].name`); the
 * graph's input has them at its top level (`input.additions[0].name`).
 */
const secretUserErrors = (error: unknown): UserError[] =>
  userErrorsOf(error, 'changeAppSecrets').map((userError) =>
    userError.path?.[1] === 'operations'
      ? { ...userError, path: [userError.path[0]!, ...userError.path.slice(2)] }
      : userError,
  );

export const hostingMutationResolvers: Resolvers = {
  Mutation: {
    createApp: async (_parent, { input }, ctx) => {
      try {
        const name = requireId(input.name, 'name');
        return { job: fromCreatedJob(await hostingOf(ctx).api.createApp(name)), userErrors: [] };
      } catch (error) {
        return { job: null, userErrors: userErrorsOf(error, 'createApp') };
      }
    },

    updateApp: async (_parent, { input }, ctx) => {
      try {
        const appId = requireId(input.appId, 'appId');
        const record = await hostingOf(ctx).api.updateApp(appId, updateAppBody(input));
        return { app: fromAppRecord(record), userErrors: [] };
      } catch (error) {
        return { app: null, userErrors: userErrorsOf(error, 'updateApp') };
      }
    },

    deleteApp: async (_parent, { input }, ctx) => {
      try {
        const appId = requireId(input.appId, 'appId');
        await hostingOf(ctx).api.deleteApp(appId);
        return { deletedAppId: appId, userErrors: [] };
      } catch (error) {
        return { deletedAppId: null, userErrors: userErrorsOf(error, 'deleteApp') };
      }
    },

    uploadAppSource: async (_parent, { input }, ctx) => {
      try {
        const appId = requireId(input.appId, 'appId');
        const upload = await prepareSourceUpload(input.zipFile);
        const { jobId } = await hostingOf(ctx).api.uploadSource(
          appId,
          upload.body,
          uploadDeadlineMs(upload.bytes),
        );
        return { jobId, bytes: upload.bytes, userErrors: [] };
      } catch (error) {
        return { jobId: null, bytes: null, userErrors: userErrorsOf(error, 'uploadAppSource') };
      }
    },

    deployApp: async (_parent, { input }, ctx) => {
      try {
        const appId = requireId(input.appId, 'appId');
        const result = await hostingOf(ctx).api.deploy(appId);
        return { deployment: fromPublishResult(appId, result), userErrors: [] };
      } catch (error) {
        return { deployment: null, userErrors: userErrorsOf(error, 'deployApp') };
      }
    },

    changeAppSecrets: async (_parent, { input }, ctx) => {
      try {
        const appId = requireId(input.appId, 'appId');
        // The body holds secret values: it goes to the upstream and nowhere else.
        const listing = await hostingOf(ctx).api.changeSecrets(appId, secretChangesBody(input));
        return { secrets: listing, userErrors: [] };
      } catch (error) {
        return { secrets: null, userErrors: secretUserErrors(error) };
      }
    },
  },
};
