/**
 * Docs that run: every example of README.md and docs/*.md (doc-examples.ts says what counts and how
 * a block is marked) runs against a real simulator and gateway, one fresh pair per Markdown file, in
 * document order, so a later example may use what an earlier one created (docs/graph.md's flow).
 *
 * Shell examples run as written: bash runs the block in an empty temporary directory with the real
 * `curl`, the only change being `localhost:4000` → the test gateway's address. `curl` is wrapped in a
 * shell function that keeps each call's status, content type and body, so every answer is checked.
 * Programs (```ts and ```js blocks with imports) run as pasted with Node — a ```ts one with type
 * stripping — from a temporary directory inside the repository, so their imports resolve to the
 * project's dependencies (the client libraries the client tests use), with `localhost:4000` → the test
 * gateway's address and an `app.zip` beside them for the ones that upload. A program passes when it
 * exits 0 and prints what the ```text block under it shows (`…`: any text), or, without one, when
 * it prints no empty, `undefined` or `null` line.
 *
 * An answer passes when its status is 200 and it carries no GraphQL error, no `userErrors` entry and,
 * for an event stream, at least one `next` event and a `complete` (for an answer in parts, `@defer`:
 * in no part, and a last part). A block marked expect-error passes
 * when every answer carries errors, all of that code.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import {
  REPO_ROOT,
  docExamples,
  markdownFiles,
  type DocExample,
  type Marker,
} from './doc-examples.ts';

const run = promisify(execFile);
const DOCUMENTED_ORIGIN = 'localhost:4000';

interface Answer {
  readonly label: string;
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/**
 * An answer in parts (`@defer`, `multipart/mixed`) as one result: the first part's data, and the
 * errors of every part (a deferred part's errors are in its `incremental` entries).
 */
function partsResultOf(answer: Answer): { results: any[]; problems: string[] } {
  const boundary = /boundary="?([^";]+)"?/.exec(answer.contentType)?.[1] ?? '-';
  const parts = answer.body
    .split(`\r\n--${boundary}`)
    .map((part) => part.slice(part.indexOf('\r\n\r\n') + 4).trim())
    .filter((json) => json.startsWith('{'))
    .map((json) => JSON.parse(json) as any);
  if (parts.length === 0) return { results: [], problems: [`${answer.label}: no part`] };
  const errors = parts.flatMap((part) => [
    ...(part.errors ?? []),
    ...(part.incremental ?? []).flatMap((entry: any) => entry.errors ?? []),
  ]);
  const problems = parts.at(-1).hasNext === false ? [] : [`${answer.label}: no last part`];
  return {
    results: [{ data: parts[0].data, errors: errors.length > 0 ? errors : undefined }],
    problems,
  };
}

/** The GraphQL results of one answer: the JSON body, each `next` event of a stream, or its parts. */
function resultsOf(answer: Answer): { results: any[]; problems: string[] } {
  if (answer.contentType.startsWith('multipart/mixed')) return partsResultOf(answer);
  if (!answer.contentType.startsWith('text/event-stream')) {
    try {
      return { results: [JSON.parse(answer.body)], problems: [] };
    } catch {
      return { results: [], problems: [`${answer.label}: not JSON: ${answer.body.slice(0, 200)}`] };
    }
  }
  const events = answer.body
    .split(/\r?\n\r?\n/)
    .filter((chunk) => chunk.trim() !== '')
    .map((chunk) => {
      const lines = chunk.split(/\r?\n/);
      const event = lines
        .find((line) => line.startsWith('event:'))
        ?.slice(6)
        .trim();
      const data = lines
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .join('\n');
      return { event, data };
    });
  const nexts = events.filter((e) => e.event === 'next').map((e) => JSON.parse(e.data) as unknown);
  const problems: string[] = [];
  if (nexts.length === 0) problems.push(`${answer.label}: the stream sent no result`);
  if (!events.some((e) => e.event === 'complete'))
    problems.push(`${answer.label}: the stream did not complete`);
  return { results: nexts, problems };
}

/** Every `userErrors` entry anywhere in `data`. */
function userErrorsIn(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(userErrorsIn);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === 'userErrors' && Array.isArray(inner) ? inner : userErrorsIn(inner),
  );
}

/** What is wrong with an answer, given the block's marker; nothing when it is as documented. */
function problemsOf(answer: Answer, marker: Marker): string[] {
  const { results, problems } = resultsOf(answer);
  for (const result of results) {
    const errors: any[] = result.errors ?? [];
    if (marker.kind === 'expect-error') {
      const codes = errors.map((error) => error.extensions?.code);
      if (codes.length === 0 || codes.some((code) => code !== marker.code))
        problems.push(`${answer.label}: expected only ${marker.code}, got [${codes.join(', ')}]`);
      continue;
    }
    for (const error of errors)
      problems.push(`${answer.label}: ${error.extensions?.code}: ${error.message}`);
    for (const userError of userErrorsIn(result.data))
      problems.push(`${answer.label}: userError ${JSON.stringify(userError)}`);
  }
  if (marker.kind !== 'expect-error' && answer.status !== 200)
    problems.push(`${answer.label}: HTTP ${answer.status}`);
  return problems;
}

/** Records each curl call of a script instead of printing it: `<n>.meta` (status, type), `<n>.body`. */
const CURL_RECORDER = `
set -euo pipefail
__docs_calls=0
curl() {
  __docs_calls=$((__docs_calls + 1))
  command curl --max-time 60 -o "$DOCS_TEST_OUT/$__docs_calls.body" \\
    -w '%{http_code}\\n%{content_type}\\n' "$@" > "$DOCS_TEST_OUT/$__docs_calls.meta"
}
`;

async function runShell(script: string, gatewayUrl: string): Promise<Answer[]> {
  const dir = await mkdtemp(join(tmpdir(), 'weft-docs-'));
  try {
    const out = join(dir, '.calls');
    await run('mkdir', [out]);
    const host = new URL(gatewayUrl).host;
    await run('bash', ['-c', CURL_RECORDER + script.replaceAll(DOCUMENTED_ORIGIN, host)], {
      cwd: dir,
      env: { ...process.env, DOCS_TEST_OUT: out },
      timeout: 120_000,
    });
    const answers: Answer[] = [];
    for (let call = 1; ; call += 1) {
      const meta = await readFile(join(out, `${call}.meta`), 'utf8').catch(() => undefined);
      if (meta === undefined) break;
      const [status, contentType] = meta.split('\n');
      answers.push({
        label: `curl #${call}`,
        status: Number(status),
        contentType: contentType ?? '',
        body: await readFile(join(out, `${call}.body`), 'utf8'),
      });
    }
    return answers;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Runs a program as a reader would run the pasted block (`node app.ts`), from a directory inside the
 * repository so that its imports resolve to the project's node_modules; an `app.zip` (a one-file
 * archive made with `zip`) is beside it for the programs that upload one. Returns what it printed;
 * a non-zero exit fails with its stderr.
 */
async function runProgram(source: string, typescript: boolean): Promise<string> {
  const dir = await mkdtemp(join(REPO_ROOT, '.docs-test-'));
  try {
    await writeFile(join(dir, 'index.js'), "console.log('hello from app.zip');\n");
    await run('zip', ['-q', 'app.zip', 'index.js'], { cwd: dir });
    const running = run(
      process.execPath,
      [`--input-type=${typescript ? 'module-typescript' : 'module'}`],
      { cwd: dir, timeout: 60_000 },
    );
    running.child.stdin!.end(source);
    const { stdout } = await running;
    return stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Why the printed lines are not the documented ones (`…` in a documented line: any text), if so. */
function printsAsDocumented(printed: string[], documented: string[]): string | undefined {
  const pattern = (line: string) =>
    new RegExp(
      `^${line
        .split('…')
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
  const matches =
    printed.length === documented.length &&
    documented.every((line, i) => pattern(line).test(printed[i]!));
  return matches
    ? undefined
    : `printed ${JSON.stringify(printed)}, documented ${JSON.stringify(documented)}`;
}

async function runExample(stack: Stack, { example }: DocExample): Promise<Answer[]> {
  switch (example.kind) {
    case 'operation': {
      const res = await stack.gql(example.query, example.variables as Record<string, unknown>);
      return [{ label: 'operation', status: res.status, contentType: 'json', body: res.text }];
    }
    case 'request-body': {
      const res = await stack.http('POST', '/graphql', {
        headers: { 'content-type': 'application/json', authorization: 'Bearer demo-token' },
        body: example.body,
      });
      return [{ label: 'request body', status: res.status, contentType: 'json', body: res.text }];
    }
    case 'shell':
      return runShell(example.script, stack.url);
    case 'program': {
      const host = new URL(stack.url).host;
      const stdout = await runProgram(
        example.source.replaceAll(DOCUMENTED_ORIGIN, host),
        example.typescript,
      );
      const printed = stdout.trim().split('\n');
      if (example.prints !== undefined) {
        const mismatch = printsAsDocumented(printed, example.prints.split('\n'));
        return [
          {
            label: 'program',
            status: 200,
            contentType: 'json',
            body: JSON.stringify(
              mismatch ? { errors: [{ message: mismatch }] } : { data: { printed } },
            ),
          },
        ];
      }
      // Without a ```text block, what a program prints is its answer.
      return [
        {
          label: 'program',
          status: 200,
          contentType: 'json',
          body: JSON.stringify(
            printed.some((line) => line === 'undefined' || line === 'null' || line === '')
              ? { errors: [{ message: `printed ${JSON.stringify(printed)}` }] }
              : { data: { printed } },
          ),
        },
      ];
    }
  }
}

const files = markdownFiles()
  .map((path) => ({ path, examples: docExamples(path) }))
  .filter(({ examples }) => examples.some((e) => e.marker.kind !== 'not-runnable'));

describe('documentation examples', () => {
  it('finds the examples, and marks few as not runnable', () => {
    const all = markdownFiles().flatMap(docExamples);
    expect(all.filter((e) => e.example.kind === 'operation').length).toBeGreaterThan(0);
    expect(all.filter((e) => e.example.kind === 'shell').length).toBeGreaterThan(0);
    const notRunnable = all.filter((e) => e.marker.kind === 'not-runnable');
    expect(notRunnable.length).toBeLessThanOrEqual(all.length / 2);
  });
});

/** The settings a page tells its reader to set before its examples (its gateway starts with them). */
const PAGE_SETTINGS: Readonly<Record<string, Record<string, string>>> = {
  'docs/agents.md': { MCP: 'on', MCP_OPERATIONS_DIR: 'examples/mcp' },
};

for (const { path, examples } of files) {
  describe(path, () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({ env: PAGE_SETTINGS[path] });
    });
    afterAll(() => stack?.close());

    for (const entry of examples) {
      if (entry.marker.kind === 'not-runnable') continue;
      it(`${entry.where} (${entry.example.kind}) answers as documented`, async () => {
        const answers = await runExample(stack, entry);
        expect(answers.length, 'the example made no request').toBeGreaterThan(0);
        expect(answers.flatMap((answer) => problemsOf(answer, entry.marker))).toEqual([]);
      }, 120_000);
    }
  });
}
