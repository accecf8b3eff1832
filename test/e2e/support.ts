import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { type LocalStack, startLocalStack } from '../../scripts/local/stack';
import { type Core, getCore } from '../../shared/src/composition/core';
import { builtPwa } from '../pwa-build';

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 800 };
/** The desktop the inbox issue is looked at on (list and conversation side by side). */
export const WIDE = { width: 1440, height: 900 };
export const SCREENSHOTS = resolve('test-results/screenshots');

/**
 * The PWA end to end: the real build (test/pwa-build.ts), served by the local stack `npm start` runs (gateway →
 * API Gateway v2 events → the api handler, DynamoDB Local, fauxqs, the worker poller), driven in Debian's
 * Chromium. Test data is written through the same stores the worker writes.
 */
export async function startE2E(env: Record<string, string> = {}) {
  const staticRoot = await builtPwa();
  const stack: LocalStack = await startLocalStack({ port: 0, schedules: false, env, staticRoot });
  const core: Core = await getCore('e2e-seed');
  const browser: Browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  mkdirSync(SCREENSHOTS, { recursive: true });

  async function newContext(viewport = PHONE): Promise<BrowserContext> {
    return browser.newContext({
      viewport,
      deviceScaleFactor: viewport === PHONE ? 2 : 1,
      isMobile: viewport === PHONE,
      hasTouch: viewport === PHONE,
      baseURL: stack.url,
      serviceWorkers: 'allow',
    });
  }

  /** Signs in through the dev sign-in screen, as a person would, and waits to land on `expectPath`. */
  async function signIn(page: Page, name: string) {
    await page.getByRole('button', { name: new RegExp(name) }).click();
    await page.waitForURL((u) => u.pathname !== '/sign-in');
  }

  async function shot(page: Page, name: string) {
    await page.screenshot({ path: resolve(SCREENSHOTS, `${name}.png`), fullPage: false });
  }

  return {
    stack,
    core,
    /** The built PWA the gateway serves (one build per test run, shared by every browser test). */
    distDir: staticRoot,
    browser,
    newContext,
    signIn,
    shot,
    async stop() {
      await browser.close().catch(() => {});
      await stack.stop();
    },
  };
}
export type E2E = Awaited<ReturnType<typeof startE2E>>;
