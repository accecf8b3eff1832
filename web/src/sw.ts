/// <reference lib="webworker" />
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { type PushNotificationPayload, pushNotificationPayload } from '../../shared/src/contracts/push';
import { handleNotificationAction, notificationActions } from './sw/notification-actions';

/**
 * The PWA's service worker: the precached app shell and push notifications. The shell (the build's
 * scripts, styles, page and icons, listed by vite-plugin-pwa at build time) is served from the cache so a
 * cold open with no network still shows the app; every navigation gets the shell's index.html. API answers
 * are never cached here (SPEC §5): requests outside the shell go straight to the network. The app keeps its
 * own last data in IndexedDB, cleared on sign-out.
 */

// The project compiles DOM and WebWorker libs together, where `self` is typed as Window; this file runs
// only as a service worker.
const sw = self as unknown as ServiceWorkerGlobalScope;

type PrecacheEntry = string | { url: string; revision: string | null };
// vite-plugin-pwa replaces `self.__WB_MANIFEST` (exactly one occurrence) with the build's file list; a
// worker bundled without it (the push tests) precaches nothing.
const SHELL: PrecacheEntry[] = (self as unknown as { __WB_MANIFEST?: PrecacheEntry[] }).__WB_MANIFEST ?? [];
precacheAndRoute(SHELL);
cleanupOutdatedCaches();
/** Paths that are never the app: the API, webhooks, the live socket and health answer from the network. */
const NOT_THE_APP = [/^\/api\//, /^\/webhooks\//, /^\/live/, /^\/health/, /^\/@connections\//];
if (SHELL.length) {
  registerRoute(new NavigationRoute(createHandlerBoundToURL('/index.html'), { denylist: NOT_THE_APP }));
}

const ICON = '/icons/icon-192.png';

/** NotificationOptions as browsers implement them; TypeScript's lib lacks `renotify` and `timestamp`. */
type ShownOptions = NotificationOptions & {
  renotify?: boolean;
  timestamp?: number;
  actions?: Array<{ action: string; title: string }>;
};

sw.addEventListener('message', (event) => {
  // The update prompt: the person chose to load the new version (workbox-window sends this).
  if ((event.data as { type?: string } | null)?.type === 'SKIP_WAITING') void sw.skipWaiting();
});

sw.addEventListener('activate', (event) => {
  // Control already-open pages, so a notification click can navigate them.
  event.waitUntil(sw.clients.claim());
});

sw.addEventListener('push', (event) => {
  const work = showPush(event.data);
  event.waitUntil(work);
});

sw.addEventListener('notificationclick', (event) => {
  // Approve / Deny pressed on an approval (cards #18, sw/notification-actions.ts); a plain tap opens it.
  if (handleNotificationAction(sw, event)) return;
  event.notification.close();
  const url = targetUrl(event.notification.data);
  // Started before waitUntil, so the work is not lost even if the event is not extendable.
  const work = openOrFocus(url);
  event.waitUntil(work);
});

async function showPush(data: PushMessageData | null): Promise<void> {
  const payload = parsePayload(data);
  if (!payload) {
    // Chromium requires a visible notification for every push (userVisibleOnly); show a generic one
    // rather than let the browser invent "site updated in the background".
    await sw.registration.showNotification('Switchboard', {
      body: 'New activity',
      icon: ICON,
      data: { url: '/' },
    });
    return;
  }
  const options: ShownOptions = {
    body: payload.body,
    icon: ICON,
    tag: payload.tag,
    // Replacing an older notification of the same conversation should still alert the person.
    renotify: true,
    requireInteraction: payload.requireInteraction,
    timestamp: Date.parse(payload.sentAt),
    actions: notificationActions(payload),
    data: {
      url: payload.url,
      conversationId: payload.conversationId,
      kind: payload.kind,
      ...(payload.actionId ? { actionId: payload.actionId } : {}),
      ...(payload.actionToken ? { actionToken: payload.actionToken } : {}),
    },
  };
  await Promise.all([sw.registration.showNotification(payload.title, options), updateBadge(payload)]);
}

function parsePayload(data: PushMessageData | null): PushNotificationPayload | undefined {
  if (!data) return undefined;
  let json: unknown;
  try {
    json = data.json();
  } catch {
    return undefined;
  }
  const parsed = pushNotificationPayload.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

async function updateBadge(payload: PushNotificationPayload): Promise<void> {
  const nav = sw.navigator;
  if (payload.pendingApprovals === undefined || typeof nav.setAppBadge !== 'function') return;
  try {
    if (payload.pendingApprovals > 0) await nav.setAppBadge(payload.pendingApprovals);
    else await nav.clearAppBadge();
  } catch {
    // Badging is refused on platforms where the app is not installed; the notification matters more.
  }
}

/** Only same-origin paths: a notification must not be able to send the person to another site. */
function targetUrl(data: unknown): string {
  const raw = typeof data === 'object' && data !== null ? (data as { url?: unknown }).url : undefined;
  if (typeof raw !== 'string') return new URL('/', sw.location.origin).href;
  const url = new URL(raw, sw.location.origin);
  return url.origin === sw.location.origin ? url.href : new URL('/', sw.location.origin).href;
}

async function openOrFocus(url: string): Promise<void> {
  const windows = await sw.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const same = windows.find((c) => c.url === url);
  if (same) {
    await same.focus();
    return;
  }
  // Prefer a window this worker controls: only those can be navigated (WindowClient.navigate).
  const controlled = await sw.clients.matchAll({ type: 'window' });
  const existing = controlled[0];
  if (existing) {
    // focus() is called first, while the click still grants permission to raise a window.
    await Promise.all([existing.focus(), existing.navigate(url)]);
    return;
  }
  await sw.clients.openWindow(url);
}
