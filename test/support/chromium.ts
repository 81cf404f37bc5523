/**
 * Debian's Chromium (no downloaded browser), headless, with a fresh profile, for the browser tests.
 * Without Chromium the files that need it fail, saying how to install it; only
 * `WEFT_TEST_WITHOUT=chromium` skips them (never with CI=true), like the tests that need Redis
 * (`requirements.ts`).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { decide } from './requirements.ts';

const CHROMIUM = '/usr/bin/chromium';

/** True only when `WEFT_TEST_WITHOUT=chromium` skips the browser tests; a missing Chromium throws. */
export const chromiumMissing =
  decide('chromium', existsSync(CHROMIUM), process.env, `no ${CHROMIUM}`) === 'skip';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'weft-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
