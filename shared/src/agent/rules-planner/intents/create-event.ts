import { extractTime } from '../../../domain/extract';
import type { Plan, PlannerInput } from '../../types';
import { call, find, outcome, respond } from '../helpers';
import type { ChatIntent, Slots } from '../intent';

/**
 * "Schedule a showing at 12 Oak St tomorrow at 3": title and start parsed; it lasts the asking person's
 * default event length (their preferences), else 30 minutes, unless an end is given.
 */
export const createEvent: ChatIntent = {
  name: 'create_event',
  required: ['title', 'start'],
  detect(text, input) {
    const m = text.match(
      /^(?:please\s+)?(?:schedule|book|add|create|put)\s+(?:an?\s+)?(.*?(?:showing|meeting|appointment|event|visit|inspection).*)$/i,
    );
    if (!m) return undefined;
    const when = extractTime(text, input.now, input.timezone);
    const title = (m[1] ?? '')
      .replace(when?.text ?? '', '')
      .replace(/\s+(on|at|for)\s*$/i, '')
      .replace(/\s+on the calendar/i, '')
      .trim();
    return { title, ...(when?.hasTime ? { start: when.start, ...(when.end ? { end: when.end } : {}) } : {}) };
  },
  plan(input: PlannerInput, slots: Slots): Plan {
    if (!input.hasTool('create_calendar_event')) return respond('The calendar is not configured here.');
    const done = find(input.observations, 'create_calendar_event');
    if (done) return respond(outcome(done, `“${slots.title}” is on the calendar.`, 'create the event'));
    const start = slots.start as string;
    const minutes = input.preferences?.eventMinutes ?? 30;
    const end =
      (slots.end as string | undefined) ?? new Date(Date.parse(start) + minutes * 60_000).toISOString();
    return call(
      'create_calendar_event',
      { summary: slots.title, start, end, timeZone: input.timezone },
      'Put it on the calendar',
    );
  },
};
