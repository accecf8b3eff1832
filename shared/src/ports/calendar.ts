import type { BusyPeriod } from '../domain/showing-slots';
/**
 * The team calendar (showings, vendor visits). Times cross this port as ISO 8601 strings with an explicit
 * offset, expressed in the team's time zone, so callers never guess what "10:00" meant.
 */
export interface CalendarEvent {
  id: string;
  title: string;
  /** ISO 8601 with offset for timed events; `YYYY-MM-DD` for all-day events. */
  start: string;
  end: string;
  allDay: boolean;
  location?: string;
  description?: string;
  attendees: { email: string; name?: string; response?: string }[];
  link?: string;
  /** The event was cancelled (Google keeps cancelled events readable by id with status "cancelled"). */
  cancelled?: boolean;
}

export interface ListEventsInput {
  /** Either a local day (`YYYY-MM-DD` in the team time zone) or an explicit window. */
  day?: string;
  from?: string;
  to?: string;
  query?: string;
  limit?: number;
}

export interface NewCalendarEvent {
  title: string;
  /** Local wall time (`2025-03-09T10:00`) in `timezone`, or ISO with an offset. */
  start: string;
  /** Same forms as `start`; defaults to start + `durationMinutes` (60). */
  end?: string;
  durationMinutes?: number;
  /** IANA zone; defaults to the team time zone. */
  timezone?: string;
  location?: string;
  description?: string;
  attendees?: string[];
  /** Idempotency reference (the pending action id): creating twice with it yields one event. */
  clientRef?: string;
}

// The domain computes open slots from these, so the type lives there (domain imports no ports).
export type { BusyPeriod } from '../domain/showing-slots';

export interface Calendar {
  listEvents(input: ListEventsInput): Promise<CalendarEvent[]>;
  /**
   * When the team calendar is busy in a window (`from`/`to`: ISO with offset). Free/busy rather than a list
   * of events because offering showing times needs only that, and it reads no titles or attendees.
   * Optional so calendars without it (test fakes) still satisfy the port; callers fall back to saying a
   * person will confirm a time.
   */
  freeBusy?(input: { from: string; to: string }): Promise<BusyPeriod[]>;
  createEvent(input: NewCalendarEvent): Promise<CalendarEvent>;
  findCreated(clientRef: string): Promise<CalendarEvent | undefined>;
  /** One event by id; undefined when it does not exist (follow-ups' "event not confirmed" condition). */
  getEvent?(eventId: string): Promise<CalendarEvent | undefined>;
}
