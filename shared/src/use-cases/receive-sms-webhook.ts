import { type EventEnvelope, eventEnvelope } from '../contracts/events';
import { parseOpenPhoneWebhook } from '../contracts/openphone';
import { verifyOpenPhoneSignature } from '../domain/openphone-signature';
import { AppError, describeZodIssues, UnauthorizedError, ValidationError } from '../errors';
import type { EventLedger } from '../ports/event-ledger';
import type { EventQueue } from '../ports/event-queue';
import type { IdempotencyStore } from '../ports/idempotency-store';
import type { Log } from '../ports/logger';
import { boundedId, type DeliveryPlan, planOpenPhoneDelivery } from './plan-openphone-delivery';

export interface ReceiveSmsDeps {
  secret: string;
  urgentKeywords: string[];
  idempotency: IdempotencyStore;
  queue: EventQueue;
  /** Where a delivery that starts nothing is recorded with its reason (SPEC §6.3). */
  ledger: EventLedger;
  log: Log;
  clock: () => Date;
}

export interface ReceiveSmsInput {
  rawBody: string;
  headers: Record<string, string | undefined>;
  /** The invocation's remaining time (Lambda context): bounds how long a claim may stay in progress. */
  remainingMs?: () => number;
}

export type ReceiveSmsResult =
  | { status: 'enqueued'; eventId: string; type: string; urgent: boolean }
  | { status: 'duplicate' | 'ignored'; reason: string };

/**
 * A Quo delivery (either webhook generation), answered fast. Primary course: verify the signature over the raw
 * body → parse into one internal event → plan it (plan-openphone-delivery.ts): a delivery that starts nothing
 * (a reaction, a type we do not use) is recorded in the event ledger with its reason and answered 200; anything
 * else → claim the delivery id (Powertools Idempotency: a conditional write) → enqueue its event. If the enqueue
 * fails the claim is released so the provider's retry is not mistaken for a duplicate, a copy that arrives while
 * the first is still in progress is answered 409 (Quo retries any non-2xx), and a claim whose invocation timed
 * out expires with that invocation's remaining time (SPEC §6.3: nothing lost).
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
  const deliveryId = verified.deliveryId ?? parsed.eventId;
  const plan = planOpenPhoneDelivery(parsed, { deliveryId, urgentKeywords: deps.urgentKeywords, now });
  if (plan.action === 'skip') return skip(deps, plan, deliveryId, now);

  // Whatever is answered 202 must be an envelope the worker accepts; check here rather than dead-letter later.
  const checked = eventEnvelope.safeParse(plan.event);
  if (!checked.success) {
    throw new ValidationError(`Webhook cannot be queued: ${describeZodIssues(checked.error.issues)}`);
  }
  const event = checked.data;
  const outcome = await deps.idempotency.once(`openphone:${deliveryId}`, () => enqueue(deps, event), {
    remainingMs: input.remainingMs,
  });
  if (!outcome.ran && outcome.reason === 'in_progress') {
    // The first copy is still being enqueued and may yet fail or die. A 200 would end Quo's retries (any
    // non-2xx is retried, on Quo's schedule), so answer 409: the retry then finds it done (200 duplicate) or
    // released/abandoned (and enqueues it). Never a 2xx for a delivery that is not safely queued.
    deps.log.info('webhook.in_progress', { deliveryId });
    throw new AppError('This delivery is still being processed; retry later.', {
      code: 'delivery_in_progress',
      status: 409,
      retryable: true,
    });
  }
  if (!outcome.ran) {
    deps.log.info('webhook.duplicate', {
      deliveryId,
      correlationId: event.correlationId,
      reason: outcome.reason,
    });
    return { status: 'duplicate', reason: 'delivery already received' };
  }
  deps.log.info('webhook.enqueued', {
    eventId: event.id,
    type: event.type,
    correlationId: event.correlationId,
    urgent: plan.urgent,
  });
  return { status: 'enqueued', eventId: event.id, type: event.type, urgent: plan.urgent };
}

/** The claimed part: a failure here releases the claim (the work threw), so Quo's retry enqueues. */
async function enqueue(deps: ReceiveSmsDeps, event: EventEnvelope) {
  try {
    await deps.queue.send(event);
  } catch (e) {
    throw e instanceof AppError
      ? e
      : new AppError('Could not enqueue the message', {
          code: 'enqueue_failed',
          status: 503,
          retryable: true,
          cause: e,
        });
  }
  return { eventId: event.id };
}

/**
 * The ledger write is idempotent (a put per event id), so a retried delivery records the same line again; if
 * it fails the delivery is answered 503 and Quo retries, rather than the skip going unrecorded.
 */
async function skip(
  deps: ReceiveSmsDeps,
  plan: Extract<DeliveryPlan, { action: 'skip' }>,
  deliveryId: string,
  now: Date,
): Promise<ReceiveSmsResult> {
  try {
    await deps.ledger.record({
      eventId: plan.eventId,
      type: plan.type,
      key: plan.key,
      status: 'ignored',
      reason: plan.reason,
      at: now.toISOString(),
      correlationId: `openphone:${boundedId(deliveryId)}`,
    });
  } catch (e) {
    throw new AppError('Could not record the delivery', {
      code: 'ledger_unavailable',
      status: 503,
      retryable: true,
      cause: e,
    });
  }
  deps.log.info('webhook.ignored', { eventId: plan.eventId, reason: plan.reason });
  return { status: 'ignored', reason: plan.reason };
}
