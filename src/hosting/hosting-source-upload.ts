/**
 * `uploadAppSource`: the archive the client sent (GraphQL multipart request) becomes the upstream's
 * multipart field `zipFile`, streamed. It is checked first, so a bad archive costs no upstream call
 * (the upload operation's per-IP limit is the tightest of all, 10 a minute): it must start with the
 * zip local-file signature and stay under the gateway's size cap (enforced while it arrives).
 */
import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError } from '../errors/gateway-errors.ts';
import { awaitFileUpload, inspectFileUpload, multipartFileBody } from '../kit/file-upload.ts';
import type { SizedStreamBody } from './hosting.api.ts';

/** `PK\x03\x04`: every zip archive with at least one entry starts with a local file header. */
export const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

const FIELD = 'zipFile';

/** Time to move the archive: 30 s plus one second per MiB (a floor of 1 MiB/s to the upstream). */
export const uploadDeadlineMs = (bytes: number): number =>
  30_000 + Math.ceil(bytes / (1024 * 1024)) * 1000;

export interface PreparedSourceUpload {
  readonly body: SizedStreamBody;
  readonly bytes: number;
}

/** Checks the archive and builds the streamed body; throws BAD_USER_INPUT (field `zipFile`). */
export async function prepareSourceUpload(zipFile: unknown): Promise<PreparedSourceUpload> {
  const file = await awaitFileUpload(zipFile, FIELD);
  const facts = await inspectFileUpload(file, FIELD, ZIP_SIGNATURE.length);
  if (facts.bytes === 0) {
    throw new GatewayError(ErrorCode.BAD_USER_INPUT, '`zipFile` is empty', { field: FIELD });
  }
  if (!facts.head.equals(ZIP_SIGNATURE)) {
    throw new GatewayError(
      ErrorCode.BAD_USER_INPUT,
      '`zipFile` is not a zip archive: it must start with the zip signature PK\\x03\\x04',
      { field: FIELD },
    );
  }
  return {
    bytes: facts.bytes,
    body: multipartFileBody({
      fieldName: FIELD,
      file,
      bytes: facts.bytes,
      contentType: 'application/zip',
      fallbackFilename: 'source.zip',
    }),
  };
}
