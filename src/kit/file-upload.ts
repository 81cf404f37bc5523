/**
 * Working with a file of a GraphQL multipart request inside a resolver, without holding it in
 * memory. graphql-upload spools each file to a temporary file as it arrives (fs-capacitor), and every
 * `createReadStream()` reads that file from its start: {@link inspectFileUpload} reads it once to
 * learn its size and first bytes, and {@link multipartFileBody} streams it again, wrapped in a
 * `multipart/form-data` body, towards the upstream.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FileUpload } from 'graphql-upload/processRequest.mjs';
import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError } from '../errors/gateway-errors.ts';

export type { FileUpload };

/** Read size from the spool: the size of a socket read, so chunks stay small and few. */
const CHUNK_BYTES = 64 * 1024;

/** What a first pass over a file learned. */
export interface FileFacts {
  readonly bytes: number;
  /** Up to the first `headBytes` bytes. */
  readonly head: Buffer;
}

/** A `multipart/form-data` body as a stream, with its exact length. */
export interface MultipartStreamBody {
  readonly stream: Readable;
  readonly contentType: string;
  readonly contentLength: number;
}

const statusOf = (error: unknown): number | undefined => {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
};

/** graphql-upload's errors (http-errors with a status) as the gateway's input errors. */
function uploadError(field: string, error: unknown): unknown {
  const status = statusOf(error);
  if (status === 413) {
    return new GatewayError(
      ErrorCode.BAD_USER_INPUT,
      `\`${field}\` is larger than this gateway accepts (its UPLOAD_MAX_BYTES setting)`,
      { field },
    );
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return new GatewayError(
      ErrorCode.BAD_USER_INPUT,
      `\`${field}\` could not be read: ${(error as Error).message}`,
      { field },
    );
  }
  return error;
}

const isFileUpload = (value: unknown): value is FileUpload =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as FileUpload).createReadStream === 'function' &&
  typeof (value as FileUpload).filename === 'string';

/**
 * The file behind an `Upload` argument (the scalar's value is a promise of it). A request that is
 * not a multipart request cannot carry one: GraphQL rejects the variable before this runs.
 */
export async function awaitFileUpload(value: unknown, field: string): Promise<FileUpload> {
  let file: unknown;
  try {
    file = await value;
  } catch (error) {
    throw uploadError(field, error);
  }
  if (!isFileUpload(file)) {
    throw new GatewayError(
      ErrorCode.BAD_USER_INPUT,
      `\`${field}\` must be a file sent as a GraphQL multipart request`,
      { field },
    );
  }
  return file;
}

/**
 * Reads the whole file once, keeping only its length and first bytes (memory: one chunk). It ends
 * when the client has sent the file completely; a file over the size cap fails here, before the
 * caller has spent anything upstream.
 */
export async function inspectFileUpload(
  file: FileUpload,
  field: string,
  headBytes: number,
): Promise<FileFacts> {
  let bytes = 0;
  let head = Buffer.alloc(0);
  try {
    for await (const chunk of file.createReadStream({ highWaterMark: CHUNK_BYTES })) {
      const buffer = chunk as Buffer;
      if (head.length < headBytes) {
        head = Buffer.concat([head, buffer.subarray(0, headBytes - head.length)]);
      }
      bytes += buffer.length;
    }
  } catch (error) {
    throw uploadError(field, error);
  }
  return { bytes, head };
}

/** A filename safe inside a quoted `Content-Disposition` parameter. */
const safeFilename = (name: string, fallback: string): string => {
  const cleaned = name.replace(/[^A-Za-z0-9._ -]/g, '_').slice(0, 200);
  return cleaned.trim() === '' ? fallback : cleaned;
};

/**
 * A `multipart/form-data` body of one file part, streamed: the part header, the file read from the
 * spool, the closing boundary. Nothing is buffered beyond the stream's own chunks, and the length is
 * exact, so the upstream gets a `Content-Length` instead of a chunked body.
 */
export function multipartFileBody(options: {
  readonly fieldName: string;
  readonly file: FileUpload;
  readonly bytes: number;
  readonly contentType: string;
  readonly fallbackFilename: string;
}): MultipartStreamBody {
  const boundary = `weft-${randomBytes(16).toString('hex')}`;
  const filename = safeFilename(options.file.filename, options.fallbackFilename);
  const opening = Buffer.from(
    `--${boundary}\r\n` +
      `Content-Disposition: form-data; name="${options.fieldName}"; filename="${filename}"\r\n` +
      `Content-Type: ${options.contentType}\r\n\r\n`,
  );
  const closing = Buffer.from(`\r\n--${boundary}--\r\n`);
  const source = options.file.createReadStream({ highWaterMark: CHUNK_BYTES });
  async function* parts(): AsyncGenerator<Buffer> {
    yield opening;
    for await (const chunk of source) yield chunk as Buffer;
    yield closing;
  }
  const stream = Readable.from(parts(), { objectMode: false });
  // Whoever abandons the body (an upstream failure) frees the spool's read stream with it.
  stream.once('close', () => source.destroy());
  return {
    stream,
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: opening.length + options.bytes + closing.length,
  };
}
