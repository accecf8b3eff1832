import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pRetry from 'p-retry';
import { z } from 'zod';
import { notifyPayload } from '../contracts/events';
import { DEFAULT_NOTIFICATION_CHOICES, type NotificationChoices } from '../contracts/notification-choices';
import {
  chatUrl,
  type PushNotificationPayload,
  pushNotificationPayload,
  type StoredPushSubscription,
} from '../contracts/push';
import { mintActionToken } from '../domain/action-token';
import { wantsPush } from '../domain/notification-routing';
import { describeZodIssues, ValidationError } from '../errors';
import type { NotificationChoicesStore } from '../ports/notification-choices';
import type {
  PushLog,
  PushSender,
  PushSendOptions,
  PushSendOutcome,
  PushSubscriptionStore,
} from '../ports/push';

/**
 * Send a `notify` event as Web Push to every active device of the team.
 *
 * Primary course:
 * 1. Validate the event and build one small payload (title, "who: what" body with a preview, deep link).
 * 2. Pick delivery options by kind: approvals stay on screen, are urgent and expire in an hour; alerts
 *    auto-dismiss with normal urgency and a shorter life. The Topic is a hash of the conversation id, so a
 *    newer notification replaces a stale one still queued at the push service.
 * 3. Send to each subscription; 429/5xx/network errors are retried with bounded exponential backoff.
 * 4. A 404/410 answer means the device unsubscribed or expired: its subscription is removed.
 * 5. Log every outcome and return the counts.
 */

/** Under the 4 KB Web Push record limit with room for the aes128gcm overhead (RFC 8291 §4). */
export const MAX_PAYLOAD_BYTES = 3000;

const TITLE_MAX = 120;
const BODY_MAX = 500;
const PREVIEW_MAX = 200;

export const sendNotificationInput = z.object({
  ...notifyPayload.shape,
  conversationId: z.string().min(1).max(200),
  title: z.string().min(1),
  actionId: z.string().max(200).optional(),
  /** Who the conversation is with, so the body names a person and not only a number. */
  contact: z
    .object({
      name: z.string().max(200).optional(),
      phone: z.string().max(40).optional(),
    })
    .optional(),
  /** A short excerpt of the message that triggered the notification. */
  preview: z.string().optional(),
  /** An approval card's argument hash and expiry: each device gets an action token (cards #18). */
  argsHash: z.string().max(100).optional(),
  expiresAt: z.string().optional(),
  /** Only this member's devices (the PWA's "send me a test notification"); absent = the whole team. */
  userId: z.string().min(1).max(200).optional(),
});

export type SendNotificationInput = z.input<typeof sendNotificationInput>;

export interface RetryPolicy {
  /** Retries after the first attempt, per subscription. */
  retries: number;
  minTimeoutMs: number;
  maxTimeoutMs: number;
  /** A push service's Retry-After is honoured up to this; beyond it we would stall the whole batch. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 3,
  minTimeoutMs: 500,
  maxTimeoutMs: 5_000,
  maxRetryAfterMs: 10_000,
};

export interface SendNotificationDeps {
  subscriptions: PushSubscriptionStore;
  sender: PushSender;
  log: PushLog;
  /** Feeds the app badge; optional because the badge is a nicety, not worth failing a send over. */
  countPendingApprovals?: () => Promise<number>;
  retry?: Partial<RetryPolicy>;
  now?: () => Date;
  /** Signs the Approve / Deny action token each device's owner gets (domain/action-token.ts). */
  actionTokenKey?: Buffer;
  /** People's choices (issue 19); absent = everyone gets everything, as before choices existed. */
  choices?: Pick<NotificationChoicesStore, 'all'>;
  /**
   * A person's own time zone (follow #20's personal preference), when they set one: their quiet hours are
   * read in it rather than in the zone of the device that saved them (a phone abroad, a laptop in UTC).
   */
  personalZone?: (userId: string) => Promise<string | undefined>;
}

export interface SendNotificationResult {
  subscriptions: number;
  delivered: number;
  /** Subscriptions the push service declared gone (404/410) and that were deleted. */
  removed: number;
  /** Refused, or still failing after the retries. */
  failed: number;
  /** Extra attempts spent on retryable failures, across all subscriptions. */
  retries: number;
  topic: string;
  payloadBytes: number;
}

const DELIVERY = {
  approval: { ttlSeconds: 3600, urgency: 'high', requireInteraction: true },
  alert: { ttlSeconds: 900, urgency: 'normal', requireInteraction: false },
} as const;
const URGENT_DELIVERY = { urgency: 'high', requireInteraction: true } as const;

export async function sendNotification(
  deps: SendNotificationDeps,
  rawInput: SendNotificationInput,
): Promise<SendNotificationResult> {
  const parsed = sendNotificationInput.safeParse(rawInput);
  if (!parsed.success) {
    throw new ValidationError(`Invalid notification: ${describeZodIssues(parsed.error.issues)}`);
  }
  const input = parsed.data;
  const now = deps.now ?? (() => new Date());
  // An urgent alert is delivered like an approval: high urgency, and it stays on screen.
  const policy = input.urgent ? { ...DELIVERY[input.kind], ...URGENT_DELIVERY } : DELIVERY[input.kind];
  const topic = conversationTopic(input.conversationId);
  const pendingApprovals = await countPending(deps);

  const payload = buildNotificationPayload(input, {
    tag: topic,
    requireInteraction: policy.requireInteraction,
    pendingApprovals,
    sentAt: now(),
  });
  const body = JSON.stringify(payload);
  const payloadBytes = Buffer.byteLength(body);
  const options: PushSendOptions = { ttlSeconds: policy.ttlSeconds, urgency: policy.urgency, topic };
  const fields = {
    conversationId: input.conversationId,
    kind: input.kind,
    topic,
    payloadBytes,
    ...(input.userId ? { userId: input.userId } : {}),
  };

  const { subscriptions, skipped } = await recipients(deps, input, now());
  if (skipped) deps.log.info('push skipped by people’s choices', { ...fields, skipped });

  const result: SendNotificationResult = {
    subscriptions: subscriptions.length,
    delivered: 0,
    removed: 0,
    failed: 0,
    retries: 0,
    topic,
    payloadBytes,
  };
  if (subscriptions.length === 0) {
    deps.log.info('push skipped: no active subscriptions', fields);
    return result;
  }

  const retry = { ...DEFAULT_RETRY_POLICY, ...deps.retry };
  const outcomes = await Promise.all(
    subscriptions.map((s) =>
      deliverToOne(deps, retry, s, withActionToken(deps, input, payload, s, now()) ?? body, options, fields),
    ),
  );
  for (const o of outcomes) {
    result.retries += o.attempts - 1;
    if (o.result === 'delivered') result.delivered++;
    else if (o.result === 'removed') result.removed++;
    else result.failed++;
  }
  deps.log.info('push notification sent', { ...fields, ...result });
  return result;
}

/**
 * The devices this push goes to (issue 19). A push for one person (a test, their digest) goes to their
 * devices as asked. Otherwise a routed approval goes to its assignee's devices, then (`team` stage) to
 * everyone else's; and each device's owner must want it now (their choices and quiet hours; the defaults for
 * someone who never chose). Choices that cannot be read never stop a push: everyone gets it.
 */
async function recipients(
  deps: SendNotificationDeps,
  input: z.infer<typeof sendNotificationInput>,
  now: Date,
): Promise<{ subscriptions: StoredPushSubscription[]; skipped: number }> {
  if (input.userId) return { subscriptions: await deps.subscriptions.listByUser(input.userId), skipped: 0 };
  const route = input.route;
  const all = (await deps.subscriptions.listActive()).filter(
    (s) => !route || (route.stage === 'assignee') === (s.userId === route.assignee),
  );
  if (!deps.choices) return { subscriptions: all, skipped: 0 };
  const choices = await deps.choices.all().catch((e: unknown) => {
    deps.log.warn('notification choices unavailable; sending to every device', { error: errorMessage(e) });
    return new Map<string, NotificationChoices>();
  });
  const zones = await personalZones(deps, [...new Set(all.map((s) => s.userId))]);
  const wanted = all.filter((s) =>
    wantsPush(
      inOwnZone(choices.get(s.userId) ?? DEFAULT_NOTIFICATION_CHOICES, zones.get(s.userId)),
      input,
      now,
    ),
  );
  return { subscriptions: wanted, skipped: all.length - wanted.length };
}

/** Each person's own zone; one that cannot be read leaves their quiet hours in the device's zone. */
async function personalZones(deps: SendNotificationDeps, userIds: string[]) {
  const zones = new Map<string, string>();
  if (!deps.personalZone) return zones;
  for (const id of userIds) {
    const zone = await deps.personalZone(id).catch(() => undefined);
    if (zone) zones.set(id, zone);
  }
  return zones;
}

function inOwnZone(c: NotificationChoices, zone: string | undefined): NotificationChoices {
  return zone && c.quietHours ? { ...c, quietHours: { ...c.quietHours, timezone: zone } } : c;
}

/**
 * An approval's payload for one device, with the Approve / Deny token of that device's owner (cards #18):
 * bound to the card, the hash of the arguments the notification announces and the person, expiring with the
 * card (an hour when its expiry is unknown, as long as the push itself lives). A device saved before owners'
 * emails were kept gets none: its tap opens the card.
 */
function withActionToken(
  deps: SendNotificationDeps,
  input: z.infer<typeof sendNotificationInput>,
  payload: PushNotificationPayload,
  s: StoredPushSubscription,
  now: Date,
): string | undefined {
  if (!deps.actionTokenKey || input.kind !== 'approval' || !input.actionId || !input.argsHash || !s.email)
    return undefined;
  const expires = input.expiresAt ? Date.parse(input.expiresAt) : now.getTime() + 3_600_000;
  const actionToken = mintActionToken(deps.actionTokenKey, {
    a: input.actionId,
    c: input.conversationId,
    h: input.argsHash,
    u: s.userId,
    m: s.email,
    ...(s.name ? { n: s.name } : {}),
    e: Math.ceil((Number.isNaN(expires) ? now.getTime() + 3_600_000 : expires) / 1000),
  });
  return JSON.stringify({ ...payload, actionToken });
}

/**
 * The Topic header: ≤ 32 URL-safe base64 characters (RFC 8030 §5.4). Conversation ids may be longer or use
 * other characters, so the topic is a truncated SHA-256 of the id — stable per conversation.
 */
export function conversationTopic(conversationId: string): string {
  return createHash('sha256').update(conversationId).digest('base64url').slice(0, 32);
}

/** Builds the payload and shrinks the text until the JSON fits in MAX_PAYLOAD_BYTES. */
export function buildNotificationPayload(
  input: z.infer<typeof sendNotificationInput>,
  opts: { tag: string; requireInteraction: boolean; pendingApprovals?: number; sentAt: Date },
): PushNotificationPayload {
  let title = clip(input.title, TITLE_MAX);
  let body = clip(composeBody(input), BODY_MAX);
  const make = (): PushNotificationPayload => ({
    v: 1,
    kind: input.kind,
    title,
    body,
    conversationId: input.conversationId,
    ...(input.actionId ? { actionId: input.actionId } : {}),
    url: chatUrl(input.conversationId),
    tag: opts.tag,
    requireInteraction: opts.requireInteraction,
    ...(opts.pendingApprovals === undefined ? {} : { pendingApprovals: opts.pendingApprovals }),
    sentAt: opts.sentAt.toISOString(),
  });
  // Characters are not bytes (emoji, accents, JSON escapes), so measure the encoded JSON and cut again.
  let payload = make();
  while (Buffer.byteLength(JSON.stringify(payload)) > MAX_PAYLOAD_BYTES) {
    if (body.length > 0) body = clip(body, Math.floor([...body].length * 0.75));
    else if ([...title].length > 40) title = clip(title, 40);
    else throw new ValidationError(`Notification cannot fit in ${MAX_PAYLOAD_BYTES} bytes`);
    payload = make();
  }
  return pushNotificationPayload.parse(payload);
}

function composeBody(input: z.infer<typeof sendNotificationInput>): string {
  const name = input.contact?.name?.trim();
  const phone = input.contact?.phone?.trim();
  // An unknown number's "name" is the number itself: say it once.
  const who = name && phone && name !== phone ? `${name} (${phone})` : (name ?? phone);
  const text = input.body.trim();
  // The producer may already have written the name into the body; do not say it twice.
  const alreadyNamed = !!name && text.includes(name);
  const lead = who && !alreadyNamed ? (text ? `${who}: ${text}` : who) : text;
  const preview = input.preview?.replace(/\s+/g, ' ').trim();
  return preview ? `${lead}\n“${clip(preview, PREVIEW_MAX)}”` : lead;
}

/** Cuts at a code point boundary (never half an emoji) and marks the cut. */
function clip(text: string, maxChars: number): string {
  const chars = [...text];
  if (chars.length <= maxChars) return text;
  if (maxChars <= 1) return '';
  return `${chars.slice(0, maxChars - 1).join('')}…`;
}

async function countPending(deps: SendNotificationDeps): Promise<number | undefined> {
  if (!deps.countPendingApprovals) return undefined;
  try {
    return await deps.countPendingApprovals();
  } catch (e) {
    deps.log.warn('push badge count unavailable; sending without it', { error: errorMessage(e) });
    return undefined;
  }
}

class RetryableOutcome extends Error {
  constructor(readonly outcome: Extract<PushSendOutcome, { kind: 'retryable' }>) {
    super(outcome.reason);
  }
}

/** One device, with retries; also used by the alarm push (notify-admins-of-alarm.ts). */
export async function deliverToOne(
  deps: SendNotificationDeps,
  retry: RetryPolicy,
  subscription: StoredPushSubscription,
  body: string,
  options: PushSendOptions,
  baseFields: Record<string, unknown>,
): Promise<{ result: 'delivered' | 'removed' | 'failed'; attempts: number }> {
  const fields = { ...baseFields, ...describeSubscription(subscription) };
  let attempts = 0;
  let outcome: PushSendOutcome;
  try {
    outcome = await pRetry(
      async () => {
        attempts++;
        const o = await deps.sender.send(subscription, body, options);
        if (o.kind === 'retryable') throw new RetryableOutcome(o);
        return o;
      },
      {
        retries: retry.retries,
        factor: 2,
        minTimeout: retry.minTimeoutMs,
        maxTimeout: retry.maxTimeoutMs,
        randomize: true,
        shouldRetry: ({ error }) => error instanceof RetryableOutcome,
        onFailedAttempt: async ({ error, retriesLeft, retryDelay }) => {
          if (!(error instanceof RetryableOutcome) || retriesLeft === 0) return;
          const wanted = Math.min(error.outcome.retryAfterMs ?? 0, retry.maxRetryAfterMs);
          deps.log.warn('push attempt failed; retrying', {
            ...fields,
            attempt: attempts,
            status: error.outcome.status,
            reason: error.outcome.reason,
            retryInMs: Math.max(wanted, retryDelay),
          });
          // The backoff alone may be shorter than what the push service asked for.
          if (wanted > retryDelay) await sleep(wanted - retryDelay);
        },
      },
    );
  } catch (e) {
    outcome =
      e instanceof RetryableOutcome
        ? e.outcome
        : // The sender's contract is to return outcomes; a throw is a bug, reported as a failure for this device.
          { kind: 'failed', reason: `sender threw: ${errorMessage(e)}` };
  }

  switch (outcome.kind) {
    case 'delivered':
      deps.log.info('push delivered', { ...fields, status: outcome.status, attempts });
      return { result: 'delivered', attempts };
    case 'gone':
      try {
        await deps.subscriptions.delete(subscription.endpoint);
        deps.log.info('push subscription gone; removed', { ...fields, status: outcome.status, attempts });
        return { result: 'removed', attempts };
      } catch (e) {
        // The next send gets 404/410 again and retries the removal.
        deps.log.error('push subscription gone but could not be removed', {
          ...fields,
          status: outcome.status,
          error: errorMessage(e),
        });
        return { result: 'failed', attempts };
      }
    case 'retryable':
      deps.log.error('push failed after retries', {
        ...fields,
        status: outcome.status,
        reason: outcome.reason,
        attempts,
      });
      return { result: 'failed', attempts };
    case 'failed':
      deps.log.error('push refused', { ...fields, status: outcome.status, reason: outcome.reason, attempts });
      return { result: 'failed', attempts };
  }
}

/**
 * Log fields for a device without its secrets: the endpoint path is a bearer capability, so only the push
 * service's origin and a hash prefix (matching the store's sort key) are logged.
 */
function describeSubscription(s: StoredPushSubscription) {
  let pushService = 'invalid-url';
  try {
    pushService = new URL(s.endpoint).origin;
  } catch {
    // Stored endpoints are validated; keep logging even if one is not.
  }
  return {
    userId: s.userId,
    pushService,
    subscription: createHash('sha256').update(s.endpoint).digest('hex').slice(0, 12),
  };
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
