/**
 * The repository paths a Markdown file mentions, and whether each exists. Three kinds are read:
 *
 * - a path from the root (`src/…`, `test/…`, `schema/…`, `docs/…`, `.ci/…`) anywhere in the text,
 *   prose or code; `<domain>` stands for one path segment (the same one each time it appears), `*`
 *   for part of a name, `**` before a slash for any folders, and `{catalog,tax,order}` for each of
 *   its names (every one must exist);
 * - a file name in a code span (`operation-cost.ts`, or a suffix such as `.loaders.ts`): some file
 *   of the repository must have that name (or end with it);
 * - a relative Markdown link (`[errors](errors.md)`), from the linking file's folder.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { REPO_ROOT } from './doc-examples.ts';

/** Every file and folder of the repository (relative, `/`-separated), without dependencies or git. */
function repositoryEntries(): string[] {
  const entries: string[] = [];
  const walk = (relative: string): void => {
    for (const entry of readdirSync(join(REPO_ROOT, relative), { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === '.git') continue;
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      entries.push(entry.isDirectory() ? `${path}/` : path);
      if (entry.isDirectory()) walk(path);
    }
  };
  walk('');
  return entries;
}

const ROOTED_PATH = /(?<![\w./-])(?:\.ci|src|test|schema|docs)\/[^\s`'"()[\]|]*/g;
const CODE_SPAN = /`([^`\n]+)`/g;
const FILE_NAME = /^\.?[\w.-]+\.(?:ts|md|graphql|cjs|mjs|json|yml)$/;
const MARKDOWN_LINK = /\]\(([^)\s#]+)(?:#[^)]*)?\)/g;

const escapeRegExp = (text: string): string => text.replace(/[.+?^$()|[\]\\]/g, '\\$&');

/** `src/<domain>/*.api.ts` → a pattern over repository entries (a trailing `/` is a folder). */
function patternOf(path: string): RegExp {
  const placeholders = new Set<string>();
  const source = path
    .split(/(\*\*\/|<[^>]+>|\*)/)
    .map((part) => {
      if (part === '**/') return '(?:[^/]+/)*';
      if (part === '*') return '[^/]*';
      const placeholder = /^<([a-z]+)>$/.exec(part)?.[1];
      if (placeholder === undefined) return escapeRegExp(part);
      // One placeholder names one thing: `src/<domain>/<domain>.request.ts` is one domain's file.
      if (placeholders.has(placeholder)) return `\\k<${placeholder}>`;
      placeholders.add(placeholder);
      return `(?<${placeholder}>[^/]+)`;
    })
    .join('');
  return new RegExp(`^${source}${path.endsWith('/') ? '' : '/?'}$`);
}

/** `schema/remote/{catalog,tax}.graphql` → both paths. */
function expandBraces(path: string): string[] {
  const brace = /\{([^{}]+)\}/.exec(path);
  if (!brace) return [path];
  return brace[1]!
    .split(',')
    .flatMap((choice) =>
      expandBraces(path.slice(0, brace.index) + choice + path.slice(brace.index + brace[0].length)),
    );
}

/** Every path the file mentions that names nothing in the repository. */
export function missingPaths(markdownPath: string): string[] {
  const text = readFileSync(join(REPO_ROOT, markdownPath), 'utf8');
  const entries = repositoryEntries();
  const missing = new Set<string>();

  for (const [found] of text.matchAll(ROOTED_PATH)) {
    // Sentence punctuation and an ellipsis after a path are not part of it.
    const mentioned = found.replace(/#.*$/, '').replace(/[.,;:…]+$/, '');
    for (const path of expandBraces(mentioned)) {
      const pattern = patternOf(path);
      if (!entries.some((entry) => pattern.test(entry))) missing.add(path);
    }
  }
  for (const [, span] of text.matchAll(CODE_SPAN)) {
    for (const word of span!.split(/[\s,()]+/)) {
      if (!FILE_NAME.test(word) || word.includes('/')) continue;
      const named = (entry: string) => posix.basename(entry) === word || entry.endsWith(word);
      if (!entries.some(named)) missing.add(word);
    }
  }
  for (const [, target] of text.matchAll(MARKDOWN_LINK)) {
    if (/^[a-z]+:/.test(target!)) continue; // a URL, not a file
    if (!existsSync(join(REPO_ROOT, dirname(markdownPath), target!))) missing.add(target!);
  }
  return [...missing];
}

/**
 * What the repository sits beside but a clone does not have: the team's shared folder (the
 * upstream's documents, the original design, the peer harness). The docs must stand on their own.
 */
const OUTSIDE_THE_CLONE = /\.\.\/shared\b|\bDESIGN\.md\b|\bcontract\.graphql\b/g;

/** The mentions of places outside a clone of the repository. */
export function outsideReferences(markdownPath: string): string[] {
  const text = readFileSync(join(REPO_ROOT, markdownPath), 'utf8');
  return [...text.matchAll(OUTSIDE_THE_CLONE)].map((match) => match[0]);
}
