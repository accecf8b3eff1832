import { eventEnvelope } from '../contracts/events';
import { describeZodIssues, isAppError } from '../errors';
import type { DeadLetterSink } from '../ports/dead-letter';
import type { EventLedger } from '../ports/event-ledger';
import { type ProcessEventDeps, processEvent } from './process-event';

export interface ConsumeDeps extends ProcessEventDeps {
  ledger: EventLedger;
  deadLetters?: DeadLetterSink;
}

/**
 * One queue record. A body that is not a valid envelope, or a failure that can never succeed, goes to the
 * dead-letter queue at once with the reason (and the ledger), so it neither blocks the batch nor retries
 * forever; a retryable failure is rethrown so SQS redelivers just this record.
 */
export async function consumeRecord(
  deps: ConsumeDeps,
  record: { body: string; messageId: string },
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
  try {
    await processEvent(deps, event);
  } catch (e) {
    if (isAppError(e) && !e.retryable) {
      await deps.ledger.record({
        eventId: event.id,
        type: event.type,
        key: event.key,
        status: 'dead_lettered',
        reason: `${e.code}: ${e.message}`,
        at: deps.clock().toISOString(),
        correlationId: event.correlationId,
      });
      return deadLetter(deps, record, `${e.code}: ${e.message}`);
    }
    deps.log.warn('event.retry', { eventId: event.id, type: event.type, error: String(e) });
    throw e;
  }
}

async function deadLetter(deps: ConsumeDeps, record: { body: string; messageId: string }, reason: string) {
  deps.log.error('event.dead_lettered', { messageId: record.messageId, reason });
  if (!deps.deadLetters) throw new Error(`No dead-letter queue configured; ${reason}`);
  await deps.deadLetters.send(record.body, reason);
}
