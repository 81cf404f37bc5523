/**
 * Bundles the explorer once, with esbuild, into dist/explorer/ (docs/try-it.md "The explorer").
 * GraphiQL 5 ships ES modules only — Monaco, its web workers, CSS imports — so the browser cannot
 * load it from node_modules as GraphiQL 3's UMD files were: this turns `explorer/main.tsx` and
 * everything it imports into a module script with lazy chunks (Monaco and Prettier load after the
 * page), one stylesheet, the fonts, and one classic script per Monaco worker. File names carry
 * their content hash (served as immutable); manifest.json names them for the server.
 *
 * Run by `npm ci` / `npm install` (`prepare`), by the image's build stage, and by hand:
 * `npm run build:explorer`. It writes a fresh folder and swaps it in, so a running server never
 * serves half a build.
 */
import { rmSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import {
  EXPLORER_BUNDLE_DIR,
  MANIFEST_FILE,
  PROJECT_ROOT,
  explorerInputsHash,
  type ExplorerManifest,
} from '../src/server/explorer/explorer-bundle.ts';

const outdir = `${EXPLORER_BUNDLE_DIR}.building`;

const common = {
  absWorkingDir: PROJECT_ROOT,
  bundle: true,
  minify: true,
  outdir,
  entryNames: '[name]-[hash]',
  chunkNames: 'chunk-[hash]',
  assetNames: '[name]-[hash]',
  // The browsers GraphiQL 5 supports (module scripts, top-level await in chunks is not used).
  target: ['es2022', 'chrome111', 'edge111', 'firefox114', 'safari16.4'],
  // React and the libraries choose their production builds by this.
  define: { 'process.env.NODE_ENV': '"production"' },
  // Licences go to a file per output, not inline.
  legalComments: 'linked',
  metafile: true,
  logLevel: 'warning',
} as const satisfies BuildOptions;

/** Output files of a build, relative to `outdir`. */
function outputs(metafile: Metafile): string[] {
  return Object.keys(metafile.outputs).map((file) => basename(file));
}

/** The output named after `entry` (entries are named `[name]-[hash]`, chunks `chunk-[hash]`). */
function outputOf(metafile: Metafile, entry: string, extension: '.js' | '.css'): string {
  const found = outputs(metafile).find(
    (file) => file.startsWith(`${entry}-`) && file.endsWith(extension),
  );
  if (!found) throw new Error(`esbuild wrote no ${extension} output for ${entry}`);
  return found;
}

async function main(): Promise<void> {
  const started = performance.now();
  rmSync(outdir, { recursive: true, force: true });

  // The page: GraphiQL and the explorer's code, as a module with lazy chunks.
  const page = await build({
    ...common,
    entryPoints: { explorer: 'explorer/main.tsx' },
    format: 'esm',
    splitting: true,
    jsx: 'automatic',
    tsconfig: 'explorer/tsconfig.json',
    loader: { '.ttf': 'file', '.woff': 'file', '.woff2': 'file' },
  });

  // Monaco's workers: classic scripts, each self-contained (a worker imports nothing).
  const workers = await build({
    ...common,
    entryPoints: {
      'editor.worker': 'monaco-editor/esm/vs/editor/editor.worker.js',
      'json.worker': 'monaco-editor/esm/vs/language/json/json.worker.js',
      'graphql.worker': 'monaco-graphql/esm/graphql.worker.js',
    },
    format: 'iife',
  });

  const inputsHash = explorerInputsHash();
  if (inputsHash === undefined) throw new Error('the explorer sources are missing');
  const manifest: ExplorerManifest = {
    script: outputOf(page.metafile, 'explorer', '.js'),
    style: outputOf(page.metafile, 'explorer', '.css'),
    workers: {
      editor: outputOf(workers.metafile, 'editor.worker', '.js'),
      json: outputOf(workers.metafile, 'json.worker', '.js'),
      graphql: outputOf(workers.metafile, 'graphql.worker', '.js'),
    },
    files: [...outputs(page.metafile), ...outputs(workers.metafile)].sort(),
    inputsHash,
  };
  writeFileSync(join(outdir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);

  rmSync(EXPLORER_BUNDLE_DIR, { recursive: true, force: true });
  renameSync(outdir, EXPLORER_BUNDLE_DIR);

  const bytes = Object.values({ ...page.metafile.outputs, ...workers.metafile.outputs }).reduce(
    (sum, output) => sum + output.bytes,
    0,
  );
  console.log(
    `explorer bundle: ${manifest.files.length} files, ${(bytes / 1e6).toFixed(1)} MB in ` +
      `dist/explorer (${Math.round(performance.now() - started)} ms)`,
  );
}

await main();
