import type { PendingAction } from '../contracts/conversations';
import type { EventEnvelope, TimerFired } from '../contracts/events';
import { scheduleName } from '../domain/schedule-name';
import type { Timers } from '../ports/timers';

/** What a card's timers need: the scheduler and the team's settings (CARD_EXPIRY_MINUTES, URGENT_RENOTIFY_MINUTES). */
export interface CardTimerSettings {
  timers?: Timers;
  expiryMinutes: number;
  renotifyMinutes: number;
  /** How long an approval waits for its assignee before it goes to everyone (issue 19; default 5). */
  teamDelayMinutes?: number;
}

export const expiryTimerName = (actionId: string) => scheduleName('expire', actionId);
export const renotifyTimerName = (actionId: string) => scheduleName('renotify', actionId);
export const teamNotifyTimerName = (actionId: string) => scheduleName('notify-team', actionId);

function timerEvent(
  kind: TimerFired['kind'],
  action: PendingAction,
  dueAt: Date,
  userId?: string,
): EventEnvelope {
  return {
    // One id per card and purpose: a timer delivered twice is a duplicate in the event ledger.
    id: `timer_${kind.replace('.', '_')}_${action.id}`,
    type: 'timer.fired',
    correlationId: `conv:${action.conversationId}`,
    key: `conv:${action.conversationId}`,
    occurredAt: dueAt.toISOString(),
    payload: {
      kind,
      conversationId: action.conversationId,
      actionId: action.id,
      runId: action.runId,
      dueAt: dueAt.toISOString(),
      ...(userId ? { userId } : {}),
    },
  };
}

/**
 * A card that waits for a person gets its timers when it is created: expiry (default 24 h), and for an
 * urgent card one re-notification (default 10 min). Idempotent (schedules are named after the card), so a
 * replayed step sets nothing twice. Without a scheduler (unit tests) nothing is set.
 */
export async function scheduleCardTimers(
  deps: { cardTimers?: CardTimerSettings },
  action: PendingAction,
  opts: { urgent: boolean },
): Promise<void> {
  const s = deps.cardTimers;
  if (!s?.timers || action.status !== 'PENDING') return;
  const created = Date.parse(action.createdAt);
  const expireAt = new Date(created + s.expiryMinutes * 60_000);
  await s.timers.scheduleAt(
    expiryTimerName(action.id),
    expireAt,
    timerEvent('card.expire', action, expireAt),
  );
  if (opts.urgent && s.renotifyMinutes < s.expiryMinutes) {
    const at = new Date(created + s.renotifyMinutes * 60_000);
    await s.timers.scheduleAt(renotifyTimerName(action.id), at, timerEvent('card.renotify', action, at));
  }
}

/**
 * A decided card's timers are deleted at the decision, so the scheduler holds nothing for it that could fire
 * later (a fired timer for a decided card would do nothing, but would still cost an invocation and clutter the
 * schedule group). Best-effort: a failed delete never undoes the decision; the timer then fires into a no-op.
 */
export async function cancelCardTimers(
  deps: { cardTimers?: Pick<CardTimerSettings, 'timers'> },
  actionId: string,
): Promise<void> {
  const timers = deps.cardTimers?.timers;
  if (!timers) return;
  await Promise.all(
    [expiryTimerName(actionId), renotifyTimerName(actionId), teamNotifyTimerName(actionId)].map((name) =>
      timers.cancel(name).catch(() => undefined),
    ),
  );
}

/**
 * An approval pushed to its assignee first (issue 19): if it still waits after `teamDelayMinutes`, the timer
 * sends it to everyone (use-cases/expire-card.ts). Only with a scheduler: without one the push went to the
 * whole team at once (never an in-process timer). Returns whether the timer was set.
 */
export async function scheduleTeamNotify(
  deps: { cardTimers?: CardTimerSettings },
  action: PendingAction,
  assignee: string,
): Promise<boolean> {
  const s = deps.cardTimers;
  if (!s?.timers) return false;
  const at = new Date(Date.parse(action.createdAt) + (s.teamDelayMinutes ?? 5) * 60_000);
  await s.timers.scheduleAt(
    teamNotifyTimerName(action.id),
    at,
    timerEvent('card.notify-team', action, at, assignee),
  );
  return true;
}
