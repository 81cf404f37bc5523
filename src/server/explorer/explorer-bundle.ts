/**
 * The explorer's browser bundle: GraphiQL 5, React 19, Monaco and its workers, and the explorer's
 * own code (`explorer/`), bundled by esbuild into `dist/explorer/` by `npm run build:explorer`
 * (`scripts/build-explorer.ts`), which `npm ci` / `npm install` run (`prepare`) and the image build
 * runs in its own stage (docs/try-it.md "The explorer"). The server only reads what the build
 * wrote: the manifest names every file, so nothing else in the folder is served, and `npm start`
 * never bundles (it stays fast and offline).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExplorerWorkers } from './explorer-config.ts';

/** The project root (this file is src/server/explorer/explorer-bundle.ts). */
export const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Where the build writes the bundle and the server reads it. */
export const EXPLORER_BUNDLE_DIR = join(PROJECT_ROOT, 'dist', 'explorer');

/** What the build wrote: file names relative to the bundle folder (content-hashed, immutable). */
export interface ExplorerManifest {
  /** The page's module script (it imports its chunks). */
  readonly script: string;
  readonly style: string;
  readonly workers: ExplorerWorkers;
  /** Every file the server may serve: the above, the chunks, the fonts. */
  readonly files: readonly string[];
  /** {@link explorerInputsHash} of the sources the bundle was built from. */
  readonly inputsHash: string;
}

export const MANIFEST_FILE = 'manifest.json';

/** The manifest of the bundle in `dir`; undefined when none was built there. */
export function readExplorerManifest(dir: string): ExplorerManifest | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, MANIFEST_FILE), 'utf8');
  } catch {
    return undefined;
  }
  return JSON.parse(text) as ExplorerManifest;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * A hash of what the bundle is built from: the explorer's browser sources, the page's
 * configuration type and the lockfile (the bundled packages' versions). Undefined where the sources
 * are absent (the image carries the bundle, not its sources): there is nothing to compare with.
 */
export function explorerInputsHash(root: string = PROJECT_ROOT): string | undefined {
  let files: string[];
  try {
    files = [
      ...filesUnder(join(root, 'explorer')),
      join(root, 'src', 'server', 'explorer', 'explorer-config.ts'),
      join(root, 'package-lock.json'),
    ];
  } catch {
    return undefined;
  }
  const hash = createHash('sha256');
  try {
    for (const file of files.sort()) {
      hash.update(relative(root, file).replaceAll('\\', '/')).update('\0');
      hash.update(readFileSync(file)).update('\0');
    }
  } catch {
    return undefined;
  }
  return hash.digest('hex');
}
