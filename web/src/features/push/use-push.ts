import { useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError, describeError, type GetToken } from '../../lib/api';
import { createPushApi, toContract } from './push-api';
import { PushConfigContext } from './push-config';
import { base64UrlToBytes, describePlatform, type Platform, readTraits, sameServerKey } from './push-support';

/**
 * Push on this device, as one small state machine:
 * unsupported (no service worker / PushManager / Notification) · disabled (the deployment has no VAPID
 * key) · blocked (permission denied) · off · on. The browser's own subscription is the truth for "on";
 * the API keeps a copy per device so the worker can push to it.
 */
export type PushStatus =
  | { kind: 'checking' }
  | { kind: 'unsupported' }
  | { kind: 'disabled' }
  | { kind: 'blocked' }
  | { kind: 'off' }
  | { kind: 'on'; endpoint: string };

export type PushNotice = { kind: 'info' | 'warn' | 'error'; text: string };
export type PushBusy = 'on' | 'off' | 'test' | null;

const WORKER_WAIT_MS = 10_000;
/**
 * Where no push service answers (a network that blocks it, a browser build without one), pushManager.subscribe
 * neither resolves nor rejects: the button would spin forever. Past this the person is told why (issue 19).
 */
export const SUBSCRIBE_WAIT_MS = 15_000;

/** A promise that rejects with `message` if `p` has not settled within `ms`. */
export function within<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** The service worker that shows pushes; main.tsx registers it at load, so it may still be installing. */
async function workerRegistration(): Promise<ServiceWorkerRegistration> {
  const existing = await navigator.serviceWorker.getRegistration('/');
  if (existing?.active) return existing;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new Error('the app’s background worker is not running yet. Reload the page and try again.')),
      WORKER_WAIT_MS,
    );
  });
  try {
    return await Promise.race([navigator.serviceWorker.ready, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function currentSubscription(): Promise<PushSubscription | null> {
  const registration = await navigator.serviceWorker.getRegistration('/');
  return (await registration?.pushManager.getSubscription()) ?? null;
}

function reason(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof DOMException && e.name === 'AbortError') {
    // pushManager.subscribe's "Registration failed - …": the browser's own push service (FCM, Mozilla's,
    // Apple's) did not register the device, e.g. unreachable or refused.
    return `the browser could not register with its push service (${e.message}). Try again in a moment; if it keeps failing, try another browser.`;
  }
  return describeError(e);
}

export function usePush({ vapidPublicKey, getToken }: { vapidPublicKey?: string; getToken: GetToken }) {
  const api = useMemo(() => createPushApi(getToken), [getToken]);
  const platform: Platform = useMemo(() => describePlatform(readTraits()), []);
  const [status, setStatus] = useState<PushStatus>({ kind: 'checking' });
  const [busy, setBusy] = useState<PushBusy>(null);
  const [notice, setNotice] = useState<PushNotice | null>(null);
  const pushConfig = useContext(PushConfigContext);
  const key = useRef<string | undefined>(vapidPublicKey ?? pushConfig.vapidPublicKey);
  const pushOff = pushConfig.push === 'off';

  const refresh = useCallback(async () => {
    if (!platform.supported) return setStatus({ kind: 'unsupported' });
    // The deployment said so in its public config: asking the route would only earn a 404.
    if (!key.current && pushOff) return setStatus({ kind: 'disabled' });
    if (!key.current) {
      // The public config had no key; ask the push route, which says whether push is off on purpose.
      try {
        key.current = (await api.publicKey()).publicKey;
      } catch (e) {
        if (!(e instanceof ApiError && e.status === 404)) setNotice({ kind: 'error', text: reason(e) });
        return setStatus({ kind: 'disabled' });
      }
    }
    if (Notification.permission === 'denied') return setStatus({ kind: 'blocked' });
    try {
      const subscription = await currentSubscription();
      const on =
        subscription !== null &&
        Notification.permission === 'granted' &&
        sameServerKey(subscription.options.applicationServerKey, key.current);
      setStatus(on ? { kind: 'on', endpoint: subscription.endpoint } : { kind: 'off' });
    } catch (e) {
      setNotice({ kind: 'error', text: `Could not read this device’s notification setting: ${reason(e)}` });
      setStatus({ kind: 'off' });
    }
  }, [api, platform.supported, pushOff]);

  useEffect(() => {
    void refresh();
    // Permission changed in the browser's site settings (unblocked, revoked) while this screen is open.
    let permission: PermissionStatus | undefined;
    navigator.permissions
      ?.query({ name: 'notifications' })
      .then((p) => {
        permission = p;
        p.onchange = () => void refresh();
      })
      .catch(() => undefined);
    return () => {
      if (permission) permission.onchange = null;
    };
  }, [refresh]);

  /** Must be called straight from the click: browsers only show the permission prompt for a user gesture. */
  function turnOn() {
    const publicKey = key.current;
    if (!publicKey || busy) return;
    // Asked synchronously, before any await, so the click's user activation is still there (Safari needs it).
    const permission: Promise<NotificationPermission> =
      Notification.permission === 'granted' ? Promise.resolve('granted') : Notification.requestPermission();
    setBusy('on');
    setNotice(null);
    void (async () => {
      try {
        const answer = await permission;
        if (answer === 'denied') return setStatus({ kind: 'blocked' });
        if (answer !== 'granted') {
          return setNotice({
            kind: 'info',
            text: 'Notifications stay off: the permission question was closed without an answer.',
          });
        }
        const registration = await workerRegistration();
        const existing = await registration.pushManager.getSubscription();
        const reusable = existing && sameServerKey(existing.options.applicationServerKey, publicKey);
        // A subscription made with an older server key can no longer be pushed to: replace it.
        if (existing && !reusable) await existing.unsubscribe();
        const subscription = reusable
          ? existing
          : await within(
              registration.pushManager.subscribe({
                userVisibleOnly: true,
                applicationServerKey: base64UrlToBytes(publicKey),
              }),
              SUBSCRIBE_WAIT_MS,
              `the browser’s push service did not answer within ${SUBSCRIBE_WAIT_MS / 1000} s. It may be blocked on this network; try again later or on another connection.`,
            );
        try {
          await api.subscribe(toContract(subscription), navigator.userAgent);
        } catch (e) {
          // The server does not know this device, so nothing would ever arrive: do not pretend it is on.
          await subscription.unsubscribe().catch(() => undefined);
          throw e;
        }
        setStatus({ kind: 'on', endpoint: subscription.endpoint });
      } catch (e) {
        if (e instanceof DOMException && e.name === 'NotAllowedError') return setStatus({ kind: 'blocked' });
        setNotice({ kind: 'error', text: `Could not turn notifications on: ${reason(e)}` });
        await refresh();
      } finally {
        setBusy(null);
      }
    })();
  }

  async function turnOff() {
    if (busy) return;
    setBusy('off');
    setNotice(null);
    try {
      const subscription = await currentSubscription();
      const endpoint = subscription?.endpoint ?? (status.kind === 'on' ? status.endpoint : undefined);
      // The browser first: once it has unsubscribed, nothing reaches this device whatever the server does.
      if (subscription) await subscription.unsubscribe();
      setStatus({ kind: 'off' });
      if (!endpoint) return;
      try {
        await api.unsubscribe(endpoint);
      } catch (e) {
        setNotice({
          kind: 'warn',
          text: `Off on this device. The server could not be told (${reason(e)}); it forgets the device at the next notification.`,
        });
      }
    } catch (e) {
      setNotice({ kind: 'error', text: `Could not turn notifications off: ${reason(e)}` });
      await refresh();
    } finally {
      setBusy(null);
    }
  }

  async function sendTest() {
    if (busy) return;
    setBusy('test');
    setNotice(null);
    try {
      const r = await api.sendTest();
      const devices = (n: number) => `${n} device${n === 1 ? '' : 's'}`;
      if (r.subscriptions === 0) {
        setNotice({
          kind: 'warn',
          text: 'No device of yours is subscribed any more. Turn notifications off and on again.',
        });
      } else if (r.delivered === r.subscriptions) {
        setNotice({
          kind: 'info',
          text: `Sent to ${devices(r.delivered)}. It should appear within a few seconds.`,
        });
      } else {
        const problems = [
          r.failed ? `${devices(r.failed)} did not accept it` : '',
          r.removed
            ? `${devices(r.removed)} had expired and ${r.removed === 1 ? 'was' : 'were'} removed`
            : '',
        ].filter(Boolean);
        setNotice({
          kind: 'warn',
          text: `Sent to ${r.delivered} of ${devices(r.subscriptions)}; ${problems.join(', ')}.`,
        });
      }
    } catch (e) {
      setNotice({ kind: 'error', text: `Could not send the test notification: ${reason(e)}` });
    } finally {
      setBusy(null);
    }
  }

  return { platform, status, busy, notice, turnOn, turnOff, sendTest, refresh };
}
