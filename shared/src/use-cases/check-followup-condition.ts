import type { FollowUp } from '../contracts/followups';
import { whenText } from '../domain/followups';
import type { Calendar, CalendarEvent } from '../ports/calendar';
import type { ConversationStore } from '../ports/conversation-store';
import type { TaskBoard } from '../ports/task-board';

export interface ConditionDeps {
  conversations: ConversationStore;
  /** ClickUp, when connected: whether a task is still open. */
  board?: Pick<TaskBoard, 'searchTasks'>;
  /** Google Calendar, when connected: whether an event's guests have accepted. */
  calendar?: Pick<Calendar, 'getEvent' | 'listEvents'>;
  timezone: string;
}

export type ConditionCheck = { holds: true } | { holds: false; why: string };

/**
 * Whether a follow-up's condition still holds at its time. A condition that cannot be checked (ClickUp not
 * connected, an unknown kind of evidence) does NOT hold: an unchecked send is the one thing not to do.
 */
export async function checkFollowUpCondition(deps: ConditionDeps, f: FollowUp): Promise<ConditionCheck> {
  const c = f.condition;
  if (!c) return { holds: true };
  switch (c.kind) {
    case 'no_reply': {
      const reply = (await messagesFromPerson(deps, f, c.from)).find((m) => m.createdAt > c.since);
      return reply
        ? {
            holds: false,
            why: `${c.name ?? c.from} replied at ${whenText(reply.createdAt, deps.timezone)}: “${reply.text.slice(0, 120)}”`,
          }
        : { holds: true };
    }
    case 'no_mention': {
      const word = c.word.toLowerCase();
      const all = await deps.conversations.listMessages(f.conversationId);
      const hit = all.find(
        (m) =>
          m.createdAt > c.since &&
          (m.role === 'inbound' || m.role === 'user') &&
          m.text.toLowerCase().includes(word),
      );
      return hit
        ? {
            holds: false,
            why: `a message mentioned “${c.word}” at ${whenText(hit.createdAt, deps.timezone)}`,
          }
        : { holds: true };
    }
    case 'task_open': {
      if (!deps.board)
        return {
          holds: false,
          why: 'the task board (ClickUp) is not connected, so the task could not be checked',
        };
      const found = (
        await deps.board.searchTasks({ query: c.name ?? c.taskId, includeClosed: true, limit: 25 })
      ).find((t) => t.id === c.taskId || sameThing(c.name ?? c.taskId, t.name));
      if (!found) return { holds: false, why: `the task ${c.name ?? c.taskId} was not found` };
      return found.closed
        ? { holds: false, why: `the task “${found.name}” is ${found.status}` }
        : { holds: true };
    }
    case 'event_unconfirmed':
      return eventUnconfirmed(deps, c.eventId, c.name, f.at);
  }
}

/**
 * "If the showing isn't confirmed": holds while some guest has not accepted the event. An event with no
 * guests has no one to confirm it, so it counts as unconfirmed; a cancelled or deleted event, or a
 * calendar that cannot be read, does not hold (nothing to chase, or nothing checked).
 */
async function eventUnconfirmed(
  deps: ConditionDeps,
  eventId: string,
  name: string | undefined,
  at: string,
): Promise<ConditionCheck> {
  const label = name ?? eventId;
  if (!deps.calendar?.getEvent)
    return { holds: false, why: 'the calendar is not connected, so the event could not be checked' };
  const ev = (await deps.calendar.getEvent(eventId)) ?? (await eventByName(deps, label, at));
  if (!ev) return { holds: false, why: `no calendar event matching “${label}” was found` };
  if (ev.cancelled) return { holds: false, why: `the event “${ev.title}” was cancelled` };
  const accepted = ev.attendees.filter((a) => a.response === 'accepted');
  if (ev.attendees.length && accepted.length === ev.attendees.length)
    return {
      holds: false,
      why: `the event “${ev.title}” is confirmed (${accepted.map((a) => a.name ?? a.email).join(', ')} accepted)`,
    };
  return { holds: true };
}

/**
 * Rules mode binds what the person said ("the showing at 12 Oak St"), not a calendar id: the event is the
 * soonest one from a day before the check to 30 days after whose title, place or notes carry every word of
 * it (words of 3+ letters and numbers). Claude mode may bind the real id, which is tried first.
 */
async function eventByName(
  deps: ConditionDeps,
  name: string,
  at: string,
): Promise<CalendarEvent | undefined> {
  const t = Date.parse(at);
  const events = await deps.calendar?.listEvents({
    from: new Date(t - 86_400_000).toISOString(),
    to: new Date(t + 30 * 86_400_000).toISOString(),
    limit: 100,
  });
  return events?.find((e) => sameThing(name, [e.title, e.location, e.description].join(' ')));
}

/** Every word of 3+ letters, and every number, of what was said appears in the candidate (case-insensitive). */
function sameThing(said: string, candidate: string): boolean {
  const words = said.toLowerCase().match(/[a-z]{3,}|\d+/g) ?? [];
  const text = candidate.toLowerCase();
  return words.length > 0 && words.every((w) => text.includes(w));
}

/** What a person said: inbound messages of their own text conversation, and of this one if it is theirs. */
async function messagesFromPerson(deps: ConditionDeps, f: FollowUp, from: string) {
  const ids = new Set<string>([f.conversationId]);
  const own = await deps.conversations.findByTriggerKey(`sms:${from}`);
  if (own) ids.add(own.id);
  const out = [];
  for (const id of ids) {
    const conv = id === own?.id ? own : await deps.conversations.get(id);
    const theirs =
      conv?.contact?.phone === from || conv?.contact?.email?.toLowerCase() === from.toLowerCase();
    if (!theirs) continue;
    out.push(...(await deps.conversations.listMessages(id)).filter((m) => m.role === 'inbound'));
  }
  return out;
}
