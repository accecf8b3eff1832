import { DateTime } from 'luxon';
import { extractTime } from '../../../domain/extract';
import type { Plan, PlannerInput } from '../../types';
import { call, find, outcome, respond } from '../helpers';
import type { ChatIntent, Slots } from '../intent';

/** "… by Friday", "… due tomorrow", "… due 2026-12-01" at the end of the request. */
const DUE =
  /\s+(?:by|due(?:\s+(?:on|by))?)\s+((?:next\s+)?[a-z]+day|today|tomorrow|\d{4}-\d{2}-\d{2}|[a-z]{3,9}\.?\s+\d{1,2})\s*$/i;
/** "… for Jo", "… assigned to Jo Patel" at the end: a capitalised name (never "for 12 Oak St"). */
const FOR = /\s+(?:for|assign(?:ed)?\s+to)\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)\s*$/;

/**
 * The task's name, and who it is for and when it is due when the request ends with them ("… for Jo by
 * Friday", either order). The due day is the team's (or the person's) calendar day.
 */
export function taskSlots(text: string, now: Date, timezone: string): Slots {
  let name = text.trim();
  let due: string | undefined;
  let assignee: string | undefined;
  for (let i = 0; i < 2; i++) {
    const d = due ? null : DUE.exec(name);
    if (d?.[1]) {
      const t = extractTime(d[1], now, timezone);
      if (t) {
        due = DateTime.fromISO(t.start, { zone: timezone }).toISODate() ?? undefined;
        name = name.slice(0, d.index);
      }
    }
    const f = assignee ? null : FOR.exec(name);
    if (f?.[1]) {
      assignee = f[1];
      name = name.slice(0, f.index);
    }
  }
  return { name: name.trim(), ...(assignee ? { assignee } : {}), ...(due ? { dueDate: due } : {}) };
}

/** "Create a task to …": one task on the board, for a team member and due on a day when the request says so. */
export const createTask: ChatIntent = {
  name: 'create_task',
  required: ['name'],
  detect(text, input) {
    const m = text.match(
      /^(?:please\s+)?(?:create|add|make|open)\s+(?:a\s+)?(?:new\s+)?task\s*(?:to|for|:)?\s*(.+)$/i,
    );
    return m?.[1] ? taskSlots(m[1], input.now, input.timezone) : undefined;
  },
  plan(input: PlannerInput, slots: Slots): Plan {
    if (!input.hasTool('create_task')) return respond('The task board is not configured here.');
    const done = find(input.observations, 'create_task');
    const args = {
      name: slots.name,
      ...(slots.assignee ? { assignee: slots.assignee } : {}),
      ...(slots.dueDate ? { dueDate: slots.dueDate } : {}),
    };
    if (!done) return call('create_task', args, 'Create the task as asked');
    return respond(outcome(done, `Task created: “${slots.name}”.`, 'create the task'));
  },
};
