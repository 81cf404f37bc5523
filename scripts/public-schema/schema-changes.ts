/**
 * What a change of the public schema means for clients, and whether CHANGELOG.md says so
 * (docs/development.md "Public schema changes"). graphql-js classifies: `findBreakingChanges` (a
 * client's operation that validated may no longer: a removed field, a narrowed type, a new required
 * argument), `findDangerousChanges` (still valid, may behave differently: a new enum value or union
 * member, a changed default, a new optional argument), anything else that changes the printed schema
 * is safe (additions, descriptions).
 *
 * The rule: the snapshot is the schema of the last release; every breaking change since must be
 * listed, in graphql-js's own words, under `### Breaking` of CHANGELOG.md's `## Unreleased`, every
 * dangerous one under `### Dangerous`. Safe changes need no entry.
 */
import {
  findBreakingChanges,
  findDangerousChanges,
  lexicographicSortSchema,
  printSchema,
  type GraphQLSchema,
} from 'graphql';

export type ChangeClass = 'breaking' | 'dangerous' | 'safe';

export interface SchemaChanges {
  /** graphql-js's description of each breaking change, e.g. `Query.app was removed.` */
  readonly breaking: readonly string[];
  readonly dangerous: readonly string[];
  /** Whether the printed schemas differ at all (a safe change when nothing is listed above). */
  readonly changed: boolean;
}

/** The schema as the snapshot holds it: types and fields in name order, descriptions kept. */
export function printPublicSchema(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}

export function classifySchemaChanges(previous: GraphQLSchema, next: GraphQLSchema): SchemaChanges {
  return {
    breaking: findBreakingChanges(previous, next).map((change) => change.description),
    dangerous: findDangerousChanges(previous, next).map((change) => change.description),
    changed: printPublicSchema(previous) !== printPublicSchema(next),
  };
}

/** The most serious class among the changes (`safe` when there are none at all). */
export function worstClass(changes: SchemaChanges): ChangeClass {
  if (changes.breaking.length > 0) return 'breaking';
  if (changes.dangerous.length > 0) return 'dangerous';
  return 'safe';
}

/** The lines of one `### heading` under `## Unreleased` of a changelog (empty when absent). */
export function unreleasedSubsection(changelog: string, heading: string): string {
  const unreleased =
    /^## Unreleased[^\n]*\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(changelog)?.[1] ?? '';
  const escaped = heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const sub = new RegExp(`^### ${escaped}[^\\n]*\\n([\\s\\S]*?)(?=^### |(?![\\s\\S]))`, 'm');
  return sub.exec(unreleased)?.[1] ?? '';
}

/** Each change the changelog does not list where the rule wants it: what `npm run check` prints. */
export function missingChangelogEntries(changes: SchemaChanges, changelog: string): string[] {
  const breaking = unreleasedSubsection(changelog, 'Breaking');
  const dangerous = unreleasedSubsection(changelog, 'Dangerous');
  return [
    ...changes.breaking
      .filter((description) => !breaking.includes(description))
      .map((description) => `breaking, not under "## Unreleased" / "### Breaking": ${description}`),
    ...changes.dangerous
      .filter((description) => !dangerous.includes(description))
      .map(
        (description) => `dangerous, not under "## Unreleased" / "### Dangerous": ${description}`,
      ),
  ];
}

/** The first line of the snapshot: the release it is the schema of. */
export function snapshotHeader(version: string): string {
  return `# The public schema of Weft ${version}, as released: npm run schema:snapshot writes it (docs/development.md "Public schema changes").`;
}

export function snapshotVersion(snapshot: string): string | undefined {
  return /^# The public schema of Weft (\S+), as released/.exec(snapshot)?.[1];
}
