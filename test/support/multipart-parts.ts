/**
 * Posts an operation and reads a `multipart/mixed` answer (`@defer`) part by part as the bytes
 * arrive, noting when each part was complete — what a client that renders the first part at once
 * sees. The boundary is the one the response names (Apollo Server writes `-`).
 */
import { request } from 'undici';

export interface ArrivedPart {
  /** The part's JSON. */
  readonly body: any;
  /** `performance.now()` when the part was complete. */
  readonly at: number;
}

export interface PartsAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Every part, in order; resolved when the answer ends. */
  readonly parts: Promise<ArrivedPart[]>;
  /** Resolves as soon as `count` parts have arrived (rejects if the answer ends with fewer). */
  partsArrived(count: number): Promise<ArrivedPart[]>;
  /** Stops reading and closes the connection (a client that goes away). */
  abort(): void;
}

const boundaryOf = (contentType: string): string | undefined =>
  /boundary="?([^";]+)"?/.exec(contentType)?.[1];

export async function postForParts(
  url: string,
  body: { query: string; variables?: Record<string, unknown> },
  headers: Record<string, string>,
): Promise<PartsAnswer> {
  const controller = new AbortController();
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  const flat: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers))
    flat[k] = Array.isArray(v) ? v.join(', ') : String(v);
  const arrived: ArrivedPart[] = [];
  const waiters: {
    count: number;
    resolve: (parts: ArrivedPart[]) => void;
    reject: (e: Error) => void;
  }[] = [];
  const wake = () => {
    for (const waiter of [...waiters]) {
      if (arrived.length < waiter.count) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(arrived.slice());
    }
  };
  const boundary = boundaryOf(flat['content-type'] ?? '');
  const parts = (async () => {
    if (!boundary) {
      // One JSON answer: one "part".
      arrived.push({ body: JSON.parse(await res.body.text()), at: performance.now() });
      wake();
      return arrived;
    }
    const delimiter = `\r\n--${boundary}`;
    let buffer = '';
    res.body.setEncoding('utf8');
    for await (const chunk of res.body) {
      buffer += chunk as string;
      // A part is complete once the next delimiter follows it.
      for (;;) {
        const start = buffer.indexOf(delimiter);
        if (start < 0) break;
        const next = buffer.indexOf(delimiter, start + delimiter.length);
        if (next < 0) break;
        const part = buffer.slice(start + delimiter.length, next);
        buffer = buffer.slice(next);
        const json = part.slice(part.indexOf('\r\n\r\n') + 4);
        if (json.trim() !== '') {
          arrived.push({ body: JSON.parse(json), at: performance.now() });
          wake();
        }
      }
    }
    return arrived;
  })();
  parts
    .catch(() => undefined)
    .finally(() => {
      for (const waiter of waiters.splice(0))
        waiter.reject(new Error(`the answer ended after ${arrived.length} parts`));
    });
  return {
    status: res.statusCode,
    headers: flat,
    parts,
    partsArrived: (count) =>
      new Promise((resolve, reject) => {
        waiters.push({ count, resolve, reject });
        wake();
      }),
    abort: () => controller.abort(),
  };
}
