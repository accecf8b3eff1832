import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Browser,
  type BrowserContext,
  type CDPSession,
  chromium,
  type Page,
  type Worker,
} from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { buildServiceWorker } from '../scripts/build-sw';
import type { PushNotificationPayload } from '../shared/src/contracts/push';
import { buildNotificationPayload, conversationTopic } from '../shared/src/use-cases/send-notification';

/**
 * The service worker in a real Chromium. Offline Chromium cannot subscribe to a real push service, so the
 * push is delivered through DevTools (`ServiceWorker.deliverPushMessage`), which dispatches a genuine
 * `push` event. Headless Chromium has no notification UI to click, so the click is a `notificationclick`
 * dispatched inside the worker with the notification the worker really showed.
 */

let dir: string;
let swSource: string;
let server: Server;
let origin: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let cdp: CDPSession;
let worker: Worker;
let registrationId: string;
let apiHits = 0;

const PAGE = `<!doctype html><html><head><title>Switchboard</title></head><body>
<p id="where"></p>
<script>
  document.getElementById('where').textContent = location.pathname + location.search;
  navigator.serviceWorker.register('/sw.js');
</script></body></html>`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'switchboard-sw-'));
  const { outFile } = await buildServiceWorker(join(dir, 'sw.js'));
  swSource = await readFile(outFile, 'utf8');

  server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/sw.js') {
      res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-cache' });
      res.end(swSource);
    } else if (path === '/api/counter') {
      apiHits++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ hits: apiHits }));
    } else if (path?.startsWith('/icons/')) {
      res.writeHead(404);
      res.end();
    } else {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(PAGE);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  browser = await chromium.launch({
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
  context = await browser.newContext();
  await context.grantPermissions(['notifications'], { origin });
  page = await context.newPage();
  const workerStarted = context.waitForEvent('serviceworker');
  await page.goto(`${origin}/`);
  worker = await workerStarted;
  // clients.claim() in `activate` makes the open page controlled, which navigate() requires.
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);

  cdp = await context.newCDPSession(page);
  const registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => registrations.push(...e.registrations));
  await cdp.send('ServiceWorker.enable');
  registrationId = await vi.waitFor(() => {
    const found = registrations.find((r) => r.scopeURL === `${origin}/` && !r.isDeleted);
    if (!found) throw new Error('service worker registration not reported yet');
    return found.registrationId;
  });
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function deliverPush(data: string) {
  await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId, data });
}

async function shownNotifications() {
  return page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    return (await registration.getNotifications()).map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      icon: n.icon,
      requireInteraction: n.requireInteraction,
      data: n.data as Record<string, unknown>,
    }));
  });
}

async function closeAll() {
  await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    for (const n of await registration.getNotifications()) n.close();
  });
}

function payload(overrides: Partial<PushNotificationPayload> = {}): PushNotificationPayload {
  return {
    v: 1,
    kind: 'approval',
    title: 'Approval needed: reply to Maria',
    body: 'Maria Lopez (+14155550111): Send "A plumber will come at 9"?\n“The sink is leaking”',
    conversationId: 'conv_maria',
    actionId: 'act_1',
    url: '/chat?id=conv_maria',
    tag: 'k3J9xQ2mZpL0vB7nT4rW8yC1dF6gH5sA',
    requireInteraction: true,
    pendingApprovals: 4,
    sentAt: new Date().toISOString(),
    ...overrides,
  };
}

/**
 * How long a check waits for the worker: vitest's default second is too short when the whole suite loads both
 * cores (a push was shown, later than that, in a whole-suite run).
 */
const POLL = { timeout: 10_000 };

describe('service worker in Chromium', () => {
  test('a push shows the notification from the payload and sets the app badge', async () => {
    await closeAll();
    // Badging cannot be observed from outside the browser, so record the calls the worker makes.
    await worker.evaluate(() => {
      const g = self as unknown as {
        navigator: { setAppBadge: (n?: number) => Promise<void> };
        badge?: number;
      };
      g.navigator.setAppBadge = async (n?: number) => {
        g.badge = n;
      };
    });

    await deliverPush(JSON.stringify(payload()));
    await expect.poll(shownNotifications, POLL).toHaveLength(1);
    const [n] = await shownNotifications();
    expect(n).toMatchObject({
      title: 'Approval needed: reply to Maria',
      body: expect.stringContaining('Maria Lopez'),
      tag: 'k3J9xQ2mZpL0vB7nT4rW8yC1dF6gH5sA',
      icon: `${origin}/icons/icon-192.png`,
      requireInteraction: true,
      data: { url: '/chat?id=conv_maria', conversationId: 'conv_maria', kind: 'approval', actionId: 'act_1' },
    });
    expect(await worker.evaluate(() => (self as unknown as { badge?: number }).badge)).toBe(4);
  });

  test('a newer push for the same conversation replaces the older notification; alerts auto-dismiss', async () => {
    await closeAll();
    await deliverPush(JSON.stringify(payload({ title: 'first' })));
    await deliverPush(JSON.stringify(payload({ kind: 'alert', title: 'second', requireInteraction: false })));
    await expect.poll(async () => (await shownNotifications()).map((n) => n.title), POLL).toEqual(['second']);
    expect((await shownNotifications())[0]?.requireInteraction).toBe(false);
  });

  test('the payload the send-notification use case builds is what the worker shows', async () => {
    await closeAll();
    const built = buildNotificationPayload(
      {
        kind: 'alert',
        conversationId: 'conv/with spaces&more',
        title: 'Urgent: no heat at 7 Birch Rd',
        body: 'The on-call person was paged.',
        contact: { name: 'Priya Nair', phone: '+14155550113' },
        preview: 'The heating stopped overnight and it is freezing',
      },
      {
        tag: conversationTopic('conv/with spaces&more'),
        requireInteraction: false,
        pendingApprovals: 0,
        sentAt: new Date(),
      },
    );
    await deliverPush(JSON.stringify(built));
    await expect.poll(shownNotifications, POLL).toHaveLength(1);
    const [n] = await shownNotifications();
    expect(n?.body).toContain('Priya Nair (+14155550113): The on-call person was paged.');
    expect(n?.body).toContain('“The heating stopped overnight and it is freezing”');
    expect(n?.data.url).toBe('/chat?id=conv%2Fwith%20spaces%26more');
  });

  test('a malformed push still shows a generic notification (Chromium requires one per push)', async () => {
    await closeAll();
    await deliverPush('not json');
    await expect
      .poll(async () => (await shownNotifications()).map((n) => n.title), POLL)
      .toEqual(['Switchboard']);
  });

  test('clicking the notification navigates the open window to the conversation', async () => {
    await closeAll();
    await deliverPush(JSON.stringify(payload({ conversationId: 'conv_bob', url: '/chat?id=conv_bob' })));
    await expect.poll(shownNotifications, POLL).toHaveLength(1);
    expect(new URL(page.url()).pathname).toBe('/');

    await worker.evaluate(async () => {
      const sw = self as unknown as ServiceWorkerGlobalScope;
      const [notification] = await sw.registration.getNotifications();
      if (!notification) throw new Error('no notification to click');
      sw.dispatchEvent(new NotificationEvent('notificationclick', { notification }));
    });

    await page.waitForURL(`${origin}/chat?id=conv_bob`, { timeout: 10_000 });
    expect(await page.textContent('#where')).toBe('/chat?id=conv_bob');
    // The click closes the notification it came from.
    await expect.poll(shownNotifications, POLL).toHaveLength(0);
  });

  test('a notification cannot send the click to another site', async () => {
    await closeAll();
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await deliverPush(JSON.stringify(payload({ url: '//evil.example/phish' })));
    await expect.poll(shownNotifications, POLL).toHaveLength(1);
    await worker.evaluate(async () => {
      const sw = self as unknown as ServiceWorkerGlobalScope;
      const [notification] = await sw.registration.getNotifications();
      if (!notification) throw new Error('no notification to click');
      sw.dispatchEvent(new NotificationEvent('notificationclick', { notification }));
    });
    await expect.poll(shownNotifications, POLL).toHaveLength(0);
    expect(new URL(page.url()).origin).toBe(origin);
  });

  test('API responses are never served from a service worker cache', async () => {
    // The worker precaches the app shell (its fetch handler serves only precached files and navigations);
    // nothing under /api is ever put in a cache, so every API call reaches the server.
    expect(swSource).not.toMatch(/runtimeCaching|registerRoute\([^)]*api/);
    const hits = await page.evaluate(async () => {
      const a = await (await fetch('/api/counter')).json();
      const b = await (await fetch('/api/counter')).json();
      return [a.hits, b.hits];
    });
    expect(hits[1]).toBe(hits[0] + 1);
    const cached = await page.evaluate(async () => {
      const urls: string[] = [];
      for (const name of await caches.keys())
        for (const r of await (await caches.open(name)).keys()) urls.push(new URL(r.url).pathname);
      return urls;
    });
    expect(cached.filter((u) => u.startsWith('/api/'))).toEqual([]);
  });
});
