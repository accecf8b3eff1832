import { createHash } from 'node:crypto';
import { type EventEnvelope, eventEnvelope } from '../contracts/events';
import { parseOpenPhoneWebhook } from '../contracts/openphone';
import { verifyOpenPhoneSignature } from '../domain/openphone-signature';
import { judgeUrgency, startsWithEmoji } from '../domain/urgency';
import { AppError, describeZodIssues, UnauthorizedError, ValidationError } from '../errors';
import type { EventQueue } from '../ports/event-queue';
import type { IdempotencyStore } from '../ports/idempotency-store';
import type { Log } from '../ports/logger';

export interface ReceiveSmsDeps {
  secret: string;
  urgentKeywords: string[];
  idempotency: IdempotencyStore;
  queue: EventQueue;
  log: Log;
  clock: () => Date;
}

export interface ReceiveSmsInput {
  rawBody: string;
  headers: Record<string, string | undefined>;
}

export type ReceiveSmsResult =
  | { status: 'enqueued'; eventId: string; urgent: boolean }
  | { status: 'duplicate' | 'ignored'; reason: string };

/** Provider ids are short in practice; an unusually long one is hashed so our ids stay within bounds. */
function boundedId(id: string): string {
  return id.length <= 120 ? id : `h_${createHash('sha256').update(id).digest('hex')}`;
}

/** Deliveries are claimed for 7 days: longer than any provider retry schedule. */
const CLAIM_TTL_SECONDS = 7 * 24 * 3600;

/**
 * An OpenPhone delivery, answered fast. Primary course: verify the signature over the raw body → parse →
 * skip what needs no run (other event types, outgoing copies, reactions) → claim the delivery id with a
 * conditional write → enqueue one `sms.received`. If the enqueue fails the claim is released so the
 * provider's retry is not mistaken for a duplicate (SPEC §6.3: nothing lost).
 */
export async function receiveSmsWebhook(
  deps: ReceiveSmsDeps,
  input: ReceiveSmsInput,
): Promise<ReceiveSmsResult> {
  const now = deps.clock();
  const verified = verifyOpenPhoneSignature({
    rawBody: input.rawBody,
    headers: input.headers,
    secret: deps.secret,
    now,
  });
  if (!verified.ok) {
    deps.log.warn('webhook.rejected', { reason: verified.reason, scheme: verified.scheme });
    throw new UnauthorizedError(`Invalid webhook signature (${verified.reason})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(input.rawBody);
  } catch {
    throw new ValidationError('Webhook body is not valid JSON');
  }
  const parsed = parseOpenPhoneWebhook(json);
  if (parsed.kind === 'other') {
    deps.log.info('webhook.ignored', { type: parsed.type, id: parsed.id });
    return { status: 'ignored', reason: `event type ${parsed.type} needs no run` };
  }
  const msg = parsed.event.data.object;
  if (msg.direction !== 'incoming') return { status: 'ignored', reason: 'outgoing message' };
  if (startsWithEmoji(msg.text)) {
    deps.log.info('webhook.reaction_skipped', { id: parsed.event.id });
    return { status: 'ignored', reason: 'reaction (message begins with an emoji)' };
  }

  const deliveryId = verified.deliveryId ?? parsed.event.id;
  const claimKey = `openphone:${deliveryId}`;
  if (!(await deps.idempotency.claim(claimKey, CLAIM_TTL_SECONDS))) {
    deps.log.info('webhook.duplicate', { deliveryId });
    return { status: 'duplicate', reason: 'delivery already received' };
  }

  const urgency = judgeUrgency(msg.text, deps.urgentKeywords);
  const candidate: EventEnvelope = {
    id: `sms_${boundedId(parsed.event.id)}`,
    type: 'sms.received',
    correlationId: `openphone:${boundedId(deliveryId)}`,
    key: `sms:${msg.from}`,
    occurredAt: now.toISOString(),
    payload: {
      messageId: msg.id,
      from: msg.from,
      to: msg.to[0] ?? '',
      text: msg.text,
      receivedAt: msg.createdAt,
      urgent: urgency.urgent,
      ...(msg.phoneNumberId ? { phoneNumberId: msg.phoneNumberId } : {}),
      ...(msg.conversationId ? { conversationId: msg.conversationId } : {}),
    },
  };
  // Whatever is answered 202 must be an envelope the worker accepts; check here rather than dead-letter later.
  const checked = eventEnvelope.safeParse(candidate);
  if (!checked.success) {
    await deps.idempotency.release(claimKey).catch(() => {});
    throw new ValidationError(`Webhook cannot be queued: ${describeZodIssues(checked.error.issues)}`);
  }
  const event = checked.data;
  try {
    await deps.queue.send(event);
  } catch (e) {
    await deps.idempotency.release(claimKey).catch(() => {});
    throw e instanceof AppError
      ? e
      : new AppError('Could not enqueue the message', {
          code: 'enqueue_failed',
          status: 503,
          retryable: true,
          cause: e,
        });
  }
  deps.log.info('webhook.enqueued', { eventId: event.id, urgent: urgency.urgent });
  return { status: 'enqueued', eventId: event.id, urgent: urgency.urgent };
}
