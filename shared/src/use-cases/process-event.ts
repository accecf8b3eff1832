import type { EventEnvelope, EventOf, NotifyPayload } from '../contracts/events';
import { ConversationDeletedError } from '../errors';
import { type EventLedger, erasedEntry, type LedgerEntry } from '../ports/event-ledger';
import type { Log } from '../ports/logger';
import { type AdmitDeps, admitEvent } from './admit-event';
import { handleTimerFired } from './expire-card';
import { runLeadCheck } from './lead-tracking';
import { learnFromDecision } from './learn-from-decision';
import { isRetryRun } from './retry-action';
import { type RunDigestDeps, runDigest } from './run-digest';
import { type AgentOutcome, type RunEventGroupDeps, runEventGroup } from './run-event-group';
import { runFollowUp } from './run-followup';
import { runRedraft } from './run-redraft';
import { runRetryDecision } from './run-retry';
import type { SendNotificationDeps } from './send-notification';

export type { AgentOutcome } from './run-event-group';

export interface ProcessEventDeps extends AdmitDeps, RunEventGroupDeps {
  ledger: EventLedger;
  log: Log;
  /** Web Push delivery; absent when no VAPID key pair is configured (push is off on this deployment). */
  push?: SendNotificationDeps;
  /** The team's preferences partition (follow #20): the digest reads whose hour it is. */
  facts?: RunDigestDeps['facts'];
}

/**
 * The worker's one use case: admit the event (duplicates, cooldown), hand it to the right consumer, and
 * record how it ended in the event ledger — every event ends processed, coalesced, deferred or duplicate.
 */
export async function processEvent(deps: ProcessEventDeps, event: EventEnvelope): Promise<AgentOutcome> {
  if (outsideLedger(event)) return runOutsideLedger(deps, event);
  const admission = await admitEvent(deps, event);
  if (admission.decision !== 'run') return { outcome: admission.decision };
  // An edit, a deny reason or a redraft instruction becomes a lesson first (cards #18; best effort).
  await learnFromDecision(deps, event);
  const result = await untilDeleted(() => dispatch(deps, event, admission.events));

  const at = deps.clock().toISOString();
  for (const e of admission.events) {
    const primary = e.id === event.id;
    const entry: LedgerEntry = {
      eventId: e.id,
      type: e.type,
      key: e.key,
      status: primary ? 'processed' : 'coalesced',
      reason: primary ? result.outcome : `coalesced into the run for ${event.id}`,
      at,
      correlationId: e.correlationId,
      ...(result.runId ? { runId: result.runId } : {}),
    };
    await deps.ledger.record(result.deleted ? erasedEntry(entry) : entry);
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

/** Hands the admitted events to their consumer. */
async function dispatch(
  deps: ProcessEventDeps,
  event: EventEnvelope,
  events: EventEnvelope[],
): Promise<AgentOutcome> {
  if (event.type === 'system.ping') return { outcome: `pong: ${event.payload.note}` };
  if (event.type === 'notify') {
    await notify(deps, event.payload);
    return { outcome: 'notified' };
  }
  if (event.type === 'timer.fired' && event.payload.kind === 'followup') return fireFollowUp(deps, event);
  if (event.type === 'timer.fired' && event.payload.kind === 'digest') return fireDigest(deps, event);
  if (event.type === 'timer.fired' && event.payload.kind === 'lead.check')
    return runLeadCheck({ ...deps, drafting: deps }, event);
  // A one-time timer came due (card expiry, re-notification): see use-cases/expire-card.
  if (event.type === 'timer.fired') return handleTimerFired(deps, event);
  // A card replaced by a new draft: an instruction, a deny reason or answers (use-cases/run-redraft).
  if (event.type === 'card.redraft') return runRedraft(deps, event);
  if (event.type === 'approval.decided' && isRetryRun(event.payload.runId)) {
    // The decision on a retried card, which lives in its own one-card run (use-cases/run-retry).
    return runRetryDecision(
      { ...deps, staleExecutingMs: deps.settings.staleExecutingMs, timezone: deps.settings.timezone },
      event,
    );
  }
  return runEventGroup(deps, events);
}

/**
 * An admin deleted the conversation while its turn ran (issue 19): the turn's commit found the tombstone and
 * wrote nothing. The event ends here — processed, its ledger lines stripped like the rest of the
 * conversation's — rather than being retried into a fresh conversation made of the deleted words.
 */
async function untilDeleted(run: () => Promise<AgentOutcome>): Promise<AgentOutcome & { deleted?: boolean }> {
  try {
    return await run();
  } catch (e) {
    if (!(e instanceof ConversationDeletedError)) throw e;
    return { outcome: 'the conversation was deleted while this ran; nothing of it was kept', deleted: true };
  }
}

/**
 * A research node's `run` and `aggregate` steps are idempotent by the node's own conditional writes (the
 * claim's lease, the counted fan-in, the one winner that enqueues), so they skip the event ledger: its get and
 * record were 2 of the ~10 DynamoDB requests per node (issue 21). A re-sent copy finds its node further on
 * and repeats only the idempotent tail; a message that is dead-lettered is still recorded (consume-record).
 */
function outsideLedger(event: EventEnvelope): event is EventOf<'research.node'> {
  return (
    event.type === 'research.node' && (event.payload.step === 'run' || event.payload.step === 'aggregate')
  );
}

async function runOutsideLedger(deps: ProcessEventDeps, event: EventOf<'research.node'>) {
  const result = await runEventGroup(deps, [event]);
  deps.log.info('event.processed', {
    eventId: event.id,
    type: event.type,
    key: event.key,
    outcome: result.outcome,
  });
  return result;
}

/** A follow-up's time (follow #20): sent if its condition still holds, else cancelled with a note. */
function fireFollowUp(deps: ProcessEventDeps, event: Extract<EventEnvelope, { type: 'timer.fired' }>) {
  if (!deps.followups) return Promise.resolve({ outcome: 'follow-ups are not kept on this deployment' });
  return runFollowUp({ ...deps, followups: deps.followups, timezone: deps.settings.timezone }, event);
}

function fireDigest(deps: ProcessEventDeps, event: Extract<EventEnvelope, { type: 'timer.fired' }>) {
  if (!deps.facts) return Promise.resolve({ outcome: 'preferences are not kept on this deployment' });
  return runDigest(
    {
      ...deps,
      facts: deps.facts,
      ...(deps.cardTimers?.timers ? { timers: deps.cardTimers.timers } : {}),
      teamTimezone: deps.settings.timezone,
    },
    event,
  );
}

async function notify(deps: ProcessEventDeps, payload: NotifyPayload) {
  if (!deps.push) {
    deps.log.info('push.disabled', { conversationId: payload.conversationId, kind: payload.kind });
    return;
  }
  // Loaded with the first notification: its payload contracts and token minting are not every event's.
  const { sendNotification } = await import('./send-notification');
  const result = await sendNotification(deps.push, payload);
  deps.log.info('push.sent', { ...result });
}
