import type { FollowUp } from '../contracts/followups';
import { whenText } from '../domain/followups';
import type { ConversationStore } from '../ports/conversation-store';
import type { TaskBoard } from '../ports/task-board';

export interface ConditionDeps {
  conversations: ConversationStore;
  /** ClickUp, when connected: whether a task is still open. */
  board?: Pick<TaskBoard, 'searchTasks'>;
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
      ).find((t) => t.id === c.taskId);
      if (!found) return { holds: false, why: `the task ${c.name ?? c.taskId} was not found` };
      return found.closed
        ? { holds: false, why: `the task “${found.name}” is ${found.status}` }
        : { holds: true };
    }
    case 'event_unconfirmed':
      return { holds: false, why: 'event confirmation cannot be checked on this deployment yet' };
  }
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
