import fs from 'node:fs';

const SYSTEM_CHROMIUM = '/usr/bin/chromium';

export type ChromiumLookup = { path: string; source: string } | { path?: undefined; missing: string };

/**
 * The Chromium the browser tests drive: the system one when installed (`apt-get install -y chromium`), otherwise
 * the build that the `@sparticuz/chromium` devDependency ships inside its npm package, so `npm install` alone is
 * enough. That package inflates its Brotli-compressed binary into the temp folder (`/tmp/chromium`) on first use,
 * about 200 MB, and reuses it afterwards.
 */
export async function findChromium(): Promise<ChromiumLookup> {
  if (fs.existsSync(SYSTEM_CHROMIUM)) return { path: SYSTEM_CHROMIUM, source: 'system' };
  try {
    const { default: packaged } = await import('@sparticuz/chromium');
    return { path: await packaged.executablePath(), source: '@sparticuz/chromium' };
  } catch (error) {
    return {
      missing: `${SYSTEM_CHROMIUM} is missing and @sparticuz/chromium gave none (${(error as Error).message}); install one with apt-get install -y chromium`,
    };
  }
}
