import type { BrowserContext, CDPSession, Page, Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createDynamoPushSubscriptionStore } from '../../shared/src/adapters/dynamo/push-subscription-store';
import { type BrowserPushSubscription, pushNotificationPayload } from '../../shared/src/contracts/push';
import type { PushSubscriptionStore } from '../../shared/src/ports/push';
import { conversationTopic } from '../../shared/src/use-cases/send-notification';
import { type PushE2E, startPushE2E } from './support';

/**
 * Settings → Notifications in a real Chromium against the local stack. Offline Chromium cannot subscribe
 * to a real push service, so where a subscription is needed `PushManager.prototype.subscribe` (and
 * `getSubscription`) are replaced in the page by a subscription the local push service created: the PWA,
 * the API route, the store, the sender and the push service's decryption are all real from there on. A
 * push reaches the service worker through DevTools (`ServiceWorker.deliverPushMessage`); headless Chromium
 * has no notification UI, so the click is a `notificationclick` dispatched in the worker with the
 * notification it really showed.
 */

let e: PushE2E;
let store: PushSubscriptionStore;

beforeAll(async () => {
  e = await startPushE2E();
  store = createDynamoPushSubscriptionStore({ doc: e.core.dynamo.doc, tableName: e.core.config.TABLE_NAME });
}, 180_000);
afterAll(async () => {
  await e?.stop();
});

const IPHONE_SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

interface PageProbe {
  permissionRequests: number;
  subscribeCalls: { userVisibleOnly: boolean; key: number[] }[];
  unsubscribeCalls: number;
}

/**
 * Runs in the page before the app. Counts permission requests (they must come only from a click) and, given
 * a subscription, stands in for the browser's push service registration, persisting across reloads.
 */
function installProbe(arg: { subscription: BrowserPushSubscription | null; removePush: boolean }) {
  const w = window as unknown as { __push: PageProbe } & Record<string, unknown>;
  w.__push = { permissionRequests: 0, subscribeCalls: [], unsubscribeCalls: 0 };
  if (arg.removePush) {
    // What iOS Safari outside the Home Screen app exposes: no push, no notifications.
    delete w.PushManager;
    delete w.Notification;
    return;
  }
  const request = Notification.requestPermission.bind(Notification);
  Notification.requestPermission = (...args: Parameters<typeof Notification.requestPermission>) => {
    w.__push.permissionRequests++;
    return request(...args);
  };
  const json = arg.subscription;
  if (!json) return;
  const storageKey = 'test.fakePushKey';
  const make = (key: number[]) => ({
    endpoint: json.endpoint,
    expirationTime: null,
    options: { userVisibleOnly: true, applicationServerKey: new Uint8Array(key).buffer },
    getKey: () => null,
    toJSON: () => json,
    unsubscribe: async () => {
      localStorage.removeItem(storageKey);
      w.__push.unsubscribeCalls++;
      return true;
    },
  });
  PushManager.prototype.subscribe = async (options?: PushSubscriptionOptionsInit) => {
    const raw = options?.applicationServerKey;
    const key = Array.from(
      raw instanceof ArrayBuffer ? new Uint8Array(raw) : new Uint8Array((raw as ArrayBufferView).buffer),
    );
    w.__push.subscribeCalls.push({ userVisibleOnly: options?.userVisibleOnly === true, key });
    localStorage.setItem(storageKey, JSON.stringify(key));
    return make(key) as unknown as PushSubscription;
  };
  PushManager.prototype.getSubscription = async () => {
    const stored = localStorage.getItem(storageKey);
    return stored ? (make(JSON.parse(stored)) as unknown as PushSubscription) : null;
  };
}

async function openSettings(
  who: string,
  opts: {
    permission?: 'granted' | 'denied';
    subscription?: BrowserPushSubscription;
    userAgent?: string;
    removePush?: boolean;
  } = {},
) {
  const context = await e.newContext(opts.userAgent ? { userAgent: opts.userAgent } : {});
  if (opts.permission === 'granted') await context.grantPermissions(['notifications'], { origin: e.url });
  await context.addInitScript(installProbe, {
    subscription: opts.subscription ?? null,
    removePush: opts.removePush ?? false,
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto('/settings');
  await page.waitForURL(/\/sign-in\?next=/);
  // Set on the site's own origin, once a page of it is open (before, Chromium keeps the default).
  if (opts.permission === 'denied') await setPermission(context, page, 'denied');
  await e.signIn(page, who);
  await page.waitForURL(/\/settings$/);
  return { context, page, errors };
}

/**
 * Playwright can grant but not deny; DevTools sets either, for this context only. Chromium drops the
 * override when the DevTools session that set it detaches, so one browser session stays open.
 */
let browserCdp: CDPSession | undefined;

async function setPermission(context: BrowserContext, page: Page, setting: 'granted' | 'denied' | 'prompt') {
  const cdp = await context.newCDPSession(page);
  const { targetInfo } = await cdp.send('Target.getTargetInfo');
  browserCdp ??= await e.browser.newBrowserCDPSession();
  await browserCdp.send('Browser.setPermission', {
    permission: { name: 'notifications' },
    setting,
    origin: e.url,
    ...(targetInfo.browserContextId ? { browserContextId: targetInfo.browserContextId } : {}),
  });
  await cdp.detach();
}

const pushPanel = (page: Page) => page.locator('.push-settings');
const pushState = (page: Page) => pushPanel(page).getAttribute('data-push-state');
const probe = (page: Page) => page.evaluate(() => (window as unknown as { __push: PageProbe }).__push);

async function showPanel(page: Page, state: string) {
  await page.locator(`.push-settings[data-push-state="${state}"]`).waitFor({ timeout: 10_000 });
  await page.getByRole('heading', { name: 'Notifications' }).scrollIntoViewIfNeeded();
}

/** This device's stored subscription, as the worker will read it. */
async function stored(endpoint: string) {
  return (await store.listActive()).find((s) => s.endpoint === endpoint);
}

describe('Settings → Notifications', () => {
  test('off → on (permission only from the click) → test notification decrypted at the push service → off', async () => {
    const subscription = e.pushService.createSubscription({ applicationServerKey: e.vapidPublicKey });
    const { context, page, errors } = await openSettings('Sam Chen', { permission: 'granted', subscription });

    await showPanel(page, 'off');
    const panel = pushPanel(page);
    expect(await panel.locator('.push-chip').textContent()).toBe('Off');
    expect(await panel.getByRole('note').count()).toBe(0);
    // Nothing is asked or subscribed until the person clicks.
    expect(await probe(page)).toMatchObject({ permissionRequests: 0, subscribeCalls: [] });
    expect(await stored(subscription.endpoint)).toBeUndefined();
    await e.shot(page, 'push-settings-off');

    await panel.getByRole('button', { name: 'Turn on notifications' }).click();
    await showPanel(page, 'on');
    const toggle = panel.getByRole('switch', { name: 'Receive notifications' });
    expect(await toggle.getAttribute('aria-checked')).toBe('true');
    expect(await panel.locator('.push-chip').textContent()).toBe('On');
    const { subscribeCalls } = await probe(page);
    expect(subscribeCalls).toHaveLength(1);
    expect(subscribeCalls[0]?.userVisibleOnly).toBe(true);
    expect(Buffer.from(subscribeCalls[0]?.key ?? []).toString('base64url')).toBe(e.vapidPublicKey);

    const saved = await stored(subscription.endpoint);
    expect(saved).toMatchObject({ keys: subscription.keys, userId: expect.stringMatching(/sam/) });
    expect(saved?.userAgent).toMatch(/Chrome/);
    await e.shot(page, 'push-settings-on');

    const before = e.pushService.deliveries(subscription.endpoint).length;
    await panel.getByRole('button', { name: 'Send me a test notification' }).click();
    await panel.getByText('Sent to 1 device. It should appear within a few seconds.').waitFor();
    const [delivered] = (
      await e.pushService.waitForDeliveries(before + 1, { endpoint: subscription.endpoint })
    ).slice(before);
    const payload = pushNotificationPayload.parse(delivered?.payload);
    expect(payload).toMatchObject({
      kind: 'alert',
      title: 'Switchboard test notification',
      requireInteraction: false,
      url: `/chat?id=${encodeURIComponent(payload.conversationId)}`,
    });
    expect(payload.body).toMatch(/^Sam, notifications work on this device\./);
    expect(delivered).toMatchObject({
      ttl: 900,
      urgency: 'normal',
      topic: conversationTopic(payload.conversationId),
      vapid: { publicKey: e.vapidPublicKey },
    });
    await e.shot(page, 'push-settings-test-sent');

    // The browser's subscription is the truth: after a reload it is still on, with nothing asked again.
    await page.reload();
    await showPanel(page, 'on');
    expect((await probe(page)).permissionRequests).toBe(0);

    await panel.getByRole('switch', { name: 'Receive notifications' }).click();
    await showPanel(page, 'off');
    expect((await probe(page)).unsubscribeCalls).toBe(1);
    await expect.poll(() => stored(subscription.endpoint)).toBeUndefined();
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  test("the browser's own push registration fails: the error is shown and the state stays off", async () => {
    // No stand-in here: offline headless Chromium's pushManager.subscribe rejects (AbortError).
    const { context, page } = await openSettings('Jo Patel', { permission: 'granted' });
    await showPanel(page, 'off');
    await pushPanel(page).getByRole('button', { name: 'Turn on notifications' }).click();
    const alert = pushPanel(page).getByRole('alert');
    await alert.waitFor({ timeout: 20_000 });
    expect(await alert.textContent()).toMatch(
      /^Could not turn notifications on: the browser could not register with its push service \(.+\)/,
    );
    expect(await pushState(page)).toBe('off');
    await e.shot(page, 'push-settings-error');
    await context.close();
  });

  test('the permission prompt comes from the click, and a refusal shows the blocked state', async () => {
    const { context, page } = await openSettings('Jo Patel');
    await showPanel(page, 'off');
    expect(await page.evaluate(() => Notification.permission)).toBe('default');
    expect((await probe(page)).permissionRequests).toBe(0);

    // Headless Chromium has no prompt to show and answers "denied" at once, as a person refusing would.
    await pushPanel(page).getByRole('button', { name: 'Turn on notifications' }).click();
    await showPanel(page, 'blocked');
    expect((await probe(page)).permissionRequests).toBe(1);
    await context.close();
  });

  test('blocked in the browser: says how to allow, offers no button that cannot work', async () => {
    const { context, page, errors } = await openSettings('Jo Patel', { permission: 'denied' });
    await showPanel(page, 'blocked');
    const panel = pushPanel(page);
    expect(await panel.locator('.push-chip').textContent()).toBe('Blocked');
    expect(await panel.getByText(/blocked for Switchboard in this browser/).isVisible()).toBe(true);
    expect(await panel.getByRole('button', { name: 'Turn on notifications' }).count()).toBe(0);
    await e.shot(page, 'push-settings-blocked');

    // Allowed again in the site settings while the screen is open: it notices without a reload.
    await setPermission(context, page, 'granted');
    await showPanel(page, 'off');
    expect(errors).toEqual([]);
    await context.close();
  });

  test('iPhone Safari outside the Home Screen: unsupported, with the Add to Home Screen note', async () => {
    const { context, page, errors } = await openSettings('Sam Chen', {
      userAgent: IPHONE_SAFARI,
      removePush: true,
    });
    await showPanel(page, 'unsupported');
    const panel = pushPanel(page);
    expect(await panel.locator('.push-chip').textContent()).toBe('Not supported');
    const note = panel.getByRole('note');
    expect(await note.textContent()).toMatch(/Home Screen \(iOS 16\.4 or later\).*Add to Home Screen/);
    expect(await panel.getByRole('button').count()).toBe(0);
    await e.shot(page, 'push-settings-iphone');
    expect(errors).toEqual([]);
    await context.close();
  });

  test('without a key in the public config it asks the push route; when push is off it says so', async () => {
    const context = await e.newContext();
    await context.route('**/api/config', async (route) => {
      const res = await route.fetch();
      const { vapidPublicKey: _omitted, ...rest } = (await res.json()) as Record<string, unknown>;
      await route.fulfill({ response: res, json: rest });
    });
    const page = await context.newPage();
    const keyRequests: number[] = [];
    page.on('response', (r) => {
      if (r.url().endsWith('/api/push/public-key')) keyRequests.push(r.status());
    });
    await page.goto('/settings');
    await e.signIn(page, 'Sam Chen');
    await showPanel(page, 'off');
    expect(keyRequests).toEqual([200]);

    // A deployment without VAPID keys: the route's own 404 (tested in the API tests) reaches the screen.
    await context.route('**/api/push/public-key', (route) =>
      route.fulfill({
        status: 404,
        json: { error: { code: 'not_found', message: 'Push notifications are off on this deployment' } },
      }),
    );
    await page.reload();
    await showPanel(page, 'disabled');
    expect(await pushPanel(page).locator('.push-chip').textContent()).toBe('Not set up');
    expect(
      await pushPanel(page)
        .getByText(/npm run vapid:keys/)
        .isVisible(),
    ).toBe(true);
    expect(await pushPanel(page).getByRole('alert').count()).toBe(0);
    await e.shot(page, 'push-settings-disabled');
    await context.close();
  });
});

describe('a deployment without VAPID keys', () => {
  test('nothing asks the push route and the console stays clean: no prompt on the inbox, "Not set up" in Settings', async () => {
    const context = await e.newContext();
    // The public config as a keyless deployment's API gives it (push-routes.test.ts checks the route). This
    // suite's front server forwards /api only, not the live socket: without `liveUrl` the app polls.
    await context.route('**/api/config', async (route) => {
      const res = await route.fetch();
      const {
        vapidPublicKey: _omitted,
        liveUrl: _notProxiedHere,
        ...rest
      } = (await res.json()) as Record<string, unknown>;
      await route.fulfill({ response: res, json: { ...rest, push: 'off' } });
    });
    const page = await context.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (err) => consoleErrors.push(err.message));
    const keyRequests: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/push/public-key')) keyRequests.push(r.url());
    });
    await page.goto('/');
    await e.signIn(page, 'Sam Chen');
    await page.getByRole('heading', { name: 'Inbox' }).first().waitFor();
    expect(await page.locator('.push-prompt').count()).toBe(0);
    await page.goto('/settings');
    await showPanel(page, 'disabled');
    expect(await pushPanel(page).locator('.push-chip').textContent()).toBe('Not set up');
    expect(keyRequests).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  });
});

/** The PWA's registered service worker, its DevTools registration id, and a way to push to it. */
async function serviceWorkerOf(context: BrowserContext, page: Page) {
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, {
    timeout: 15_000,
  });
  const worker: Worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
  const cdp = await context.newCDPSession(page);
  const registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', (ev) => registrations.push(...ev.registrations));
  await cdp.send('ServiceWorker.enable');
  const registrationId = await vi.waitFor(() => {
    const found = registrations.find((r) => r.scopeURL === `${e.url}/` && !r.isDeleted);
    if (!found) throw new Error('service worker registration not reported yet');
    return found.registrationId;
  });
  return {
    worker,
    deliver: (data: string) =>
      cdp.send('ServiceWorker.deliverPushMessage', { origin: e.url, registrationId, data }),
  };
}

const shownNotifications = (page: Page) =>
  page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    return (await registration.getNotifications()).map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      requireInteraction: n.requireInteraction,
      data: n.data as Record<string, unknown>,
    }));
  });

describe('an approval push, end to end', () => {
  test('inbound text → worker → push decrypted at the push service → service worker → click lands on the card', async () => {
    const subscription = e.pushService.createSubscription({ applicationServerKey: e.vapidPublicKey });
    const { context, page, errors } = await openSettings('Alex Rivera', {
      permission: 'granted',
      subscription,
    });
    await showPanel(page, 'off');
    await pushPanel(page).getByRole('button', { name: 'Turn on notifications' }).click();
    await showPanel(page, 'on');
    const sw = await serviceWorkerOf(context, page);

    const op = e.stack.emulators?.openphone;
    if (!op) throw new Error('the local stack runs without emulators');
    const bob = '+14155550121';
    await op.fireIncomingMessage({
      from: bob,
      text: 'Finished at 12 Oak St, invoice follows.',
      scheme: 'standard',
    });

    // What the push service decrypted for this device is exactly what the browser would hand the worker.
    const approval = await vi.waitFor(
      () => {
        const found = e.pushService
          .deliveries(subscription.endpoint)
          .find((d) => (d.payload as { kind?: string }).kind === 'approval');
        if (!found) throw new Error('no approval push yet');
        return found;
      },
      { timeout: 30_000, interval: 250 },
    );
    const payload = pushNotificationPayload.parse(approval.payload);
    const conversation = await e.core.conversations.findByTriggerKey(`sms:${bob}`);
    const pending = (await e.core.actions.listByConversation(conversation?.id ?? '')).find(
      (a) => a.status === 'PENDING',
    );
    expect(pending).toBeDefined();
    expect(payload).toMatchObject({
      conversationId: conversation?.id,
      actionId: pending?.id,
      url: `/chat?id=${conversation?.id}`,
      requireInteraction: true,
    });
    expect(payload.body).toContain('Bob');
    expect(approval).toMatchObject({
      ttl: 3600,
      urgency: 'high',
      topic: conversationTopic(payload.conversationId),
    });

    await sw.deliver(approval.rawPayload);
    await expect.poll(() => shownNotifications(page)).toHaveLength(1);
    const [shown] = await shownNotifications(page);
    expect(shown).toMatchObject({
      title: payload.title,
      requireInteraction: true,
      data: { url: payload.url, conversationId: payload.conversationId, actionId: pending?.id },
    });

    expect(new URL(page.url()).pathname).toBe('/settings');
    await sw.worker.evaluate(async () => {
      const worker = self as unknown as ServiceWorkerGlobalScope;
      const [notification] = await worker.registration.getNotifications();
      if (!notification) throw new Error('no notification to click');
      worker.dispatchEvent(new NotificationEvent('notificationclick', { notification }));
    });
    await page.waitForURL(`${e.url}/chat?id=${payload.conversationId}`, { timeout: 10_000 });
    const card = page.locator(`article[data-action-id="${pending?.id}"]`);
    await card.waitFor();
    await expect.poll(() => card.getAttribute('data-status')).toBe('PENDING');
    expect(await card.isVisible()).toBe(true);
    await e.shot(page, 'push-click-card');
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);
});

describe('Approve on the notification (cards #18)', () => {
  test('the Approve action approves the card exactly once, as the device owner; the token cannot be used again', async () => {
    const subscription = e.pushService.createSubscription({ applicationServerKey: e.vapidPublicKey });
    const { context, page, errors } = await openSettings('Alex Rivera', {
      permission: 'granted',
      subscription,
    });
    await showPanel(page, 'off');
    await pushPanel(page).getByRole('button', { name: 'Turn on notifications' }).click();
    await showPanel(page, 'on');
    const sw = await serviceWorkerOf(context, page);

    const op = e.stack.emulators?.openphone;
    if (!op) throw new Error('the local stack runs without emulators');
    const priya = '+14155550113';
    await op.fireIncomingMessage({ from: priya, text: 'The kitchen tap is dripping', scheme: 'standard' });
    const approval = await vi.waitFor(
      () => {
        const found = e.pushService
          .deliveries(subscription.endpoint)
          .find((d) => (d.payload as { kind?: string; body?: string }).kind === 'approval');
        if (!found) throw new Error('no approval push yet');
        return found;
      },
      { timeout: 30_000, interval: 250 },
    );
    const payload = pushNotificationPayload.parse(approval.payload);
    expect(payload.actionToken).toMatch(/^[\w-]+\.[\w-]+$/);
    const cid = payload.conversationId;
    const aid = payload.actionId ?? '';

    await sw.deliver(approval.rawPayload);
    await expect.poll(() => shownNotifications(page)).toHaveLength(1);
    const actions = await page.evaluate(async () => {
      const [n] = await (await navigator.serviceWorker.ready).getNotifications();
      return (n as Notification & { actions?: Array<{ action: string; title: string }> })?.actions ?? [];
    });
    expect(actions.map((a) => a.title)).toEqual(['Approve', 'Deny']);

    // Headless Chromium has no notification UI: the button press is the event the OS would dispatch.
    await sw.worker.evaluate(async () => {
      const worker = self as unknown as ServiceWorkerGlobalScope;
      const [notification] = await worker.registration.getNotifications();
      if (!notification) throw new Error('no notification to press');
      worker.dispatchEvent(new NotificationEvent('notificationclick', { notification, action: 'approve' }));
    });
    await expect
      .poll(async () => (await e.core.actions.get(cid, aid))?.status, { timeout: 20_000 })
      .toBe('EXECUTED');
    const card = await e.core.actions.get(cid, aid);
    expect(card).toMatchObject({ decidedBy: 'alex@oakproperties.example', decidedByName: 'Alex Rivera' });
    await expect
      .poll(async () => (await shownNotifications(page)).map((n) => n.title))
      .toEqual(['Approved ✓']);
    expect(op.state.sent.filter((m) => m.to.includes(priya))).toHaveLength(1);

    // The same token again (or the other button): the card is decided, so 409; a forged one is a 401.
    const again = await page.evaluate(
      async ({ path, token }) => {
        const post = (t: string, decision: string) =>
          fetch(path, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ token: t, decision }),
          }).then((r) => r.status);
        return [await post(token, 'approve'), await post(token, 'deny'), await post(`${token}x`, 'approve')];
      },
      { path: `/api/conversations/${cid}/actions/${aid}/by-token`, token: payload.actionToken ?? '' },
    );
    expect(again).toEqual([409, 409, 401]);
    expect(op.state.sent.filter((m) => m.to.includes(priya))).toHaveLength(1);
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);
});
