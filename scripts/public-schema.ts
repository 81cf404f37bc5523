/**
 * `npm run schema:check` (part of `npm run check`) and `npm run schema:snapshot`: the public schema
 * against the snapshot of the last release, schema/snapshot/public.graphql (docs/development.md
 * "Public schema changes").
 *
 * check: builds the gateway's schema as it serves it (src/graph/build-schema.ts), prints every change
 * since the snapshot with its class (breaking, dangerous, safe; scripts/public-schema/schema-changes.ts),
 * and exits 1 when a breaking or dangerous change is not listed under CHANGELOG.md's
 * `## Unreleased`, or when the snapshot is not the release package.json names.
 * snapshot (at a release, after the version is set in package.json and its CHANGELOG.md heading
 * written): rewrites the snapshot from the schema as it is.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { buildSchema } from 'graphql';
import { buildGatewaySchema } from '../src/graph/build-schema.ts';
import {
  classifySchemaChanges,
  missingChangelogEntries,
  printPublicSchema,
  snapshotHeader,
  snapshotVersion,
} from './public-schema/schema-changes.ts';

const ROOT = new URL('../', import.meta.url);
const SNAPSHOT = new URL('schema/snapshot/public.graphql', ROOT);

const { version } = JSON.parse(await readFile(new URL('package.json', ROOT), 'utf8')) as {
  version: string;
};
const current = await buildGatewaySchema();

if (process.argv.includes('--write')) {
  await writeFile(SNAPSHOT, `${snapshotHeader(version)}\n${printPublicSchema(current)}`);
  console.log(`schema/snapshot/public.graphql: the public schema of ${version}`);
  process.exit(0);
}

const snapshot = await readFile(SNAPSHOT, 'utf8');
const changelog = await readFile(new URL('CHANGELOG.md', ROOT), 'utf8');
const problems: string[] = [];
const released = snapshotVersion(snapshot);
if (released !== version) {
  problems.push(
    `schema/snapshot/public.graphql is the schema of ${released ?? 'no release'}, package.json says ${version}: ` +
      'run `npm run schema:snapshot` at a release only',
  );
}
if (!new RegExp(`^## ${version.replaceAll('.', '\\.')}\\b`, 'm').test(changelog)) {
  problems.push(`CHANGELOG.md has no "## ${version}" heading for the version of package.json`);
}
const changes = classifySchemaChanges(buildSchema(snapshot), current);
for (const description of changes.breaking) console.log(`breaking:  ${description}`);
for (const description of changes.dangerous) console.log(`dangerous: ${description}`);
if (changes.changed && changes.breaking.length + changes.dangerous.length === 0) {
  console.log('safe: the public schema changed (additions or descriptions only)');
}
problems.push(...missingChangelogEntries(changes, changelog));
if (problems.length > 0) {
  for (const problem of problems) console.error(`schema:check: ${problem}`);
  console.error('(docs/development.md "Public schema changes")');
  process.exit(1);
}
console.log(
  changes.changed
    ? 'schema:check: every change since the last release is in CHANGELOG.md'
    : `schema:check: the public schema is ${version}'s`,
);
