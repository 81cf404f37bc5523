/**
 * A GraphQL multipart request (the upload spec) sent over a real socket, its file streamed from a
 * generator so a test can send 50 MiB without holding it.
 */
import { Readable } from 'node:stream';
import { request } from 'undici';

export interface MultipartUploadOptions {
  url: string;
  query: string;
  /** Variables; the file goes to `variables.<filePath>` (e.g. `input.zipFile`). */
  variables: Record<string, unknown>;
  filePath: string;
  file: Buffer | (() => AsyncGenerator<Buffer>);
  filename?: string;
  /** The bearer token; null sends none. */
  token?: string | null;
  /** Defaults to `{ 'apollo-require-preflight': 'true' }`; pass `{}` to leave it out. */
  headers?: Record<string, string>;
}

export interface MultipartResult {
  status: number;
  body: any;
  text: string;
}

/** Sets `variables.a.b = null` for the map's placeholder. */
function withNull(variables: Record<string, unknown>, path: string): Record<string, unknown> {
  const copy = structuredClone(variables);
  const parts = path.split('.');
  let target = copy as Record<string, unknown>;
  for (const part of parts.slice(0, -1)) target = target[part] as Record<string, unknown>;
  target[parts.at(-1)!] = null;
  return copy;
}

export async function postMultipart(options: MultipartUploadOptions): Promise<MultipartResult> {
  const boundary = `test-${Math.random().toString(16).slice(2)}`;
  const operations = JSON.stringify({
    query: options.query,
    variables: withNull(options.variables, options.filePath),
  });
  const map = JSON.stringify({ 0: [`variables.${options.filePath}`] });
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="operations"\r\n\r\n${operations}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="map"\r\n\r\n${map}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="0"; filename="${options.filename ?? 'app.zip'}"\r\n` +
      `Content-Type: application/zip\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const file = options.file;
  async function* body(): AsyncGenerator<Buffer> {
    yield head;
    if (Buffer.isBuffer(file)) yield file;
    else yield* file();
    yield tail;
  }
  const response = await request(`${options.url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      ...(options.token === null
        ? {}
        : { authorization: `Bearer ${options.token ?? 'demo-token'}` }),
      ...(options.headers ?? { 'apollo-require-preflight': 'true' }),
    },
    body: Readable.from(body(), { objectMode: false }),
  });
  const text = await response.body.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: response.statusCode, body: parsed, text };
}

/** A zip-looking stream: the local-file signature, then filler, `size` bytes in all. */
export function zipStream(size: number, chunk = 64 * 1024): () => AsyncGenerator<Buffer> {
  const filler = Buffer.alloc(chunk, 0x61);
  return async function* () {
    let left = size;
    const first = Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), filler]).subarray(
      0,
      Math.min(chunk, size),
    );
    yield first;
    left -= first.length;
    while (left > 0) {
      const piece = left >= filler.length ? filler : filler.subarray(0, left);
      left -= piece.length;
      yield piece;
    }
  };
}

/** A small zip-looking archive (signature + text), optionally with a simulator marker. */
export const smallZip = (marker = ''): Buffer =>
  Buffer.concat([
    Buffer.from('PK\x03\x04', 'latin1'),
    Buffer.from(`index.js ${marker} `.repeat(64)),
  ]);
