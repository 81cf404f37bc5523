/**
 * `npm run lines:check` (part of `npm run check`): no product file is longer than
 * {@link MAX_LINES} lines, so that a file holds one idea a reader can keep in mind. Product files
 * are the TypeScript under src/, except the simulator (the upstream's stand-in, not the product)
 * and src/generated/ (written by codegen).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

export const MAX_LINES = 400;

const ROOT = new URL('../', import.meta.url).pathname;
const LEFT_OUT = /^src\/(simulator|generated)\//;

async function productFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .filter((path) => !LEFT_OUT.test(path))
    .sort();
}

/** A line per file that breaks the rule (empty when every file keeps it). */
export async function fileLengthProblems(): Promise<string[]> {
  const problems: string[] = [];
  const files = await productFiles(join(ROOT, 'src'));
  for (const path of files) {
    const text = await readFile(join(ROOT, path), 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_LINES) {
      problems.push(`${path}: ${lines} lines, more than ${MAX_LINES}: split it along its ideas`);
    }
  }
  return problems;
}

if (import.meta.main) {
  const problems = await fileLengthProblems();
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) process.exit(1);
  console.log(`every product file has at most ${MAX_LINES} lines`);
}
