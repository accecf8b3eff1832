import { type CardTimerSettings, renotifyTimerName } from '../agent/card-timers';
import type { PendingAction } from '../contracts/conversations';
import type { EventOf } from '../contracts/events';
import type { ActionStore } from '../ports/action-store';
import type { AuditLog } from '../ports/audit-log';
import type { ConversationStore } from '../ports/conversation-store';
import type { EventQueue } from '../ports/event-queue';
import type { Log } from '../ports/logger';
import type { RunStore } from '../ports/run-store';
import type { AgentOutcome } from './run-event-group';

export interface TimerDeps {
  actions: ActionStore;
  conversations: ConversationStore;
  runs: RunStore;
  audit: AuditLog;
  queue: EventQueue;
  log: Log;
  clock: () => Date;
  cardTimers?: CardTimerSettings;
}

/** The worker's handler for `timer.fired`: the scheduler says the time has come, so no clock is compared. */
export async function handleTimerFired(
  deps: TimerDeps,
  event: EventOf<'timer.fired'>,
): Promise<AgentOutcome> {
  const p = event.payload;
  const action = await deps.actions.get(p.conversationId, p.actionId);
  if (!action) return { outcome: `no card ${p.actionId}` };
  if (p.kind === 'card.renotify') return renotifyCard(deps, action);
  if (p.kind === 'card.notify-team') return notifyTeam(deps, action, p.userId);
  return expireCard(deps, action);
}

/** An urgent card still waiting after URGENT_RENOTIFY_MINUTES: one more approval push to the team. */
async function renotifyCard(deps: TimerDeps, action: PendingAction): Promise<AgentOutcome> {
  if (action.status !== 'PENDING') return { runId: action.runId, outcome: `card already ${action.status}` };
  const minutes = deps.cardTimers?.renotifyMinutes ?? 10;
  await sendApprovalPush(deps, action, `notify_renotify_${action.id}`, {
    title: `Still waiting (urgent): ${action.summary}`,
    body: `This urgent draft has waited ${minutes} minutes for a decision.`,
  });
  await deps.audit.append({
    conversationId: action.conversationId,
    type: 'action.renotified',
    actor: 'switchboard',
    data: { actionId: action.id, afterMinutes: minutes },
  });
  return { runId: action.runId, outcome: `renotified ${action.id}` };
}

/**
 * An approval pushed to its assignee first that still waits after APPROVAL_TEAM_DELAY_MINUTES (issue 19): the
 * rest of the team gets it now. A card decided meanwhile stays quiet.
 */
async function notifyTeam(deps: TimerDeps, action: PendingAction, assignee?: string): Promise<AgentOutcome> {
  if (action.status !== 'PENDING') return { runId: action.runId, outcome: `card already ${action.status}` };
  const minutes = deps.cardTimers?.teamDelayMinutes ?? 5;
  await sendApprovalPush(deps, action, `notify_team_${action.id}`, {
    title: `Approve: ${action.summary}`,
    body: `Waiting ${minutes} min for a decision.`,
    argsHash: action.argsHash,
    ...(assignee ? { route: { assignee, stage: 'team' as const } } : {}),
  });
  return { runId: action.runId, outcome: `sent ${action.id} to the team` };
}

type ApprovalPush = Omit<EventOf<'notify'>['payload'], 'kind' | 'conversationId' | 'actionId'>;

/** One more approval push for a waiting card, through the queue like every notification (its id dedupes it). */
function sendApprovalPush(deps: TimerDeps, action: PendingAction, id: string, push: ApprovalPush) {
  return deps.queue.send({
    id,
    type: 'notify',
    correlationId: `conv:${action.conversationId}`,
    key: `notify:${action.conversationId}`,
    occurredAt: deps.clock().toISOString(),
    payload: {
      ...push,
      kind: 'approval',
      conversationId: action.conversationId,
      title: push.title.slice(0, 120),
      actionId: action.id,
    },
  });
}

/**
 * A card past its expiry: PENDING → EXPIRED (conditional, so a decision that lands first wins), the
 * conversation says so, the paused run ends, the team gets an alert. Every step is safe to repeat: a
 * redelivered timer finds the card EXPIRED and finishes whatever the first attempt did not.
 */
async function expireCard(deps: TimerDeps, action: PendingAction): Promise<AgentOutcome> {
  const at = deps.clock().toISOString();
  const hours = Math.round(((deps.cardTimers?.expiryMinutes ?? 1440) / 60) * 10) / 10;
  const reason = `No decision within ${hours} h`;
  let card = action;
  if (card.status === 'PENDING') {
    const moved = await deps.actions.transition(card.conversationId, card.id, ['PENDING'], 'EXPIRED', {
      updatedAt: at,
      error: reason,
    });
    if (!moved) return { runId: card.runId, outcome: 'card was decided first' };
    card = moved;
  }
  if (card.status !== 'EXPIRED') return { runId: card.runId, outcome: `card already ${card.status}` };
  await recountPending(deps, card.conversationId);
  await deps.conversations.appendMessage({
    id: `m_expired_${card.id}`,
    conversationId: card.conversationId,
    role: 'assistant',
    text: `This draft expired after ${hours} hours without a decision, so nothing was done: ${card.summary}. Ask me again if it is still needed.`,
    createdAt: at,
    author: { kind: 'assistant', name: 'Switchboard' },
    runId: card.runId,
    actionId: card.id,
  });
  const run = await deps.runs.get(card.conversationId, card.runId);
  if (run && run.status === 'awaiting_approval' && run.awaitingActionId === card.id) {
    await deps.runs.update(card.conversationId, run.id, {
      status: 'completed',
      awaitingActionId: undefined,
      outcome: `EXPIRED: ${reason}`,
      updatedAt: at,
    });
  }
  await deps.audit.append({
    conversationId: card.conversationId,
    type: 'action.expired',
    actor: 'switchboard',
    at,
    data: { actionId: card.id, reason },
  });
  await deps.cardTimers?.timers?.cancel(renotifyTimerName(card.id));
  await deps.queue.send({
    id: `notify_expired_${card.id}`,
    type: 'notify',
    correlationId: `conv:${card.conversationId}`,
    key: `notify:${card.conversationId}`,
    occurredAt: at,
    payload: {
      kind: 'alert',
      conversationId: card.conversationId,
      title: `Expired: ${card.summary}`.slice(0, 120),
      body: `${reason}; nothing was done.`,
    },
  });
  return { runId: card.runId, outcome: `expired ${card.id}` };
}

/** Sets the conversation's waiting-card count to what the cards say (repeat-safe, unlike a blind −1). */
export async function recountPending(
  deps: Pick<TimerDeps, 'actions' | 'conversations'>,
  conversationId: string,
): Promise<void> {
  const waiting = (await deps.actions.listByConversation(conversationId)).filter(
    (a) => a.status === 'PENDING',
  ).length;
  const counted = (await deps.conversations.get(conversationId))?.pendingCount ?? 0;
  if (waiting !== counted) await deps.conversations.adjustPending(conversationId, waiting - counted);
}
