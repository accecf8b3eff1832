import type { BrowserPushSubscription, NewPushSubscription, StoredPushSubscription } from '../contracts/push';

/** RFC 8030 §5.3 urgency values, as sent in the `Urgency` header. */
export type PushUrgency = 'very-low' | 'low' | 'normal' | 'high';

export interface PushSendOptions {
  /** Seconds the push service may hold the message for an offline device (the `TTL` header). */
  ttlSeconds: number;
  urgency: PushUrgency;
  /** ≤ 32 URL-safe base64 chars; a newer message with the same topic replaces an undelivered one. */
  topic?: string;
}

/**
 * What one send attempt came to. `gone` means the subscription is dead (404/410) and must be removed;
 * `retryable` covers 429, 5xx, timeouts and network errors; `failed` is everything a retry will not fix
 * (our request was refused: bad VAPID, payload too large, malformed subscription).
 */
export type PushSendOutcome =
  | { kind: 'delivered'; status: number }
  | { kind: 'gone'; status: 404 | 410 }
  | { kind: 'retryable'; status?: number; retryAfterMs?: number; reason: string }
  | { kind: 'failed'; status?: number; reason: string };

export interface PushSender {
  /** Encrypts `payload` for the subscription and posts it to its push service. Never throws for HTTP outcomes. */
  send(
    subscription: BrowserPushSubscription,
    payload: string,
    options: PushSendOptions,
  ): Promise<PushSendOutcome>;
}

export interface PushSubscriptionStore {
  /** Creates or updates the subscription for this endpoint (re-subscribing keeps createdAt, moves ownership). */
  put(input: NewPushSubscription): Promise<StoredPushSubscription>;
  /**
   * Removes the subscription for this endpoint; idempotent. With `userId`, removes it only if that member
   * owns it (the unsubscribe route must not let one member drop another's device). Returns whether it removed one.
   */
  delete(endpoint: string, opts?: { userId?: string }): Promise<boolean>;
  /** Every subscription of the team that has not passed its expirationTime. */
  listActive(): Promise<StoredPushSubscription[]>;
  /** One member's active subscriptions (their devices). */
  listByUser(userId: string): Promise<StoredPushSubscription[]>;
}

/** The logger slice the push use case needs; any structured logger (Powertools included) fits. */
export interface PushLog {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}
