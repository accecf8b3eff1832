import { calendar } from '@googleapis/calendar';
import type { OAuth2Client } from 'google-auth-library';
import { DateTime } from 'luxon';
import { z } from 'zod';
import { parseEventTime } from '../../domain/event-time';
import { ConflictError, describeZodIssues, NotFoundError, ValidationError } from '../../errors';
import type {
  BusyPeriod,
  Calendar,
  CalendarEvent,
  ListEventsInput,
  NewCalendarEvent,
} from '../../ports/calendar';
import { callGoogle, type GoogleRetryOptions, googleRetryConfig, parseGoogle } from './google-errors';

export interface GoogleCalendarOptions {
  auth: OAuth2Client;
  /** The team time zone (`TEAM_TIMEZONE`): lists are expressed in it and wall times are read in it. */
  timezone: string;
  /** `primary` = the delegated user's calendar. */
  calendarId?: string;
  rootUrl?: string;
  retry?: GoogleRetryOptions;
}

const timeSchema = z.object({
  dateTime: z.string().optional(),
  date: z.string().optional(),
  timeZone: z.string().optional(),
});

const eventSchema = z.object({
  id: z.string(),
  status: z.string().optional(),
  summary: z.string().optional(),
  description: z.string().optional(),
  location: z.string().optional(),
  htmlLink: z.string().optional(),
  start: timeSchema,
  end: timeSchema,
  attendees: z
    .array(
      z.object({
        email: z.string(),
        displayName: z.string().optional(),
        responseStatus: z.string().optional(),
      }),
    )
    .optional(),
});

/** `Schema$FreeBusyResponse` of the official client: only what we read (test/contracts/vendor/google/calendar-freebusy.md). */
const freeBusySchema = z.object({
  calendars: z.record(
    z.string(),
    z.object({
      busy: z.array(z.object({ start: z.string(), end: z.string() })).optional(),
      errors: z.array(z.object({ domain: z.string().optional(), reason: z.string().optional() })).optional(),
    }),
  ),
});

const listSchema = z.object({ items: z.array(eventSchema).optional(), nextPageToken: z.string().optional() });

const isoDate = /^\d{4}-\d{2}-\d{2}$/;

const listInput = z
  .object({
    day: z.string().regex(isoDate, 'day must be YYYY-MM-DD').optional(),
    from: z.string().optional(),
    to: z.string().optional(),
    query: z.string().max(200).optional(),
    limit: z.number().int().min(1).max(250).optional(),
  })
  .refine((v) => !(v.day && (v.from || v.to)), 'give either day or from/to, not both');

const createInput = z.object({
  title: z.string().trim().min(1).max(500),
  start: z.string().min(1),
  end: z.string().optional(),
  durationMinutes: z
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .optional(),
  timezone: z.string().optional(),
  location: z.string().max(500).optional(),
  description: z.string().max(8000).optional(),
  attendees: z.array(z.email()).max(50).optional(),
  clientRef: z.string().min(1).max(200).optional(),
});

function validZone(zone: string): string {
  if (!DateTime.local().setZone(zone).isValid) throw new ValidationError(`Unknown time zone: ${zone}`);
  return zone;
}

const BASE32HEX = '0123456789abcdefghijklmnopqrstuv';

/**
 * Calendar lets the client choose an event id (base32hex, 5–1024 chars), and refuses a second insert with
 * the same id (409). Deriving it from the action id makes creation idempotent across retries.
 */
export function eventIdFor(clientRef: string): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of Buffer.from(`sb:${clientRef}`, 'utf8')) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32HEX[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32HEX[(value << (5 - bits)) & 31];
  return out;
}

export function createGoogleCalendar(opts: GoogleCalendarOptions): Calendar {
  const api = calendar({
    version: 'v3',
    auth: opts.auth,
    ...(opts.rootUrl ? { rootUrl: opts.rootUrl } : {}),
    retryConfig: googleRetryConfig(opts.retry),
  });
  const zone = validZone(opts.timezone);
  const calendarId = opts.calendarId ?? 'primary';

  const toPort = (e: z.infer<typeof eventSchema>): CalendarEvent => {
    const time = (t: z.infer<typeof timeSchema>) =>
      t.date ??
      (t.dateTime
        ? DateTime.fromISO(t.dateTime, { setZone: true }).setZone(zone).toISO({ suppressMilliseconds: true })
        : null) ??
      '';
    return {
      id: e.id,
      title: e.summary ?? '(no title)',
      start: time(e.start),
      end: time(e.end),
      allDay: Boolean(e.start.date),
      ...(e.location ? { location: e.location } : {}),
      ...(e.description ? { description: e.description } : {}),
      attendees: (e.attendees ?? []).map((a) => ({
        email: a.email,
        ...(a.displayName ? { name: a.displayName } : {}),
        ...(a.responseStatus ? { response: a.responseStatus } : {}),
      })),
      ...(e.htmlLink ? { link: e.htmlLink } : {}),
      ...(e.status === 'cancelled' ? { cancelled: true } : {}),
    };
  };

  const getById = async (eventId: string) => {
    const res = await callGoogle('calendar event', () =>
      api.events.get({ calendarId, eventId, timeZone: zone }),
    );
    return toPort(parseGoogle(eventSchema, res.data, 'events.get'));
  };

  const findCreated = async (clientRef: string) => {
    try {
      return await getById(eventIdFor(clientRef));
    } catch (e) {
      if (e instanceof NotFoundError) return undefined;
      throw e;
    }
  };

  return {
    async listEvents(raw: ListEventsInput) {
      const parsed = listInput.safeParse(raw);
      if (!parsed.success) throw new ValidationError(describeZodIssues(parsed.error.issues));
      const input = parsed.data;
      let from: DateTime;
      let to: DateTime;
      if (input.day) {
        // A local day is not always 24 hours (23 or 25 on DST changes); luxon's day arithmetic knows that.
        from = DateTime.fromISO(input.day, { zone }).startOf('day');
        to = from.plus({ days: 1 });
      } else {
        from = input.from ? parseEventTime(input.from, zone) : DateTime.now().setZone(zone);
        to = input.to ? parseEventTime(input.to, zone) : from.plus({ days: 7 });
      }
      if (to <= from) throw new ValidationError('The end of the window must be after its start');
      const res = await callGoogle('calendar events', () =>
        api.events.list({
          calendarId,
          timeMin: from.toISO() ?? undefined,
          timeMax: to.toISO() ?? undefined,
          singleEvents: true,
          orderBy: 'startTime',
          timeZone: zone,
          maxResults: input.limit ?? 50,
          ...(input.query ? { q: input.query } : {}),
        }),
      );
      const list = parseGoogle(listSchema, res.data, 'events.list');
      return (list.items ?? []).filter((e) => e.status !== 'cancelled').map(toPort);
    },

    async createEvent(raw: NewCalendarEvent) {
      const parsed = createInput.safeParse(raw);
      if (!parsed.success) throw new ValidationError(describeZodIssues(parsed.error.issues));
      const input = parsed.data;
      const tz = validZone(input.timezone ?? zone);
      const start = parseEventTime(input.start, tz);
      // A duration is elapsed time: two hours from 00:30 on a fall-back night ends at 01:30 EST.
      const end = input.end
        ? parseEventTime(input.end, tz)
        : start.plus({ minutes: input.durationMinutes ?? 60 });
      if (end <= start) throw new ValidationError('The event must end after it starts');
      const id = input.clientRef ? eventIdFor(input.clientRef) : undefined;
      const at = (dt: DateTime) => ({
        dateTime: dt.toISO({ suppressMilliseconds: true }) ?? '',
        timeZone: tz,
      });
      try {
        const res = await callGoogle('calendar event', () =>
          api.events.insert({
            calendarId,
            sendUpdates: input.attendees?.length ? 'all' : 'none',
            requestBody: {
              ...(id ? { id } : {}),
              summary: input.title,
              ...(input.location ? { location: input.location } : {}),
              ...(input.description ? { description: input.description } : {}),
              start: at(start),
              end: at(end),
              ...(input.attendees?.length ? { attendees: input.attendees.map((email) => ({ email })) } : {}),
            },
          }),
        );
        return toPort(parseGoogle(eventSchema, res.data, 'events.insert'));
      } catch (e) {
        // Same id already there: an earlier attempt of this very action created it.
        if (e instanceof ConflictError && input.clientRef) {
          const existing = await findCreated(input.clientRef);
          if (existing) return existing;
        }
        throw e;
      }
    },

    findCreated,

    async freeBusy(input) {
      const from = parseEventTime(input.from, zone);
      const to = parseEventTime(input.to, zone);
      if (to <= from) throw new ValidationError('The end of the window must be after its start');
      const res = await callGoogle('calendar free/busy', () =>
        api.freebusy.query({
          requestBody: {
            timeMin: from.toISO() ?? undefined,
            timeMax: to.toISO() ?? undefined,
            timeZone: zone,
            items: [{ id: calendarId }],
          },
        }),
      );
      return busyOf(parseGoogle(freeBusySchema, res.data, 'freebusy.query'), calendarId, zone);
    },

    async getEvent(eventId: string) {
      try {
        return await getById(eventId);
      } catch (e) {
        if (e instanceof NotFoundError) return undefined;
        throw e;
      }
    },
  };
}

/**
 * The one calendar's busy periods. Google answers a calendar it cannot read with an `errors` entry and an
 * empty `busy` list, not a failed request; reading that as "free all week" would offer times the team
 * cannot keep, so it is an error here.
 */
function busyOf(res: z.infer<typeof freeBusySchema>, calendarId: string, zone: string): BusyPeriod[] {
  const cal = res.calendars[calendarId];
  if (!cal || cal.errors?.length)
    throw new NotFoundError(
      `calendar ${calendarId}: ${cal?.errors?.map((e) => e.reason).join(', ') || 'not in the free/busy answer'}`,
    );
  const inZone = (t: string) =>
    DateTime.fromISO(t, { setZone: true }).setZone(zone).toISO({ suppressMilliseconds: true }) ?? t;
  return (cal.busy ?? []).map((b) => ({ start: inZone(b.start), end: inZone(b.end) }));
}

export { parseEventTime };
