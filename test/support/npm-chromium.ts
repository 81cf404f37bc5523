/**
 * The Chromium that `npm ci` brings: the `@sparticuz/chromium` devDependency, whose registry tarball
 * holds a brotli-compressed Chromium headless shell for x64 Linux, the NSS, NSPR and expat libraries
 * it links against (its Amazon Linux set) and one font. Nothing is downloaded, at install time or
 * after: the first launch unpacks it (~210 MB) into `node_modules/.cache/weft-test-chromium/<version>`
 * and later launches reuse that. It then needs only glibc from the machine: the libraries come from
 * the unpacked set (`LD_LIBRARY_PATH`), the fonts from its own fontconfig file.
 *
 * The package's own unpacker writes into `os.tmpdir()` (`/tmp/chromium`, shared by every checkout and
 * version, and reused even when half-written); it runs here in a child process whose TMPDIR is a
 * fresh folder that is renamed into place once complete, so a crashed unpack or two test files
 * unpacking at once never leave a partial browser behind.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const PACKAGE = '@sparticuz/chromium';

/** The package's entry point, or undefined when it is not installed (`npm ci --omit=dev`). */
function packageEntry(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve(PACKAGE);
  } catch {
    return undefined;
  }
}

/** Whether this machine can run the npm Chromium: the package is installed and built for it. */
export function npmChromiumRunsHere(): boolean {
  return process.platform === 'linux' && process.arch === 'x64' && packageEntry() !== undefined;
}

export interface NpmChromium {
  readonly executablePath: string;
  /** Added to the browser's environment: its libraries and its fonts. */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * Runs the package's unpacker (`executablePath()` inflates the browser, its fonts and SwiftShader;
 * `inflate()` the libraries, which the package itself unpacks only on Lambda) into os.tmpdir(),
 * which the parent sets to a fresh folder.
 */
const UNPACK = `
const [entry, bin] = process.argv.slice(1);
const { default: chromium, inflate } = await import(entry);
await chromium.executablePath(bin);
await inflate(bin + '/al2023.tar.br');
`;

/** Only the bundled font, wherever the package's own fonts.conf (written for Lambda's /tmp) looks. */
const fontsConf = (dir: string): string => `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>${join(dir, 'fonts', 'fonts')}</dir>
  <cachedir>${join(dir, 'fonts-cache')}</cachedir>
</fontconfig>
`;

let unpacked: Promise<NpmChromium> | undefined;

/** The unpacked npm Chromium, unpacking it on the first call on this machine. */
export function npmChromium(): Promise<NpmChromium> {
  unpacked ??= unpack();
  return unpacked;
}

async function unpack(): Promise<NpmChromium> {
  const entry = packageEntry();
  if (entry === undefined) throw new Error(`${PACKAGE} is not installed: run npm ci`);
  const root = dirname(dirname(entry));
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    version: string;
  };
  // node_modules/.cache: private to the checkout, versioned, and gone with the next `npm ci`.
  const cache = join(root, '..', '..', '.cache', 'weft-test-chromium');
  const dir = join(cache, version);
  if (!existsSync(dir)) {
    await mkdir(cache, { recursive: true });
    const partial = await mkdtemp(join(cache, `${version}.partial-`));
    try {
      await promisify(execFile)(
        process.execPath,
        ['--input-type=module', '-e', UNPACK, pathToFileURL(entry).href, join(root, 'bin')],
        { env: { ...process.env, TMPDIR: partial }, timeout: 180_000 },
      );
      await writeFile(join(partial, 'fonts.conf'), fontsConf(dir));
      await rename(partial, dir);
    } catch (error) {
      // Another test file (or run) renamed its complete copy into place first: use that one.
      if (!existsSync(dir)) throw error;
    } finally {
      await rm(partial, { recursive: true, force: true });
    }
  }
  return {
    executablePath: join(dir, 'chromium'),
    env: {
      LD_LIBRARY_PATH: join(dir, 'al2023', 'lib'),
      FONTCONFIG_FILE: join(dir, 'fonts.conf'),
    },
  };
}
