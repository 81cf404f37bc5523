/**
 * The public schema check (scripts/public-schema.ts, docs/development.md "Public schema changes"):
 * graphql-js classifies each change between the last release's snapshot and the schema as built,
 * and a breaking or dangerous change passes only when CHANGELOG.md's `## Unreleased` lists it, in
 * graphql-js's words, under `### Breaking` or `### Dangerous`.
 */
import { readFileSync } from 'node:fs';
import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  classifySchemaChanges,
  missingChangelogEntries,
  snapshotVersion,
  worstClass,
} from '../../scripts/public-schema/schema-changes.ts';

const RELEASED = buildSchema(`
  type Query { app(appId: ID!): App, apps(first: Int): [App!]! }
  type App { appId: ID!, name: String!, status: AppStatus! }
  enum AppStatus { PENDING ACTIVE }
`);
const changed = (sdl: string) => classifySchemaChanges(RELEASED, buildSchema(sdl));

describe('classifying a change of the public schema', () => {
  it('a removed field is breaking', () => {
    const changes = changed(`
      type Query { app(appId: ID!): App, apps(first: Int): [App!]! }
      type App { appId: ID!, status: AppStatus! }
      enum AppStatus { PENDING ACTIVE }
    `);
    expect(changes.breaking).toEqual(['App.name was removed.']);
    expect(worstClass(changes)).toBe('breaking');
  });

  it('a new required argument is breaking, a new optional one dangerous (graphql-js)', () => {
    const required = changed(`
      type Query { app(appId: ID!, storeId: ID!): App, apps(first: Int): [App!]! }
      type App { appId: ID!, name: String!, status: AppStatus! }
      enum AppStatus { PENDING ACTIVE }
    `);
    expect(required.breaking).toEqual(['A required arg storeId on Query.app was added.']);
    const optional = changed(`
      type Query { app(appId: ID!): App, apps(first: Int, after: String): [App!]! }
      type App { appId: ID!, name: String!, status: AppStatus! }
      enum AppStatus { PENDING ACTIVE }
    `);
    expect(optional.breaking).toEqual([]);
    expect(optional.dangerous).toEqual(['An optional arg after on Query.apps was added.']);
    expect(worstClass(optional)).toBe('dangerous');
  });

  it('a new enum value is dangerous; a new field or description is safe', () => {
    const enumValue = changed(`
      type Query { app(appId: ID!): App, apps(first: Int): [App!]! }
      type App { appId: ID!, name: String!, status: AppStatus! }
      enum AppStatus { PENDING ACTIVE FAILED }
    `);
    expect(enumValue.dangerous).toEqual(['FAILED was added to enum type AppStatus.']);
    const added = changed(`
      type Query { app(appId: ID!): App, apps(first: Int): [App!]! }
      "An app."
      type App { appId: ID!, name: String!, status: AppStatus!, region: String }
      enum AppStatus { PENDING ACTIVE }
    `);
    expect(added).toEqual({ breaking: [], dangerous: [], changed: true });
    expect(worstClass(added)).toBe('safe');
    expect(classifySchemaChanges(RELEASED, RELEASED).changed).toBe(false);
  });
});

describe('the changelog rule', () => {
  const removal = {
    breaking: ['App.name was removed.'],
    dangerous: ['FAILED was added to enum type AppStatus.'],
    changed: true,
  };
  const changelog = (unreleased: string) =>
    `# Changelog\n\n## Unreleased\n\n${unreleased}\n## 0.1.0\n\n### Breaking\n\n- App.name was removed.\n`;

  it('refuses a breaking or dangerous change that the Unreleased section does not list', () => {
    // Listed under a released version only, or under the wrong heading: not this release's entry.
    expect(
      missingChangelogEntries(removal, changelog('### Dangerous\n\n- App.name was removed.\n')),
    ).toEqual([
      'breaking, not under "## Unreleased" / "### Breaking": App.name was removed.',
      'dangerous, not under "## Unreleased" / "### Dangerous": FAILED was added to enum type AppStatus.',
    ]);
  });

  it('accepts each change listed in graphql-js words under its heading', () => {
    const listed = changelog(
      '### Breaking\n\n- App.name was removed. Read `App.displayName`.\n\n' +
        '### Dangerous\n\n- FAILED was added to enum type AppStatus.\n',
    );
    expect(missingChangelogEntries(removal, listed)).toEqual([]);
  });

  it('the committed snapshot is the schema of the version package.json names', () => {
    const root = new URL('../../', import.meta.url);
    const snapshot = readFileSync(new URL('schema/snapshot/public.graphql', root), 'utf8');
    const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
    expect(snapshotVersion(snapshot)).toBe(version);
    expect(readFileSync(new URL('CHANGELOG.md', root), 'utf8')).toMatch(
      new RegExp(`^## ${version.replaceAll('.', '\\.')}$`, 'm'),
    );
  });
});
