import { describe, expect, test } from 'vitest';
import {
  type BrowserTraits,
  base64UrlToBytes,
  describePlatform,
  deviceName,
  isIOS,
  needsHomeScreen,
  sameServerKey,
} from '../../web/src/features/push/push-support';

const UA = {
  iphoneSafari:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  iphoneChrome:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1',
  ipadDesktopMode:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  macSafari:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  androidChrome:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
  windowsEdge:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0',
  linuxFirefox: 'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0',
};

function traits(over: Partial<BrowserTraits>): BrowserTraits {
  return {
    userAgent: UA.androidChrome,
    platform: 'Linux armv8l',
    maxTouchPoints: 5,
    displayModeStandalone: false,
    hasServiceWorker: true,
    hasPushManager: true,
    hasNotification: true,
    ...over,
  };
}

describe('the iPhone Home Screen note', () => {
  test('iOS Safari in a tab (no PushManager there) needs the Home Screen', () => {
    const p = describePlatform(
      traits({
        userAgent: UA.iphoneSafari,
        platform: 'iPhone',
        navigatorStandalone: false,
        hasPushManager: false,
        hasNotification: false,
      }),
    );
    expect(p).toEqual({ ios: true, standalone: false, supported: false });
    expect(needsHomeScreen(p)).toBe(true);
  });

  test('other iOS browsers are WebKit too and get the same note', () => {
    expect(
      needsHomeScreen(describePlatform(traits({ userAgent: UA.iphoneChrome, platform: 'iPhone' }))),
    ).toBe(true);
  });

  test('iPadOS asking for the desktop site looks like a Mac but has touch', () => {
    expect(isIOS({ userAgent: UA.ipadDesktopMode, platform: 'MacIntel', maxTouchPoints: 5 })).toBe(true);
    expect(isIOS({ userAgent: UA.macSafari, platform: 'MacIntel', maxTouchPoints: 0 })).toBe(false);
  });

  test('opened from the Home Screen (iOS 16.4+), push is supported and the note is gone', () => {
    const p = describePlatform(
      traits({ userAgent: UA.iphoneSafari, platform: 'iPhone', navigatorStandalone: true }),
    );
    expect(p).toEqual({ ios: true, standalone: true, supported: true });
    expect(needsHomeScreen(p)).toBe(false);
  });

  test('Android and desktop never see it', () => {
    for (const userAgent of [UA.androidChrome, UA.windowsEdge, UA.linuxFirefox, UA.macSafari]) {
      expect(
        needsHomeScreen(describePlatform(traits({ userAgent, platform: 'x', maxTouchPoints: 0 }))),
        userAgent,
      ).toBe(false);
    }
  });
});

test('support needs a service worker, PushManager and Notification', () => {
  expect(describePlatform(traits({})).supported).toBe(true);
  expect(describePlatform(traits({ hasServiceWorker: false })).supported).toBe(false);
  expect(describePlatform(traits({ hasPushManager: false })).supported).toBe(false);
  expect(describePlatform(traits({ hasNotification: false })).supported).toBe(false);
});

describe('server keys', () => {
  // A real VAPID public key (65-byte uncompressed P-256 point).
  const key = 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM';

  test('base64url decodes to the 65 raw bytes pushManager.subscribe wants', () => {
    const bytes = base64UrlToBytes(key);
    expect(bytes).toHaveLength(65);
    expect(bytes[0]).toBe(4);
    expect(Buffer.from(bytes).toString('base64url')).toBe(key);
    expect(base64UrlToBytes(`${key}=`)).toEqual(bytes);
  });

  test('a subscription made with another key (after a rotation) does not count as on', () => {
    const same = base64UrlToBytes(key).buffer;
    const other = new Uint8Array(base64UrlToBytes(key));
    other[10] = (other[10] ?? 0) ^ 1;
    expect(sameServerKey(same, key)).toBe(true);
    expect(sameServerKey(other.buffer, key)).toBe(false);
    expect(sameServerKey(new ArrayBuffer(3), key)).toBe(false);
    // Browsers that do not expose the key: nothing to compare.
    expect(sameServerKey(null, key)).toBe(true);
  });
});

test('device names for the messages', () => {
  expect(deviceName(UA.androidChrome)).toBe('Chrome on Android');
  expect(deviceName(UA.iphoneSafari)).toBe('Safari on iPhone');
  expect(deviceName(UA.iphoneChrome)).toBe('Chrome on iPhone');
  expect(deviceName(UA.windowsEdge)).toBe('Edge on Windows');
  expect(deviceName(UA.linuxFirefox)).toBe('Firefox on Linux');
  expect(deviceName('curl/8')).toBe('this browser');
});
