/**
 * Reads the examples of the project's Markdown (README.md and docs/*.md) the way the docs test runs
 * them. What counts as an example, and how a block says what it is:
 *
 * - a ```graphql block is an operation; a ```json block right after it (nothing but blank lines
 *   between) holds its variables;
 * - a ```json block with a `"query"` is a request body, posted as it is;
 * - a ```sh block with a `curl` command is a shell script, run as written;
 * - a ```ts or ```js block that imports what it uses is a program, run with Node as pasted (a ```ts
 *   one with Node's type stripping); a ```text block right after it (nothing but blank lines
 *   between) is what it prints, line for line, `…` standing for any text; a ```ts block without
 *   imports must be marked not runnable (a client configuration fragment, for example).
 *
 * A block is marked by an HTML comment on the last non-blank line before it, which Markdown renders
 * as nothing: `<!-- docs-test: expect-error CODE -->` (the example shows an error, and every answer of
 * the block must carry that `extensions.code`) or `<!-- docs-test: not-runnable (why) -->`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const REPO_ROOT = join(import.meta.dirname, '..', '..', '..');

export type Marker =
  | { readonly kind: 'run' }
  | { readonly kind: 'expect-error'; readonly code: string }
  | { readonly kind: 'not-runnable'; readonly reason: string };

export interface FencedBlock {
  /** `docs/graph.md:8`: where the block opens. */
  readonly where: string;
  readonly language: string;
  readonly text: string;
  readonly marker: Marker;
  /**
   * The block right after it, when there is one: a ```json after a graphql block (its variables), a
   * ```text after a program (what it prints).
   */
  readonly next: FencedBlock | undefined;
}

export interface DocExample {
  readonly where: string;
  readonly marker: Marker;
  readonly example:
    | { readonly kind: 'operation'; readonly query: string; readonly variables?: unknown }
    | { readonly kind: 'request-body'; readonly body: string }
    | { readonly kind: 'shell'; readonly script: string }
    | {
        readonly kind: 'program';
        readonly source: string;
        readonly typescript: boolean;
        /** What it prints, when a ```text block follows it. */
        readonly prints?: string;
      };
}

/** README.md and every docs/*.md, as paths relative to the repository. */
export function markdownFiles(): string[] {
  const docs = readdirSync(join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

const MARKER = /^<!--\s*docs-test:\s*(.*?)\s*-->$/;

function markerOf(line: string | undefined, where: string): Marker {
  const found = line === undefined ? null : MARKER.exec(line.trim());
  if (!found) return { kind: 'run' };
  const directive = found[1]!;
  const expectError = /^expect-error ([A-Z_]+)$/.exec(directive);
  if (expectError) return { kind: 'expect-error', code: expectError[1]! };
  const notRunnable = /^not-runnable \((.+)\)$/.exec(directive);
  if (notRunnable) return { kind: 'not-runnable', reason: notRunnable[1]! };
  throw new Error(`${where}: unknown docs-test marker "${directive}"`);
}

/** Every fenced block of a Markdown file, in order, with its marker. */
export function fencedBlocks(path: string): FencedBlock[] {
  const lines = readFileSync(join(REPO_ROOT, path), 'utf8').split('\n');
  const raw: { line: number; language: string; text: string; marker: Marker; end: number }[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !/^\s*```\s*$/.test(lines[j]!)) {
      body.push(lines[j]!.slice(indent));
      j += 1;
    }
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === '') before -= 1;
    const where = `${path}:${i + 1}`;
    raw.push({
      line: i + 1,
      language: open[2]!,
      text: body.join('\n'),
      marker: markerOf(lines[before], where),
      end: j,
    });
    i = j;
  }
  const blocks: FencedBlock[] = [];
  for (let k = raw.length - 1; k >= 0; k -= 1) {
    const block = raw[k]!;
    const following = raw[k + 1];
    const pairs =
      (block.language === 'graphql' && following?.language === 'json') ||
      (PROGRAM_LANGUAGES.has(block.language) && following?.language === 'text');
    const adjacent =
      following !== undefined &&
      pairs &&
      lines.slice(block.end + 1, following.line - 1).every((line) => line.trim() === '');
    blocks[k] = {
      where: `${path}:${block.line}`,
      language: block.language,
      text: block.text,
      marker: block.marker,
      next: adjacent ? blocks[k + 1] : undefined,
    };
  }
  return blocks;
}

const PROGRAM_LANGUAGES = new Set(['ts', 'js']);

const hasQuery = (text: string): boolean => {
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null && 'query' in parsed;
  } catch {
    return false;
  }
};

/** The examples of one Markdown file, in document order (later ones may rely on earlier ones). */
export function docExamples(path: string): DocExample[] {
  const blocks = fencedBlocks(path);
  const variableBlocks = new Set(
    blocks.filter((block) => block.language === 'graphql').map((block) => block.next),
  );
  const examples: DocExample[] = [];
  for (const block of blocks) {
    const { where, marker, text } = block;
    if (block.language === 'graphql') {
      const variables = block.next ? (JSON.parse(block.next.text) as unknown) : undefined;
      examples.push({ where, marker, example: { kind: 'operation', query: text, variables } });
    } else if (block.language === 'json' && !variableBlocks.has(block) && hasQuery(text)) {
      examples.push({ where, marker, example: { kind: 'request-body', body: text } });
    } else if (block.language === 'sh' && /(^|[\s;&|(])curl\s/m.test(text)) {
      examples.push({ where, marker, example: { kind: 'shell', script: text } });
    } else if (PROGRAM_LANGUAGES.has(block.language)) {
      if (!/^import\s/m.test(text) && marker.kind !== 'not-runnable') {
        throw new Error(
          `${where}: a ts block without imports is a fragment: mark it <!-- docs-test: not-runnable (why) -->`,
        );
      }
      const typescript = block.language === 'ts';
      const prints = block.next?.text;
      examples.push({
        where,
        marker,
        example: { kind: 'program', source: text, typescript, ...(prints ? { prints } : {}) },
      });
    }
  }
  return examples;
}
