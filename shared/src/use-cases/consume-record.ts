import { type EventEnvelope, eventEnvelope } from '../contracts/events';
import { describeZodIssues, isAppError } from '../errors';
import { addLogContext } from '../logger';
import type { DeadLetterSink } from '../ports/dead-letter';
import type { EventLedger } from '../ports/event-ledger';
import { type ProcessEventDeps, processEvent } from './process-event';

export interface ConsumeDeps extends ProcessEventDeps {
  ledger: EventLedger;
  deadLetters?: DeadLetterSink;
  /** The queue's redrive maxReceiveCount: a failure on that receive is the last one SQS will deliver. */
  maxReceiveCount?: number;
  /** Ends the card and run an event that will never be processed was working on (use-cases/end-dead-lettered). */
  onDeadLetter?: (event: EventEnvelope, reason: string) => Promise<unknown>;
}

/**
 * One queue record. A body that is not a valid envelope, or a failure that can never succeed, goes to the
 * dead-letter queue at once with the reason (and the ledger), so it neither blocks the batch nor retries
 * forever; a retryable failure is rethrown so SQS redelivers just this record.
 */
export async function consumeRecord(
  deps: ConsumeDeps,
  record: { body: string; messageId: string; receiveCount?: number },
): Promise<void> {
  let json: unknown;
  try {
    json = JSON.parse(record.body);
  } catch {
    return deadLetter(deps, record, 'body is not JSON');
  }
  const parsed = eventEnvelope.safeParse(json);
  if (!parsed.success)
    return deadLetter(deps, record, `invalid envelope: ${describeZodIssues(parsed.error.issues)}`);
  const event = parsed.data;
  // The envelope is the truth (a message from an older sender may lack the correlationId attribute).
  addLogContext({ correlationId: event.correlationId, eventId: event.id, eventKey: event.key });
  try {
    await processEvent(deps, event);
  } catch (e) {
    if (isAppError(e) && !e.retryable) {
      await recordDeadLetter(deps, event, `${e.code}: ${e.message}`);
      return deadLetter(deps, record, `${e.code}: ${e.message}`);
    }
    const attempts = record.receiveCount ?? 0;
    if (deps.maxReceiveCount && attempts >= deps.maxReceiveCount) {
      // SQS's redrive moves it to the DLQ after this failure; operators replay from there. Record it now,
      // while we still hold it, so the ledger, the card and the run say what happened.
      const why = e instanceof Error ? e.message : String(e);
      await recordDeadLetter(deps, event, `gave up after ${attempts} attempts: ${why}`.slice(0, 1000));
    } else {
      deps.log.warn('event.retry', { eventId: event.id, type: event.type, attempts, error: String(e) });
    }
    throw e;
  }
}

async function recordDeadLetter(deps: ConsumeDeps, event: EventEnvelope, reason: string) {
  await deps.ledger.record({
    eventId: event.id,
    type: event.type,
    key: event.key,
    status: 'dead_lettered',
    reason,
    at: deps.clock().toISOString(),
    correlationId: event.correlationId,
  });
  deps.log.error('event.dead_lettered', { eventId: event.id, type: event.type, reason });
  try {
    await deps.onDeadLetter?.(event, reason);
  } catch (err) {
    // The ledger already says dead-lettered; a store that failed here must not hide the original failure.
    deps.log.error('dead_letter.cleanup_failed', { eventId: event.id, error: String(err) });
  }
}

async function deadLetter(deps: ConsumeDeps, record: { body: string; messageId: string }, reason: string) {
  deps.log.error('event.dead_lettered', { messageId: record.messageId, reason });
  if (!deps.deadLetters) throw new Error(`No dead-letter queue configured; ${reason}`);
  await deps.deadLetters.send(record.body, reason);
}
