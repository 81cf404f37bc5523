/**
 * The Chromium that `npm ci` brings (`test/support/npm-chromium.ts`) runs the browser tests on a
 * machine without Debian's: it launches with its own libraries and font, and renders text. It runs
 * on every x64 Linux machine, also where the browser tests drive Debian's Chromium, so that a
 * Playwright upgrade that no longer drives it fails here rather than on the next fresh clone.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium, type Browser } from '../../support/chromium.ts';
import { npmChromium } from '../../support/npm-chromium.ts';

const packageVersion = (): string => {
  const entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
  const manifest = readFileSync(join(dirname(dirname(entry)), 'package.json'), 'utf8');
  return (JSON.parse(manifest) as { version: string }).version;
};

// The package ships an x64 Linux build only; elsewhere the machine's Chromium is the only one.
const builtForThisMachine = process.platform === 'linux' && process.arch === 'x64';

describe.runIf(builtForThisMachine && !chromiumMissing)('the Chromium npm ci installs', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium('npm');
  }, 180_000); // the first launch on a machine unpacks ~210 MB

  afterAll(async () => {
    await browser?.close();
  });

  it('is the packaged build, linked against the libraries it brings', async () => {
    const page = await browser.context.newPage();
    const userAgent = await page.evaluate(() => navigator.userAgent);
    expect(userAgent).toContain(`HeadlessChrome/${packageVersion().split('.')[0]}.`);
    const { env } = await npmChromium();
    expect(env.LD_LIBRARY_PATH).toMatch(/node_modules\/\.cache\/weft-test-chromium\//);
  });

  it('lays out text in its own font', async () => {
    const page = await browser.context.newPage();
    await page.setContent('<span id="word" style="font-family: sans-serif">Weft</span>');
    const box = await page.locator('#word').boundingBox();
    expect(box?.width).toBeGreaterThan(0);
    // Evaluated in the page (a string: the tests compile without the DOM's types).
    expect(await page.evaluate(`document.fonts.check('16px "Open Sans"')`)).toBe(true);
  });
});
