import { UpstreamError } from './gateway-errors.ts';

/** For nullable single-object fields: an upstream 404 means "no such object" → null, not an error. */
export async function nullIfNotFound<T>(promise: Promise<T>): Promise<T | null> {
  try {
    return await promise;
  } catch (error) {
    if (error instanceof UpstreamError && error.kind === 'http' && error.status === 404)
      return null;
    throw error;
  }
}
