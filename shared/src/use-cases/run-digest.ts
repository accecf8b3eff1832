import { DateTime } from 'luxon';
import type { EventEnvelope, EventOf } from '../contracts/events';
import type { PersonalPreferences } from '../contracts/preferences';
import { composeDigest, digestConversationId, digestTimerName, nextDigestAt } from '../domain/digest';
import { ConflictError } from '../errors';
import type { ConversationStore } from '../ports/conversation-store';
import type { EventQueue } from '../ports/event-queue';
import type { FactStore } from '../ports/fact-store';
import type { FollowUpStore } from '../ports/followup-store';
import type { Log } from '../ports/logger';
import type { Timers } from '../ports/timers';
import { readPreferences } from './preferences';
import type { AgentOutcome } from './run-event-group';

export interface DigestScheduleDeps {
  timers?: Timers;
  clock: () => Date;
  /** The team's zone: a person without one of their own gets the digest at the team's hour. */
  teamTimezone: string;
}

const zoneOf = (p: PersonalPreferences, teamTimezone: string) => p.timezone ?? teamTimezone;

/** The digest's timer event: the conversation/action/run ids are the person's digest thread (placeholders). */
export function digestEvent(userId: string, at: Date): EventEnvelope {
  const conversationId = digestConversationId(userId);
  const stamp = DateTime.fromJSDate(at).toUTC().toFormat('yyyyMMddHH');
  return {
    id: `timer_${conversationId}_${stamp}`,
    type: 'timer.fired',
    correlationId: `digest:${conversationId}`,
    key: `digest:${conversationId}`,
    occurredAt: at.toISOString(),
    payload: {
      kind: 'digest',
      conversationId,
      actionId: `digest_${stamp}`,
      runId: `digest_${stamp}`,
      dueAt: at.toISOString(),
      userId,
    },
  };
}

/**
 * Keeps one digest timer per person on the Timers port: a saved hour (or zone) cancels the timer the old
 * preferences had and sets the next one; no hour = no digest. Returns when the next one is due.
 */
export async function rescheduleDigest(
  deps: DigestScheduleDeps,
  input: { userId: string; before: PersonalPreferences; after: PersonalPreferences },
): Promise<Date | undefined> {
  if (!deps.timers) return undefined;
  const now = deps.clock();
  const { before, after } = input;
  if (before.digestHour !== undefined) {
    const old = nextDigestAt(before.digestHour, zoneOf(before, deps.teamTimezone), now);
    const next =
      after.digestHour !== undefined
        ? nextDigestAt(after.digestHour, zoneOf(after, deps.teamTimezone), now)
        : undefined;
    if (old.getTime() !== next?.getTime()) await deps.timers.cancel(digestTimerName(input.userId, old));
  }
  if (after.digestHour === undefined) return undefined;
  const at = nextDigestAt(after.digestHour, zoneOf(after, deps.teamTimezone), now);
  await deps.timers.scheduleAt(digestTimerName(input.userId, at), at, digestEvent(input.userId, at));
  return at;
}

export interface RunDigestDeps extends DigestScheduleDeps {
  facts: FactStore;
  conversations: ConversationStore;
  followups?: FollowUpStore;
  queue: EventQueue;
  log: Log;
}

/**
 * A person's digest hour has come (`timer.fired`, kind `digest`): the digest is written to their digest
 * thread and pushed to their devices only, and tomorrow's timer is set. A timer left from an hour the person
 * has since changed (or switched off) does nothing: the save already set the right one.
 */
export async function runDigest(deps: RunDigestDeps, event: EventOf<'timer.fired'>): Promise<AgentOutcome> {
  const userId = event.payload.userId;
  if (!userId) return { outcome: 'digest timer without a user' };
  const { personal } = await readPreferences(deps, userId);
  const zone = zoneOf(personal, deps.teamTimezone);
  const due = DateTime.fromISO(event.payload.dueAt).setZone(zone);
  if (personal.digestHour === undefined || due.hour !== personal.digestHour)
    return { outcome: 'digest timer from an hour no longer set' };

  const now = deps.clock();
  const digest = composeDigest({
    now,
    timezone: zone,
    conversations: await deps.conversations.list({ limit: 200 }),
    followups: (await deps.followups?.listDue(new Date(now.getTime() + 86_400_000).toISOString())) ?? [],
  });
  const conversationId = digestConversationId(userId);
  await keepDigest(deps, { conversationId, userId, text: digest.text, preview: digest.body, at: now });
  await deps.queue.send({
    id: `notify_${event.id}`,
    type: 'notify',
    correlationId: event.correlationId,
    key: `notify:${conversationId}`,
    occurredAt: now.toISOString(),
    payload: { kind: 'alert', conversationId, title: digest.title, body: digest.body, userId },
  });
  const next = nextDigestAt(personal.digestHour, zone, new Date(Math.max(now.getTime(), due.toMillis())));
  await deps.timers?.scheduleAt(digestTimerName(userId, next), next, digestEvent(userId, next));
  deps.log.info('digest.sent', { userId, ...digest.counts, next: next.toISOString() });
  return { outcome: `digest sent (${digest.body})` };
}

/** The digest thread is the person's own (assignee, and private to them), created once; each day's digest is one message in it. */
async function keepDigest(
  deps: RunDigestDeps,
  d: { conversationId: string; userId: string; text: string; preview: string; at: Date },
) {
  const at = d.at.toISOString();
  if (!(await deps.conversations.get(d.conversationId))) {
    await deps.conversations
      .create({
        id: d.conversationId,
        title: 'Daily digest',
        source: 'chat',
        preview: d.preview,
        createdAt: at,
        updatedAt: at,
        lastMessageAt: at,
        createdBy: d.userId,
        assignee: d.userId,
        privateTo: d.userId,
        pendingCount: 0,
        readBy: {},
      })
      .catch((e) => {
        if (!(e instanceof ConflictError)) throw e;
      });
  }
  await deps.conversations.appendMessage({
    id: `m_digest_${DateTime.fromJSDate(d.at).toUTC().toFormat('yyyyMMdd')}`,
    conversationId: d.conversationId,
    role: 'assistant',
    text: d.text,
    createdAt: at,
    channel: 'web',
    author: { kind: 'assistant', name: 'Switchboard' },
  });
}
