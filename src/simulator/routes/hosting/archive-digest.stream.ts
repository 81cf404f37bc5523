/**
 * Reads an uploaded archive as a stream and keeps only what the simulator needs: the byte count, the
 * first four bytes, a SHA-256 and which ASCII markers occur. Memory stays at one chunk plus a few
 * bytes whatever the archive's size.
 */
import { createHash } from 'node:crypto';

export interface ArchiveDigest {
  readonly bytes: number;
  /** Up to the first four bytes. */
  readonly head: Buffer;
  readonly sha256: string;
  /** The markers found anywhere in the bytes (also across chunk boundaries). */
  readonly markers: ReadonlySet<string>;
}

export const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

export async function digestArchive(
  chunks: AsyncIterable<Buffer>,
  markers: readonly string[],
): Promise<ArchiveDigest> {
  const hash = createHash('sha256');
  const needles = markers.map((marker) => ({ marker, bytes: Buffer.from(marker, 'ascii') }));
  const keep = Math.max(0, ...needles.map((needle) => needle.bytes.length - 1));
  const found = new Set<string>();
  let bytes = 0;
  let head = Buffer.alloc(0);
  // The last `keep` bytes seen, copied so no chunk outlives its iteration.
  let tail = Buffer.alloc(0);

  for await (const chunk of chunks) {
    hash.update(chunk);
    bytes += chunk.length;
    if (head.length < ZIP_SIGNATURE.length) {
      head = Buffer.concat([head, chunk.subarray(0, ZIP_SIGNATURE.length - head.length)]);
    }
    if (found.size < needles.length) {
      const seam = Buffer.concat([tail, chunk.subarray(0, keep)]);
      for (const needle of needles) {
        if (
          !found.has(needle.marker) &&
          (chunk.includes(needle.bytes) || seam.includes(needle.bytes))
        ) {
          found.add(needle.marker);
        }
      }
    }
    const joined = Buffer.concat([tail, chunk.subarray(Math.max(0, chunk.length - keep))]);
    tail = joined.subarray(Math.max(0, joined.length - keep));
  }
  return { bytes, head, sha256: hash.digest('hex'), markers: found };
}

export const isZip = (digest: ArchiveDigest): boolean => digest.head.equals(ZIP_SIGNATURE);
