/**
 * `npm run cost -- <files, folders or a trusted-documents manifest> [--max N]`: the upper bound of
 * upstream calls of every operation a client ships (docs/budget.md), as the gateway computes it
 * before running one. Prints each operation's bound and its costliest fields; exits 1 when an
 * operation's bound is above the threshold (`--max`, default the gateway's LIMIT_MAX_UPSTREAM_CALLS),
 * or when a document does not parse or validate against the graph, so a front end's CI can refuse
 * it before it ships. Variables are not known at build time: a variable takes its default, and a
 * paging argument given by a variable without one counts as the most the upstream's page can hold.
 * A list the upstream does not page (`apps`) counts its assumed maximum; the bound is also printed
 * as what it is per item of such a list (the gateway refines it so once the list arrives, and the
 * ledger shows that refined bound), and `--length Query.apps=3` bounds it with a length you know.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { Kind, parse, validate, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import { loadConfig } from '../src/config.ts';
import { buildGatewaySchema } from '../src/graph/build-schema.ts';
import { callBounds } from '../src/graph/call-bounds.ts';
import { upstreamCallBound } from '../src/server/demand-control/upstream-call-bound.ts';
import { loadTrustedDocuments } from '../src/server/persisted-operations/trusted-documents.ts';

const USAGE =
  'usage: npm run cost -- <file.graphql | folder | manifest.json> … [--max N] [--length Type.field=N …]';

interface Source {
  readonly name: string;
  readonly text: string;
}

/** The documents named on the command line: .graphql/.gql files (folders walked), manifests. */
async function sourcesOf(paths: readonly string[]): Promise<Source[]> {
  const sources: Source[] = [];
  for (const path of paths) {
    if ((await stat(path)).isDirectory()) {
      const entries = await readdir(path, { recursive: true });
      const files = entries.filter((entry) => ['.graphql', '.gql'].includes(extname(entry)));
      sources.push(...(await sourcesOf(files.sort().map((entry) => join(path, entry)))));
    } else if (extname(path) === '.json') {
      const trusted = await loadTrustedDocuments(path);
      let index = 0;
      for (const text of trusted.documents())
        sources.push({ name: `${path}#${(index += 1)}`, text });
    } else {
      sources.push({ name: path, text: await readFile(path, 'utf8') });
    }
  }
  return sources;
}

function argsOf(argv: readonly string[]): {
  paths: string[];
  max: number | undefined;
  lengths: Map<string, number>;
} {
  const paths: string[] = [];
  const lengths = new Map<string, number>();
  let max: number | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--max') {
      max = Number(argv[(i += 1)]);
      if (!Number.isInteger(max) || max < 0)
        throw new Error(`--max needs a whole number\n${USAGE}`);
    } else if (arg === '--length') {
      const [field, count] = (argv[(i += 1)] ?? '').split('=');
      const length = Number(count);
      if (!field || !/^\w+\.\w+$/.test(field) || !Number.isInteger(length) || length < 0)
        throw new Error(`--length needs Type.field=N (a whole number)\n${USAGE}`);
      lengths.set(field, length);
    } else if (arg === '--help' || arg === '-h') {
      throw new Error(USAGE);
    } else {
      paths.push(arg);
    }
  }
  if (paths.length === 0) throw new Error(USAGE);
  return { paths, max, lengths };
}

/**
 * `; per item of Query.apps (its length unknown here): 9 + 2 × n`: the bound as the gateway refines
 * it once each unpaged list arrives — a line's bound is linear in each list's length.
 */
function perItem(
  unpaged: readonly string[],
  lengths: ReadonlyMap<string, number>,
  boundWith: (known: ReadonlyMap<string, number>) => { calls: number },
): string {
  if (unpaged.length === 0) return '';
  const none = new Map([...lengths, ...unpaged.map((field) => [field, 0] as const)]);
  const fixed = boundWith(none).calls;
  const terms = unpaged.map((field) => {
    const each = boundWith(new Map([...none, [field, 1]])).calls - fixed;
    return `${each} × ${field}`;
  });
  return `; once its unpaged lists arrive: ${fixed} + ${terms.join(' + ')} (their lengths: --length)`;
}

async function main(): Promise<number> {
  const { paths, max: given, lengths } = argsOf(process.argv.slice(2));
  const max = given ?? loadConfig({}).LIMIT_MAX_UPSTREAM_CALLS;
  const schema = await buildGatewaySchema();
  const declarations = callBounds();
  let failed = false;
  for (const source of await sourcesOf(paths)) {
    let document: DocumentNode;
    try {
      document = parse(source.text);
    } catch (error) {
      console.log(`${source.name}: does not parse: ${(error as Error).message}`);
      failed = true;
      continue;
    }
    const errors = validate(schema, document);
    if (errors.length > 0) {
      console.log(`${source.name}: invalid against the graph: ${errors[0]!.message}`);
      failed = true;
      continue;
    }
    const operations = document.definitions.filter(
      (definition): definition is OperationDefinitionNode =>
        definition.kind === Kind.OPERATION_DEFINITION,
    );
    for (const operation of operations) {
      const name = `${source.name} ${operation.name?.value ?? '(anonymous)'}`;
      if (operation.operation === 'subscription') {
        console.log(`${name}: subscription (bounded per event)`);
        continue;
      }
      const boundWith = (known: ReadonlyMap<string, number>) =>
        upstreamCallBound(schema, document, operation, {}, declarations, known);
      const bound = boundWith(lengths);
      const over = bound.calls > max;
      failed ||= over;
      const top = bound.byField
        .slice(0, 3)
        .map((field) => `${field.field} ${field.calls}`)
        .join(', ');
      console.log(
        `${name}: at most ${bound.calls} upstream calls${over ? ` — over ${max}` : ''}` +
          (top ? ` (${top})` : '') +
          perItem(bound.unpaged, lengths, boundWith),
      );
    }
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error((error as Error).message);
    process.exit(2);
  },
);
