/** Step 2's verdicts, remembered by the document's text (never by the string object). */
import { describe, expect, it } from 'vitest';
import { createOperationPipeline } from '../../../src/server/operation-pipeline.ts';
import type { OperationLimits } from '../../../src/server/limits/operation-limits.ts';

const limits: OperationLimits = {
  maxDepth: 3,
  maxAliases: 5,
  maxRootFields: 5,
  maxDirectives: 5,
  maxTokens: 500,
  maxDocumentBytes: 2_000,
  maxCost: 1_000,
  maxUpstreamCalls: 150,
  defaultListSize: 10,
};

/** The same text as a new string each time, as every request body's parse makes it. */
const fresh = (text: string) => JSON.parse(JSON.stringify(text)) as string;

describe('operation pipeline, document verdicts', () => {
  const deep = '{ a { b { c { d { e } } } } }';

  it('remembers a refusal by the text: the same document is refused alike, without a new check', () => {
    const pipeline = createOperationPipeline(limits, undefined);
    const first = pipeline.refuseDocument({ query: fresh(deep), sha256Hash: undefined });
    expect(first?.details).toMatchObject({ limit: 'depth', max: 3 });
    expect(pipeline.refuseDocument({ query: fresh(deep), sha256Hash: undefined })).toBe(first);
    expect(
      pipeline.refuseDocument({ query: fresh('{ a }'), sha256Hash: undefined }),
    ).toBeUndefined();
    expect(
      pipeline.refuseDocument({ query: fresh('{ a }'), sha256Hash: undefined }),
    ).toBeUndefined();
  });

  it('refuses an oversize document by its length every time, keeping no room for it', () => {
    const pipeline = createOperationPipeline(limits, undefined);
    const oversize = `{ a ${'#'.repeat(3_000)}\n }`;
    const first = pipeline.refuseDocument({ query: fresh(oversize), sha256Hash: undefined });
    expect(first?.details).toMatchObject({ limit: 'documentSize' });
    const second = pipeline.refuseDocument({ query: fresh(oversize), sha256Hash: undefined });
    expect(second?.details).toEqual(first?.details);
    expect(second).not.toBe(first);
  });
});
