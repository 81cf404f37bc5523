/**
 * Wire shapes of the hosting document, built field by field from the state: nothing internal (secret
 * values, rootPath, counters, read counts) can leak through a spread.
 */
import {
  VARIANT_NAMES,
  type HostingApp,
  type HostingDeployment,
  type HostingSecret,
  type HostingSecretStore,
  type HostingUpload,
  type VariantName,
} from '../../fixtures/hosting.fixtures.ts';
import { UPLOAD_PROGRESS } from './hosting-lifecycle.machine.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

/** Public URLs are derived from the app id, so a rename does not move them. */
export const appUrls = (appId: string): { preview: string; publish: string } => ({
  preview: `https://${appId}.preview.nodejs-hosting.example`,
  publish: `https://${appId}.nodejs-hosting.example`,
});

export function variantsWithLifecycle(
  app: HostingApp,
): { variant: VariantName; status: string; lifecycleState: string }[] {
  return VARIANT_NAMES.map((variant) => ({
    variant,
    status: app.variants[variant].status,
    lifecycleState: app.variants[variant].lifecycleState,
  }));
}

/** The App record; `variantsWithLifecycle` only for single-app and job reads. */
export function appView(app: HostingApp, withLifecycle: boolean): Record<string, unknown> {
  return {
    id: app.id,
    name: app.name,
    status: app.status,
    createdAt: iso(app.createdAt),
    updatedAt: iso(app.updatedAt),
    urls: appUrls(app.id),
    variants: VARIANT_NAMES.map((name) => ({ name, status: app.variants[name].status })),
    ...(withLifecycle ? { variantsWithLifecycle: variantsWithLifecycle(app) } : {}),
  };
}

export function deploymentView(deployment: HostingDeployment): Record<string, unknown> {
  return {
    id: deployment.id,
    status: deployment.status,
    gitHash: deployment.gitHash,
    createdAt: iso(deployment.createdAt),
    updatedAt: iso(deployment.updatedAt),
    errorMessage: deployment.errorMessage,
  };
}

/** Upload status: progressMessage only while processing; error fields only when failed. */
export function uploadStatusView(upload: HostingUpload): Record<string, unknown> {
  return {
    status: upload.status,
    progressMessage: upload.status === 'processing' ? (UPLOAD_PROGRESS[upload.step] ?? null) : null,
    errorMessage: upload.errorMessage,
    errorStage: upload.errorStage,
  };
}

const secretView = (secret: HostingSecret): Record<string, unknown> => ({
  name: secret.name,
  systemManaged: secret.systemManaged,
  createdAt: iso(secret.createdAt),
  updatedAt: iso(secret.updatedAt),
});

const secretList = (
  secrets: Map<string, HostingSecret>,
): { secrets: Record<string, unknown>[] } => ({
  secrets: [...secrets.values()]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(secretView),
});

/** The secret listing; with a variant, `variants` holds only that variant. */
export function secretListingView(
  store: HostingSecretStore,
  variant?: VariantName,
): Record<string, unknown> {
  const variants = variant ? [variant] : VARIANT_NAMES;
  return {
    shared: secretList(store.shared),
    variants: Object.fromEntries(variants.map((name) => [name, secretList(store[name])])),
  };
}
