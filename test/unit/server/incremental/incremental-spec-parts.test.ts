/**
 * The `incrementalSpec=v0.2` parts (src/server/incremental/incremental-spec-parts.ts and
 * pending-markers.ts) of real executions (`@graphql-tools/executor`, as the gateway runs them): each
 * part announces in `pending` what its data opens, with the path and label a client places data by;
 * every entry and completion names an announced id; every pending record completes once; no marker
 * reaches the client; and the parts, merged as a v0.2 client merges them, are the whole answer.
 */
import { execute } from '@graphql-tools/executor';
import { buildSchema, execute as executeWhole, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { inIncrementalSpec } from '../../../../src/server/incremental/incremental-spec-parts.ts';
import { markPending } from '../../../../src/server/incremental/pending-markers.ts';

const schema = buildSchema(`
  directive @defer(if: Boolean! = true, label: String) on FRAGMENT_SPREAD | INLINE_FRAGMENT
  directive @stream(if: Boolean! = true, label: String, initialCount: Int = 0) on FIELD
  interface Named { name: String! }
  type App implements Named { name: String! size: Int! deployments: [Deployment!]! }
  type Site implements Named { name: String! url: String! }
  type Deployment { id: ID! log: String! broken: String! }
  type Query { things: [Named!]! app: App! }
`);

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const deployments = [1, 2, 3, 4].map((n) => ({
  id: `d${n}`,
  // Each deployment's log answers at its own time; the third one's `broken` is null.
  log: async () => {
    await tick(n);
    return `log ${n}`;
  },
  broken: () => (n === 3 ? null : 'fine'),
}));
const app = { __typename: 'App', name: 'app', size: 3, deployments };
const rootValue = {
  things: [app, { __typename: 'Site', name: 'site', url: 'https://site' }],
  app,
};

interface Part {
  data?: Record<string, unknown>;
  pending?: { id: string; path: (string | number)[]; label?: string }[];
  incremental?: { id: string; data?: Record<string, unknown>; items?: unknown[]; subPath?: [] }[];
  completed?: { id: string; errors?: unknown[] }[];
  hasNext: boolean;
}

async function partsOf(source: string, variables: Record<string, unknown> = {}): Promise<Part[]> {
  const document = parse(source);
  const marked = markPending(document);
  const result = await execute({
    schema,
    document: marked.document,
    rootValue,
    variableValues: variables,
  });
  if (!('initialResult' in result)) throw new Error('expected an answer in parts');
  const converted = inIncrementalSpec(
    result.initialResult as never,
    result.subsequentResults as never,
    marked,
    variables,
  );
  const parts: Part[] = [converted.initialResult as Part];
  for await (const part of converted.subsequentResults) parts.push(part as Part);
  return parts;
}

const at = (data: unknown, path: readonly (string | number)[]): any =>
  path.reduce<any>((value, key) => value?.[key], data);

function deepMerge(target: any, source: any): any {
  if (source === null || typeof source !== 'object') return source;
  const out: any = Array.isArray(source) ? [...(target ?? [])] : { ...target };
  for (const [key, value] of Object.entries(source)) out[key] = deepMerge(out[key], value);
  return out;
}

/**
 * Merges the parts as a v0.2 client does (by the pending records' paths), checking the format's
 * rules on the way; returns the merged data and the records, by id.
 */
function merge(parts: Part[]) {
  const records = new Map<string, { path: (string | number)[]; label?: string }>();
  const completed = new Set<string>();
  const streamed = new Map<string, number>();
  let data: any = parts[0]!.data;
  parts.forEach((part, index) => {
    expect(part.hasNext).toBe(index < parts.length - 1);
    for (const pending of part.pending ?? []) {
      expect(records.has(pending.id)).toBe(false);
      records.set(pending.id, pending);
    }
    for (const pending of part.pending ?? []) {
      // The path is in the data delivered so far, or in this part's own entries.
      const list = at(data, pending.path) ?? at(data, pending.path.slice(0, -1));
      expect(list, `pending ${pending.id} at ${pending.path.join('.')}`).toBeDefined();
    }
    for (const entry of part.incremental ?? []) {
      const record = records.get(entry.id);
      expect(record, `entry for unannounced id ${entry.id}`).toBeDefined();
      expect(completed.has(entry.id)).toBe(false);
      if (entry.items) {
        const list = at(data, record!.path) as unknown[];
        const from = streamed.get(entry.id) ?? list.length;
        const next = [...list];
        entry.items.forEach((item, offset) => (next[from + offset] = item));
        streamed.set(entry.id, from + entry.items.length);
        data = deepMerge(data, setAt(record!.path, next));
      } else {
        data = deepMerge(data, setAt(record!.path, entry.data));
      }
    }
    for (const done of part.completed ?? []) {
      expect(records.has(done.id), `completion of unannounced id ${done.id}`).toBe(true);
      expect(completed.has(done.id)).toBe(false);
      completed.add(done.id);
    }
  });
  expect([...completed].sort()).toEqual([...records.keys()].sort());
  return { data, records: [...records.values()] };
}

function setAt(path: readonly (string | number)[], value: unknown): any {
  let out: any = value;
  for (let index = path.length - 1; index >= 0; index -= 1) {
    const key = path[index]!;
    const level: any = typeof key === 'number' ? [] : {};
    level[key] = out;
    out = level;
  }
  return out;
}

/** The answer the same query gets whole (graphql 16 ignores `@defer` and `@stream`). */
async function whole(source: string, variables: Record<string, unknown> = {}) {
  return (
    await executeWhole({ schema, document: parse(source), rootValue, variableValues: variables })
  ).data;
}

describe('incrementalSpec=v0.2 parts', () => {
  it('announces each deferred fragment where its object is, under its type condition only', async () => {
    const query = `{ things { name ... on App @defer(label: "app") { size } ... on Site @defer(label: "site") { url } } }`;
    const parts = await partsOf(query);
    expect(parts[0]).toEqual({
      data: { things: [{ name: 'app' }, { name: 'site' }] },
      pending: [
        { id: '0', path: ['things', 0], label: 'app' },
        { id: '1', path: ['things', 1], label: 'site' },
      ],
      hasNext: true,
    });
    expect(merge(parts).data).toEqual(await whole(query));
  });

  it('announces a fragment deferred inside another of the same object in the first part', async () => {
    const query = `{ app { name ... @defer(label: "outer") { size ...Deployments @defer(label: "inner") } } }
      fragment Deployments on App { deployments { id } }`;
    const parts = await partsOf(query);
    expect(parts[0]!.pending).toEqual([
      { id: '0', path: ['app'], label: 'outer' },
      { id: '1', path: ['app'], label: 'inner' },
    ]);
    expect(merge(parts).data).toEqual(await whole(query));
  });

  it('announces a stream with the list, its items by the list, fragments deferred in items with them', async () => {
    const query = `{ app { deployments @stream(initialCount: 1, label: "list") { id ... @defer(label: "log") { log } } } }`;
    const parts = await partsOf(query);
    expect(parts[0]).toEqual({
      data: { app: { deployments: [{ id: 'd1' }] } },
      pending: [
        { id: '0', path: ['app', 'deployments', 0], label: 'log' },
        { id: '1', path: ['app', 'deployments'], label: 'list' },
      ],
      hasNext: true,
    });
    const { data, records } = merge(parts);
    expect(data).toEqual(await whole(query));
    // Each streamed item's deferred log was announced with the item, at the item's index.
    expect(records.filter((record) => record.label === 'log').map((r) => r.path)).toEqual(
      [0, 1, 2, 3].map((index) => ['app', 'deployments', index]),
    );
    for (const part of parts) expect(JSON.stringify(part)).not.toContain('__weft');
  });

  it('announces a stream inside a deferred fragment in the part that delivers the fragment', async () => {
    const query = `{ app { name ... @defer(label: "later") { deployments @stream(initialCount: 2) { id } } } }`;
    const parts = await partsOf(query);
    expect(parts[0]!.pending).toEqual([{ id: '0', path: ['app'], label: 'later' }]);
    expect(parts[1]!.pending).toEqual([{ id: '1', path: ['app', 'deployments'] }]);
    expect(merge(parts).data).toEqual(await whole(query));
  });

  it('follows `if` and labels given as variables; a list no longer than initialCount is not pending', async () => {
    const query = `query ($on: Boolean!, $label: String) {
      app { ... @defer(if: $on, label: $label) { size } deployments @stream(if: $on, initialCount: 4) { id } } }`;
    const on = await partsOf(query, { on: true, label: 'size' });
    expect(on[0]!.pending).toEqual([
      { id: '0', path: ['app', 'deployments'] },
      { id: '1', path: ['app'], label: 'size' },
    ]);
    expect(merge(on).data).toEqual(await whole(query, { on: true }));
    const shortList = await partsOf(
      `{ app { ... @defer { size } deployments @stream(initialCount: 5) { id } } }`,
    );
    expect(shortList[0]!.pending).toEqual([{ id: '0', path: ['app'] }]);
  });

  it('completes a list that failed with its errors, and writes none of its later items', async () => {
    const query = `{ app { deployments @stream(initialCount: 1) { id broken } } }`;
    const parts = await partsOf(query);
    const failed = parts.flatMap((part) => part.completed ?? []).find((done) => done.errors);
    expect(failed).toMatchObject({
      id: '0',
      errors: [expect.objectContaining({ path: ['app', 'deployments', 2, 'broken'] })],
    });
    const items = parts.flatMap((part) => part.incremental ?? []).flatMap((entry) => entry.items);
    expect(items).not.toContainEqual(expect.objectContaining({ id: 'd4' }));
    merge(parts);
  });
});
