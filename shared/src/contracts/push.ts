import * as z from 'zod';

/**
 * Web Push contracts shared by the API (subscribe/unsubscribe routes), the PWA (opt-in screen) and the
 * service worker (payload it shows). Browser-safe: no Node imports here. The namespace import lets esbuild
 * drop zod's locales from the service worker bundle (~90 KB instead of ~450 KB with `import { z }`).
 */

const base64url = /^[A-Za-z0-9_-]+={0,2}$/;

/** Loopback http is allowed so the local push service works; anything else must be https. */
function isAllowedPushEndpoint(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

export const pushEndpoint = z
  .string()
  .max(2048)
  .refine(isAllowedPushEndpoint, { message: 'must be an https URL (or http on loopback)' });

export const pushSubscriptionKeys = z.object({
  /** The browser's ECDH P-256 public key, uncompressed point (65 bytes → 87 base64url chars). */
  p256dh: z.string().regex(base64url, 'must be base64url').min(87).max(88),
  /** The 16-byte auth secret (22 base64url chars). */
  auth: z.string().regex(base64url, 'must be base64url').min(22).max(24),
});

/** Exactly what `PushSubscription.toJSON()` gives in the browser. */
export const browserPushSubscription = z.object({
  endpoint: pushEndpoint,
  /** Epoch milliseconds after which the push service drops the subscription; browsers mostly send null. */
  expirationTime: z.number().int().nonnegative().nullable().optional(),
  keys: pushSubscriptionKeys,
});

/** A subscription as the store keeps it: one per device (endpoint), owned by one team member. */
export const storedPushSubscription = browserPushSubscription.extend({
  userId: z.string().min(1).max(200),
  userAgent: z.string().max(512),
  /**
   * The owner was an admin when the device subscribed (from the verified session): alarm pushes go to these
   * devices only. Recorded at subscribe time, so a change of role reaches a device when it next subscribes
   * (turning notifications off and on); absent on subscriptions saved before it existed.
   */
  admin: z.boolean().optional(),
  /** The owner's email and name from the session (cards #18): a notification's decision is recorded as them. */
  email: z.string().max(320).optional(),
  name: z.string().max(200).optional(),
  createdAt: z.string().datetime(),
  updatedAt: z.string().datetime(),
});

/** What the API hands the store; the store sets createdAt/updatedAt. */
export const newPushSubscription = z.object({
  subscription: browserPushSubscription,
  userId: z.string().min(1).max(200),
  userAgent: z.string().max(512).default(''),
  admin: z.boolean().default(false),
  email: z.string().max(320).optional(),
  name: z.string().max(200).optional(),
});

/** POST /push/subscriptions body. The user agent is informative only (lets a member tell devices apart). */
export const subscribePushRequest = z.object({
  subscription: browserPushSubscription,
  userAgent: z.string().max(512).optional(),
});

/** DELETE /push/subscriptions body. */
export const unsubscribePushRequest = z.object({ endpoint: pushEndpoint });

/** GET /push/vapid-public-key response: the applicationServerKey for `pushManager.subscribe`. */
export const vapidPublicKeyResponse = z.object({ publicKey: z.string().regex(base64url).min(87).max(88) });

export const notificationKind = z.enum(['approval', 'alert']);

/**
 * The JSON a push carries to the service worker. Kept well under 3 KB (the Web Push record limit is 4 KB
 * including encryption overhead), so it holds a preview and the deep link, never a full conversation.
 */
export const pushNotificationPayload = z.object({
  v: z.literal(1),
  kind: notificationKind,
  title: z.string().min(1).max(200),
  body: z.string().max(2000),
  conversationId: z.string().min(1).max(200),
  actionId: z.string().max(200).optional(),
  /** Same-origin path the click opens: `/chat?id=<conversationId>`. */
  url: z.string().regex(/^\/(?!\/)/, 'must be a same-origin path'),
  /** Notification tag: a newer notification for the same conversation replaces the older one. */
  tag: z.string().min(1).max(64),
  requireInteraction: z.boolean(),
  /**
   * Approve / Deny from the notification (cards #18): a signed, single-use token for this card and the
   * device's owner, posted by the service worker to the card's `…/by-token` route. Absent → the tap opens.
   */
  actionToken: z.string().max(1500).optional(),
  /** App badge count at send time; absent when unknown. */
  pendingApprovals: z.number().int().nonnegative().optional(),
  sentAt: z.string().datetime(),
});

export type BrowserPushSubscription = z.infer<typeof browserPushSubscription>;
export type StoredPushSubscription = z.infer<typeof storedPushSubscription>;
export type NewPushSubscription = z.input<typeof newPushSubscription>;
export type SubscribePushRequest = z.infer<typeof subscribePushRequest>;
export type UnsubscribePushRequest = z.infer<typeof unsubscribePushRequest>;
export type VapidPublicKeyResponse = z.infer<typeof vapidPublicKeyResponse>;
export type NotificationKind = z.infer<typeof notificationKind>;
export type PushNotificationPayload = z.infer<typeof pushNotificationPayload>;

/** The deep link a notification opens (SPEC §5). */
export function chatUrl(conversationId: string): string {
  return `/chat?id=${encodeURIComponent(conversationId)}`;
}

// API responses of the push routes (the PWA parses them too).

/** A subscribed device as the API shows it to its owner. */
export const pushDevice = storedPushSubscription.pick({
  endpoint: true,
  userAgent: true,
  createdAt: true,
  updatedAt: true,
});
export type PushDevice = z.infer<typeof pushDevice>;

/** POST /api/push/subscriptions response. Browser-safe (zod and contracts only) so the PWA parses it too. */
export const subscribePushResponse = z.object({ device: pushDevice });
export type SubscribePushResponse = z.infer<typeof subscribePushResponse>;

/** POST /api/push/test response. Browser-safe (contracts). */
export const testNotificationResponse = z.object({
  /** The caller's active subscriptions (devices) the push was sent to. */
  subscriptions: z.number().int().nonnegative(),
  delivered: z.number().int().nonnegative(),
  /** Devices the push service declared gone (404/410); they were removed. */
  removed: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  conversationId: z.string(),
});
export type TestNotificationResponse = z.infer<typeof testNotificationResponse>;

/** DELETE /api/push/subscriptions response. Browser-safe. */
export const unsubscribePushResponse = z.object({ removed: z.boolean() });
export type UnsubscribePushResponse = z.infer<typeof unsubscribePushResponse>;
