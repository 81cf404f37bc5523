/**
 * Launches the Chromium the browser tests drive (`browser-choice.ts`: the machine's, else the one
 * `npm ci` brings), headless, with a fresh profile. Without either, the files that need it fail,
 * saying how to get one; only `WEFT_TEST_WITHOUT=chromium` skips them (never with CI=true), like the
 * tests that need Redis (`requirements.ts`).
 */ import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { chooseBrowser, SYSTEM_CHROMIUM, type BrowserSource } from './browser-choice.ts';
import { npmChromium, npmChromiumRunsHere } from './npm-chromium.ts';
import { decide } from './requirements.ts';

const chosen = chooseBrowser(process.env, {
  system: existsSync(SYSTEM_CHROMIUM),
  npm: npmChromiumRunsHere(),
});

/** The Chromium this run drives (undefined when skipped). */
export const browserSource: BrowserSource | undefined = chosen.source;

/** True only when `WEFT_TEST_WITHOUT=chromium` skips the browser tests; a missing Chromium throws. */
export const chromiumMissing =
  decide('chromium', chosen.source !== undefined, process.env, chosen.why) === 'skip';

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

async function executable(
  source: BrowserSource,
): Promise<{ path: string; env: Record<string, string | undefined> }> {
  if (source === 'system') return { path: SYSTEM_CHROMIUM, env: process.env };
  const npm = await npmChromium();
  return { path: npm.executablePath, env: { ...process.env, ...npm.env } };
}

/** Launches this run's Chromium, or the one named (the npm browser's own test drives it everywhere). */
export async function launchChromium(source = browserSource ?? 'system'): Promise<Browser> {
  const { path, env } = await executable(source);
  const profile = await mkdtemp(join(tmpdir(), 'weft-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: path,
    env,
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
