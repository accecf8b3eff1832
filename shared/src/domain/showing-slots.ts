import { DateTime } from 'luxon';

/** A busy period from free/busy: ISO 8601 with offset, in the team time zone. */
export interface BusyPeriod {
  start: string;
  end: string;
}

/**
 * Showing times to offer a lead or tenant (issue 17: "the calendar's free slots for showings"): free
 * stretches of the team calendar inside showing hours, spread over several days so the person can pick one
 * that suits them rather than three on the same morning.
 */
export interface SlotOptions {
  /** The current instant; slots start no sooner than `noticeMinutes` after it. */
  now: Date;
  /** The team time zone: showing hours are wall-clock hours there. */
  zone: string;
  days?: number;
  durationMinutes?: number;
  count?: number;
  /** Showing hours, local wall-clock hours [start, end). */
  dayStart?: number;
  dayEnd?: number;
  /** Luxon weekdays (1 = Monday … 7 = Sunday) with no showings. */
  closedWeekdays?: readonly number[];
  /** Nobody can be at a unit in ten minutes: the first slot is at least this far ahead. */
  noticeMinutes?: number;
}

export interface Slot {
  start: string;
  end: string;
  /** "Tue 25 Nov at 10:00", as a reply says it. */
  label: string;
}

const STEP_MINUTES = 30;

export const SHOWING_DEFAULTS = {
  days: 5,
  durationMinutes: 30,
  count: 3,
  dayStart: 10,
  dayEnd: 18,
  closedWeekdays: [7],
  noticeMinutes: 120,
} as const;

/** Free slots, at most one a day until every day has one, then the next free ones in time order. */
export function openSlots(busy: readonly BusyPeriod[], options: SlotOptions): Slot[] {
  const o = { ...SHOWING_DEFAULTS, ...options };
  const periods = busy.map((b) => [Date.parse(b.start), Date.parse(b.end)] as const);
  const isFree = (s: DateTime, e: DateTime) =>
    periods.every(([bs, be]) => be <= s.toMillis() || bs >= e.toMillis());
  const earliest = DateTime.fromJSDate(o.now).setZone(o.zone).plus({ minutes: o.noticeMinutes });
  const perDay: Slot[][] = [];
  for (let d = 0; d < o.days; d += 1) {
    const day = earliest.startOf('day').plus({ days: d });
    if (o.closedWeekdays.includes(day.weekday)) continue;
    const free: Slot[] = [];
    for (
      let t = day.set({ hour: o.dayStart });
      t < day.set({ hour: o.dayEnd });
      t = t.plus({ minutes: STEP_MINUTES })
    ) {
      const end = t.plus({ minutes: o.durationMinutes });
      if (t < earliest || end > day.set({ hour: o.dayEnd }) || !isFree(t, end)) continue;
      free.push(slotOf(t, end));
    }
    perDay.push(free);
  }
  const firsts = perDay.flatMap((f) => f.slice(0, 1));
  const rest = perDay.flatMap((f) => f.slice(1));
  return [...firsts, ...rest].slice(0, o.count).sort((a, b) => Date.parse(a.start) - Date.parse(b.start));
}

function slotOf(start: DateTime, end: DateTime): Slot {
  return {
    start: start.toISO({ suppressMilliseconds: true }) ?? '',
    end: end.toISO({ suppressMilliseconds: true }) ?? '',
    label: start.toFormat("ccc d LLL 'at' HH:mm"),
  };
}

/** "Tue 25 Nov at 10:00, Wed 26 Nov at 10:00 or Thu 27 Nov at 14:30". */
export function slotsSentence(slots: readonly Pick<Slot, 'label'>[]): string {
  const labels = slots.map((s) => s.label);
  if (labels.length <= 1) return labels.join('');
  return `${labels.slice(0, -1).join(', ')} or ${labels.at(-1)}`;
}
