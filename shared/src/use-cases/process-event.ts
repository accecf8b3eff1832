import type { EventEnvelope, EventOf, NotifyPayload } from '../contracts/events';
import type { EventLedger } from '../ports/event-ledger';
import type { Log } from '../ports/logger';
import { type AdmitDeps, admitEvent } from './admit-event';
import { isRetryRun } from './retry-action';

export interface AgentOutcome {
  runId?: string;
  outcome: string;
}

export interface ProcessEventDeps extends AdmitDeps {
  ledger: EventLedger;
  log: Log;
  /** Runs (or resumes) the agent for a group of events that share a key. */
  runAgent?: (events: EventEnvelope[]) => Promise<AgentOutcome>;
  notify?: (payload: NotifyPayload, correlationId: string) => Promise<void>;
  /** A one-time timer came due (card expiry, re-notification): see use-cases/expire-card. */
  onTimer?: (event: EventOf<'timer.fired'>) => Promise<AgentOutcome>;
  /** The decision on a retried card, which lives in its own one-card run (use-cases/run-retry). */
  onRetryDecision?: (event: EventOf<'approval.decided'>) => Promise<AgentOutcome>;
}

/**
 * The worker's one use case: admit the event (duplicates, cooldown), hand it to the right consumer, and
 * record how it ended in the event ledger — every event ends processed, coalesced, deferred or duplicate.
 */
export async function processEvent(deps: ProcessEventDeps, event: EventEnvelope): Promise<AgentOutcome> {
  const admission = await admitEvent(deps, event);
  if (admission.decision !== 'run') return { outcome: admission.decision };

  let result: AgentOutcome;
  if (event.type === 'system.ping') {
    result = { outcome: `pong: ${event.payload.note}` };
  } else if (event.type === 'notify') {
    if (!deps.notify) throw new Error('notify is not configured');
    await deps.notify(event.payload, event.correlationId);
    result = { outcome: 'notified' };
  } else if (event.type === 'timer.fired') {
    result = deps.onTimer ? await deps.onTimer(event) : { outcome: 'timers not configured' };
  } else if (event.type === 'approval.decided' && deps.onRetryDecision && isRetryRun(event.payload.runId)) {
    result = await deps.onRetryDecision(event);
  } else if (deps.runAgent) {
    result = await deps.runAgent(admission.events);
  } else {
    result = { outcome: 'recorded (agent not configured)' };
  }

  const at = deps.clock().toISOString();
  for (const e of admission.events) {
    const primary = e.id === event.id;
    await deps.ledger.record({
      eventId: e.id,
      type: e.type,
      key: e.key,
      status: primary ? 'processed' : 'coalesced',
      reason: primary ? result.outcome : `coalesced into the run for ${event.id}`,
      at,
      correlationId: e.correlationId,
      ...(result.runId ? { runId: result.runId } : {}),
    });
  }
  deps.log.info('event.processed', {
    eventId: event.id,
    type: event.type,
    key: event.key,
    count: admission.events.length,
    outcome: result.outcome,
  });
  return result;
}
