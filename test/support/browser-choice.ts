/**
 * Which Chromium the browser tests drive (`chromium.ts` launches it): the machine's, Debian's
 * `/usr/bin/chromium`, when present (newer than the npm build, patched by the distribution, nothing
 * to unpack), else the one `npm ci` brings (`npm-chromium.ts`). `WEFT_TEST_BROWSER=system` or `=npm`
 * insists on one, so that a run can prove the npm browser on a machine that also has Debian's.
 */

export const SYSTEM_CHROMIUM = '/usr/bin/chromium';

export const BROWSER_VARIABLE = 'WEFT_TEST_BROWSER';

export type BrowserSource = 'system' | 'npm';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Which Chromium the tests drive: `WEFT_TEST_BROWSER` (`system`, `npm`, or unset: the machine's
 * when present, else npm's), or undefined, with why, when the chosen one is not there.
 */
export function chooseBrowser(
  env: Env,
  present: Readonly<Record<BrowserSource, boolean>>,
): { source: BrowserSource | undefined; why: string } {
  const asked = env[BROWSER_VARIABLE]?.trim() ?? '';
  if (asked !== '' && asked !== 'system' && asked !== 'npm') {
    throw new Error(
      `${BROWSER_VARIABLE}=${asked}: unknown (known: system, npm, or unset for either)`,
    );
  }
  const systemMissing = `no ${SYSTEM_CHROMIUM}`;
  const npmMissing = `@sparticuz/chromium is not installed (npm ci) or has no build for ${process.platform}-${process.arch}`;
  if (asked === 'system') {
    return {
      source: present.system ? 'system' : undefined,
      why: `${BROWSER_VARIABLE}=system: ${systemMissing}`,
    };
  }
  if (asked === 'npm') {
    return {
      source: present.npm ? 'npm' : undefined,
      why: `${BROWSER_VARIABLE}=npm: ${npmMissing}`,
    };
  }
  if (present.system) return { source: 'system', why: '' };
  if (present.npm) return { source: 'npm', why: '' };
  return { source: undefined, why: `${systemMissing}, and ${npmMissing}` };
}
