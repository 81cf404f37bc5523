/**
 * The read that tells whether each hosting write happened: the `verifyWith` of its errors of
 * unknown outcome (kit/write-outcome.ts).
 */
import { withOutcomeHint as hint } from '../kit/write-outcome.ts';

/** Each hosting write → the selection that shows whether it happened. */
export const VERIFY_WITH = {
  createApp: 'apps { appId name }',
  updateApp: 'app(appId:) { name updatedAt }',
  deleteApp: 'app(appId:) { appId name }',
  uploadAppSource: 'app(appId:) { variantsWithLifecycle { variant lifecycleState } }',
  deployApp: 'app(appId:) { deployments { deployments { deploymentId status createdAt } } }',
  changeAppSecrets: 'app(appId:) { secrets { shared { name updatedAt } } }',
} as const;

export type HostingWrite = keyof typeof VERIFY_WITH;

/** An unknown-outcome failure of a hosting write, with the read to check; anything else unchanged. */
export const withOutcomeHint = (error: unknown, write: HostingWrite): unknown =>
  hint(error, write, VERIFY_WITH[write]);
