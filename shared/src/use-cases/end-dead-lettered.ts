import type { PendingAction } from '../contracts/conversations';
import type { EventEnvelope } from '../contracts/events';
import type { ActionStore } from '../ports/action-store';
import type { AuditLog } from '../ports/audit-log';
import type { ConversationStore } from '../ports/conversation-store';
import type { EventQueue } from '../ports/event-queue';
import type { Log } from '../ports/logger';
import type { RunStore } from '../ports/run-store';
import { recountPending } from './expire-card';

export interface EndDeadLetteredDeps {
  actions: ActionStore;
  conversations: ConversationStore;
  runs: RunStore;
  audit: AuditLog;
  queue: EventQueue;
  log: Log;
  clock: () => Date;
}

/** Which conversation, run and card an event was working on, from what the event itself says. */
async function workOf(
  deps: EndDeadLetteredDeps,
  event: EventEnvelope,
): Promise<{ conversationId: string; runId: string; actionId?: string } | undefined> {
  switch (event.type) {
    case 'approval.decided':
    case 'timer.fired':
      return event.payload;
    case 'run.resume':
      return event.payload;
    case 'chat.message':
      return { conversationId: event.payload.conversationId, runId: `run_${event.id}` };
    case 'sms.received':
    case 'email.received': {
      const conv = await deps.conversations.findByTriggerKey(event.key);
      return conv ? { conversationId: conv.id, runId: `run_${event.id}` } : undefined;
    }
    default:
      return undefined;
  }
}

const OPEN = ['PENDING', 'APPROVED', 'EXECUTING'] as const;

/**
 * An event that will never be processed (its last receive failed, or it cannot succeed) must not leave its
 * card and run waiting forever (SPEC §6.8). Primary course: find the work the event belongs to → every open
 * card of that run ends FAILED with the reason (an interrupted send says its outcome is unknown) → the run
 * ends failed → the conversation says what happened and offers the retry → the team is alerted. The event
 * itself stays in the DLQ for operators; this never consumes it. Every step is safe to repeat.
 */
export async function endDeadLettered(
  deps: EndDeadLetteredDeps,
  event: EventEnvelope,
  reason: string,
): Promise<{ failedCards: string[] } | undefined> {
  const work = await workOf(deps, event);
  if (!work) return undefined;
  const { conversationId, runId } = work;
  const at = deps.clock().toISOString();
  const cards = (await deps.actions.listByConversation(conversationId)).filter(
    (a) => (a.runId === runId || a.id === work.actionId) && (OPEN as readonly string[]).includes(a.status),
  );
  const failed: PendingAction[] = [];
  for (const card of cards) {
    const error =
      card.status === 'EXECUTING'
        ? `Stopped: ${reason}. It may or may not have gone out — check before retrying.`
        : `Stopped: ${reason}`;
    const moved = await deps.actions.transition(conversationId, card.id, [card.status], 'FAILED', {
      error,
      updatedAt: at,
    });
    if (moved) failed.push(moved);
  }
  await recountPending(deps, conversationId);
  const run = await deps.runs.get(conversationId, runId);
  if (run && (run.status === 'running' || run.status === 'awaiting_approval')) {
    await deps.runs.update(conversationId, runId, {
      status: 'failed',
      awaitingActionId: undefined,
      outcome: `FAILED: ${reason}`.slice(0, 500),
      updatedAt: at,
    });
  }
  if (!run && failed.length === 0) return { failedCards: [] };
  await tellTheTeam(deps, { conversationId, runId, reason, failed, at, eventId: event.id });
  return { failedCards: failed.map((a) => a.id) };
}

async function tellTheTeam(
  deps: EndDeadLetteredDeps,
  x: {
    conversationId: string;
    runId: string;
    reason: string;
    failed: PendingAction[];
    at: string;
    eventId: string;
  },
) {
  const what = x.failed.length ? `: ${x.failed.map((a) => a.summary).join('; ')}` : '';
  await deps.conversations.appendMessage({
    id: `m_deadletter_${x.eventId}`,
    conversationId: x.conversationId,
    role: 'assistant',
    text: `I had to stop this after repeated failures (${x.reason})${what}. ${
      x.failed.length
        ? 'The card is marked failed; press Retry on it to try again with a fresh approval.'
        : ''
    }`.trim(),
    createdAt: x.at,
    author: { kind: 'assistant', name: 'Switchboard' },
    runId: x.runId,
    ...(x.failed[0] ? { actionId: x.failed[0].id } : {}),
  });
  await deps.audit.append({
    conversationId: x.conversationId,
    type: 'run.dead_lettered',
    actor: 'switchboard',
    at: x.at,
    data: { runId: x.runId, eventId: x.eventId, reason: x.reason, failedCards: x.failed.map((a) => a.id) },
  });
  await deps.queue.send({
    id: `notify_deadletter_${x.eventId}`,
    type: 'notify',
    correlationId: `conv:${x.conversationId}`,
    key: `notify:${x.conversationId}`,
    occurredAt: x.at,
    payload: {
      kind: 'alert',
      conversationId: x.conversationId,
      title: 'Stopped after repeated failures',
      body: x.reason.slice(0, 300),
    },
  });
}
