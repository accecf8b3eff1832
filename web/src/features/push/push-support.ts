/**
 * What this browser can do about push, as pure functions of what it exposes, so the rules are unit-tested
 * without a browser and the component only renders their answers.
 */

export interface BrowserTraits {
  userAgent: string;
  platform?: string;
  maxTouchPoints?: number;
  /** Safari's `navigator.standalone`: true when opened from the Home Screen. */
  navigatorStandalone?: boolean;
  /** `matchMedia('(display-mode: standalone)').matches` (installed PWA everywhere else). */
  displayModeStandalone: boolean;
  hasServiceWorker: boolean;
  hasPushManager: boolean;
  hasNotification: boolean;
}

export interface Platform {
  ios: boolean;
  standalone: boolean;
  supported: boolean;
}

/**
 * iPhone and iPad. iPadOS 13+ reports a Mac user agent ("Macintosh", platform MacIntel) but has touch, which
 * no Mac has; every iOS browser is WebKit, so the Home Screen rule applies to all of them.
 */
export function isIOS(t: Pick<BrowserTraits, 'userAgent' | 'platform' | 'maxTouchPoints'>): boolean {
  if (/\b(iPhone|iPad|iPod)\b/.test(t.userAgent)) return true;
  return t.platform === 'MacIntel' && (t.maxTouchPoints ?? 0) > 1;
}

export function describePlatform(t: BrowserTraits): Platform {
  return {
    ios: isIOS(t),
    standalone: t.navigatorStandalone === true || t.displayModeStandalone,
    supported: t.hasServiceWorker && t.hasPushManager && t.hasNotification,
  };
}

/**
 * The iPhone note is for iOS outside the Home Screen app: there Safari has no PushManager at all, and the
 * only way to get notifications (iOS 16.4+) is to add the app to the Home Screen and open it from there.
 */
export function needsHomeScreen(p: Platform): boolean {
  return p.ios && !p.standalone;
}

export function readTraits(): BrowserTraits {
  const nav = navigator as Navigator & { standalone?: boolean };
  return {
    userAgent: nav.userAgent,
    platform: nav.platform,
    maxTouchPoints: nav.maxTouchPoints,
    ...(nav.standalone === undefined ? {} : { navigatorStandalone: nav.standalone }),
    displayModeStandalone:
      typeof window.matchMedia === 'function' && window.matchMedia('(display-mode: standalone)').matches,
    hasServiceWorker: 'serviceWorker' in nav,
    hasPushManager: 'PushManager' in window,
    hasNotification: 'Notification' in window,
  };
}

/** The VAPID public key (base64url, as the API serves it) as the bytes `pushManager.subscribe` wants. */
export function base64UrlToBytes(value: string): Uint8Array<ArrayBuffer> {
  const base64 = value.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  const padded = base64 + '='.repeat((4 - (base64.length % 4)) % 4);
  const raw = atob(padded);
  const out = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

/**
 * Whether an existing subscription was made with this server key. After a key rotation the old one can no
 * longer be pushed to (push services bind a subscription to its key), so it counts as off.
 */
export function sameServerKey(subscriptionKey: ArrayBuffer | null | undefined, publicKey: string): boolean {
  // Some browsers do not expose the key; then there is nothing to compare and the subscription is trusted.
  if (!subscriptionKey) return true;
  const a = new Uint8Array(subscriptionKey);
  const b = base64UrlToBytes(publicKey);
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** A short name for this device in messages ("Chrome on Android"), from the user agent. */
export function deviceName(userAgent: string): string {
  const browser = /Edg\//.test(userAgent)
    ? 'Edge'
    : /Firefox\//.test(userAgent)
      ? 'Firefox'
      : /(Chrome|CriOS)\//.test(userAgent)
        ? 'Chrome'
        : /Safari\//.test(userAgent)
          ? 'Safari'
          : 'this browser';
  const os = /iPhone/.test(userAgent)
    ? 'iPhone'
    : /iPad/.test(userAgent)
      ? 'iPad'
      : /Android/.test(userAgent)
        ? 'Android'
        : /Mac OS X/.test(userAgent)
          ? 'Mac'
          : /Windows/.test(userAgent)
            ? 'Windows'
            : /Linux/.test(userAgent)
              ? 'Linux'
              : '';
  return os ? `${browser} on ${os}` : browser;
}
