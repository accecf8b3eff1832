import { createReadStream, existsSync, mkdirSync, statSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { type LocalStack, startLocalStack } from '../../scripts/local/stack';
import { type Core, getCore } from '../../shared/src/composition/core';
import { PHONE, SCREENSHOTS } from '../e2e/support';
import { builtPwa } from '../pwa-build';

/**
 * The PWA's push screens end to end, like test/e2e/support.ts (the local stack `npm start` runs, Debian's
 * Chromium, dev sign-in, the run's one PWA build from test/pwa-build.ts) with one difference: the PWA is
 * served by a small front server that forwards /api and /health to the stack's gateway.
 */

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/** Static files from `root` (SPA fallback to index.html); /api and /health go to the gateway. */
async function startFront(root: string, gateway: () => string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://front').pathname;
    if (path.startsWith('/api/') || path === '/health') {
      const target = new URL(req.url ?? '/', gateway());
      const upstream = request(
        target,
        { method: req.method, headers: { ...req.headers, host: target.host } },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      upstream.on('error', (e) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'bad_gateway', message: e.message } }));
      });
      req.pipe(upstream);
      return;
    }
    let file = join(root, normalize(path).replace(/^(\.\.[/\\])+/, ''));
    if (!file.startsWith(root) || !existsSync(file) || statSync(file).isDirectory()) {
      file = join(root, 'index.html');
    }
    res.writeHead(200, {
      'content-type': MIME[extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-cache',
    });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export async function startPushE2E() {
  const distDir = await builtPwa();
  let gatewayUrl = '';
  const front = await startFront(distDir, () => gatewayUrl);
  // Session tokens are minted for, and checked against, the origin the PWA is served from.
  const stack: LocalStack = await startLocalStack({
    port: 0,
    schedules: false,
    env: { PUBLIC_BASE_URL: front.url },
  });
  gatewayUrl = stack.url;
  const core: Core = await getCore('push-e2e-seed');
  const pushService = stack.emulators?.push;
  if (!pushService) throw new Error('the local stack runs without its push service');
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

  async function newContext(opts: { userAgent?: string } = {}): Promise<BrowserContext> {
    return browser.newContext({
      viewport: PHONE,
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      baseURL: front.url,
      serviceWorkers: 'allow',
      ...(opts.userAgent ? { userAgent: opts.userAgent } : {}),
    });
  }

  /** Signs in through the dev sign-in screen, as a person would. */
  async function signIn(page: Page, name: string) {
    await page.getByRole('button', { name: new RegExp(name) }).click();
    await page.waitForURL((u) => u.pathname !== '/sign-in');
  }

  async function shot(page: Page, name: string) {
    await page.screenshot({ path: resolve(SCREENSHOTS, `${name}.png`), fullPage: false });
  }

  return {
    url: front.url,
    stack,
    core,
    pushService,
    vapidPublicKey: stack.env.VAPID_PUBLIC_KEY ?? '',
    browser,
    newContext,
    signIn,
    shot,
    async stop() {
      await browser.close().catch(() => {});
      await stack.stop();
      await new Promise<void>((r) => {
        front.server.closeAllConnections();
        front.server.close(() => r());
      });
    },
  };
}
export type PushE2E = Awaited<ReturnType<typeof startPushE2E>>;
