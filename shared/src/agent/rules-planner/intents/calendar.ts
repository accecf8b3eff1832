import { extractDayRange } from '../../../domain/extract';
import type { Plan, PlannerInput } from '../../types';
import { call, find, respond } from '../helpers';
import type { ChatIntent, Slots } from '../intent';

type CalendarItem = { summary?: string; start?: string };

/** "What's on the calendar tomorrow?": read the day range and list it. */
export const calendar: ChatIntent = {
  name: 'calendar',
  required: ['range'],
  detect(text, input) {
    if (
      !/\b(what'?s|what is|show|list|anything)\b.*\b(calendar|schedule|showings?|events?|appointments?)\b/i.test(
        text,
      )
    )
      return undefined;
    return { range: extractDayRange(text, input.now, input.timezone) };
  },
  plan(input: PlannerInput, slots: Slots): Plan {
    if (!input.hasTool('list_calendar_events')) return respond('The calendar is not configured here.');
    const range = slots.range as { start: string; end: string; label: string };
    const list = find(input.observations, 'list_calendar_events');
    if (!list)
      return call(
        'list_calendar_events',
        { timeMin: range.start, timeMax: range.end },
        `Read the calendar for ${range.label}`,
      );
    if (list.status !== 'ok') return respond(`I could not read the calendar: ${list.error}`);
    const events = (list.result as { events?: CalendarItem[] } | CalendarItem[]) ?? [];
    const items = Array.isArray(events) ? events : (events.events ?? []);
    if (!items.length) return respond(`Nothing on the calendar for ${range.label}.`);
    const lines = items.map(
      (e) =>
        `• ${e.start ? new Date(e.start).toLocaleTimeString('en-US', { timeZone: input.timezone, hour: 'numeric', minute: '2-digit' }) : ''} ${e.summary ?? '(no title)'}`,
    );
    return respond(`On the calendar for ${range.label}:\n${lines.join('\n')}`);
  },
};
