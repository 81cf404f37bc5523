/** What the whole-operation plugins see of an answer in parts (src/server/incremental/deferred-parts.ts). */
import { describe, expect, it } from 'vitest';
import {
  errorsOfPart,
  followDeferredParts,
  type DeferredPart,
} from '../../../../src/server/incremental/deferred-parts.ts';

async function* partsOf(parts: DeferredPart[], failAfter?: number) {
  let sent = 0;
  for (const part of parts) {
    if (sent === failAfter) throw new Error('execution stopped');
    sent += 1;
    yield part;
  }
}

const incremental = (parts: AsyncIterable<DeferredPart>) => ({
  body: {
    kind: 'incremental' as const,
    initialResult: { data: {}, hasNext: true },
    subsequentResults: parts,
  },
});

async function drain(iterable: AsyncIterable<DeferredPart>): Promise<DeferredPart[]> {
  const out: DeferredPart[] = [];
  for await (const part of iterable) out.push(part);
  return out;
}

describe('followDeferredParts', () => {
  it('leaves a single answer alone', () => {
    const response = { body: { kind: 'single' as const, singleResult: { data: {} } } };
    expect(followDeferredParts(response, { end: () => undefined })).toBe(false);
  });

  it('sees every part, and ends on the last one before it is written, adding to it', async () => {
    const NOT_FOUND = { message: 'no such app', extensions: { code: 'NOT_FOUND' } };
    const response = incremental(
      partsOf([
        { hasNext: true, incremental: [{ data: { a: 1 }, path: ['x'] }] },
        { hasNext: false, incremental: [{ data: null, path: ['y'], errors: [NOT_FOUND] }] },
      ]),
    );
    const seen: unknown[] = [];
    const ends: (DeferredPart | undefined)[] = [];
    expect(
      followDeferredParts(response, {
        part: (part) => seen.push(...errorsOfPart(part)),
        end: (last) => {
          ends.push(last);
          if (last) last.extensions = { upstream: 'ledger' };
        },
      }),
    ).toBe(true);
    const written = await drain(response.body.subsequentResults);
    expect(ends).toHaveLength(1);
    expect(written.at(-1)?.extensions).toEqual({ upstream: 'ledger' });
    expect(seen).toEqual([NOT_FOUND]);
  });

  it("counts the errors of a v0.2 part: its entries' and those of what failed as a whole", () => {
    const BROKEN = {
      message: 'no such field value',
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    };
    const NOT_FOUND = { message: 'no such app', extensions: { code: 'NOT_FOUND' } };
    expect(
      errorsOfPart({
        hasNext: false,
        incremental: [{ id: '0', data: { app: null }, errors: [NOT_FOUND] }],
        completed: [{ id: '0' }, { id: '1', errors: [BROKEN] }],
      }),
    ).toEqual([NOT_FOUND, BROKEN]);
  });

  it('ends once, with no last part, when the parts stop early', async () => {
    const response = incremental(
      partsOf(
        [
          { hasNext: true, incremental: [] },
          { hasNext: false, incremental: [] },
        ],
        1,
      ),
    );
    const ends: (DeferredPart | undefined)[] = [];
    followDeferredParts(response, { end: (last) => void ends.push(last) });
    await expect(drain(response.body.subsequentResults)).rejects.toThrow('execution stopped');
    expect(ends).toEqual([undefined]);
  });
});
