import * as chrono from 'chrono-node';
import { findPhoneNumbersInText } from 'libphonenumber-js';
import { DateTime } from 'luxon';

/**
 * Structured extraction for the deterministic planner (SPEC §3.2 step 3): critical values — who, when,
 * which number — come from parsers, not from a model's imagination.
 */
export function extractPhones(text: string): string[] {
  return findPhoneNumbersInText(text, 'US').map((p) => p.number.number);
}

export { extractEmails } from './extract-emails';

export function extractAmounts(text: string): number[] {
  return [...text.matchAll(/\$\s?(\d{1,3}(?:,\d{3})*(?:\.\d{2})?|\d+(?:\.\d{2})?)/g)].map((m) =>
    Number((m[1] ?? '').replace(/,/g, '')),
  );
}

export interface ExtractedTime {
  start: string;
  end?: string;
  /** True when the text named a time of day, not only a date. */
  hasTime: boolean;
  text: string;
}

/**
 * Dates and times in the team's timezone ("tomorrow at 3pm" said in New York is 15:00 New York time,
 * whatever the server's clock zone), DST-correct via luxon.
 */
export function extractTime(text: string, now: Date, timezone: string): ExtractedTime | undefined {
  const local = DateTime.fromJSDate(now).setZone(timezone);
  const ref = { instant: now, timezone: local.offset };
  const results = chrono.parse(text, ref, { forwardDate: true });
  const r = results[0];
  if (!r) return undefined;
  const toZoned = (c: chrono.ParsedComponents) => {
    const dt = DateTime.fromObject(
      {
        year: c.get('year') ?? local.year,
        month: c.get('month') ?? local.month,
        day: c.get('day') ?? local.day,
        hour: c.isCertain('hour') ? (c.get('hour') ?? 9) : 9,
        minute: c.isCertain('minute') ? (c.get('minute') ?? 0) : 0,
      },
      { zone: timezone },
    );
    return dt.toISO({ suppressMilliseconds: true }) ?? '';
  };
  return {
    start: toZoned(r.start),
    ...(r.end ? { end: toZoned(r.end) } : {}),
    hasTime: r.start.isCertain('hour'),
    text: r.text,
  };
}

/** Start and end of the team-local day a phrase like "tomorrow" or "friday" names (default today). */
export function extractDayRange(
  text: string,
  now: Date,
  timezone: string,
): { start: string; end: string; label: string } {
  const t = extractTime(text, now, timezone);
  const day = (
    t ? DateTime.fromISO(t.start, { zone: timezone }) : DateTime.fromJSDate(now).setZone(timezone)
  ).startOf('day');
  return {
    start: day.toISO() ?? '',
    end: day.endOf('day').toISO() ?? '',
    label: day.toFormat('cccc d LLLL'),
  };
}
