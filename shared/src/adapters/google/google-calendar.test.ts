import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GoogleEmulator, startGoogleEmulator } from '../../../../scripts/emulators/google';
import { buildGoogleSeed, type SeedEvent } from '../../../../scripts/emulators/seed/google-data';
import { NotFoundError, ValidationError } from '../../errors';
import type { Calendar } from '../../ports/calendar';
import { createGoogleAuth } from './auth';
import { createGoogleCalendar, eventIdFor } from './google-calendar';

const TZ = 'America/New_York';
let emu: GoogleEmulator;
let cal: Calendar;

/** Events around the 2025 US spring-forward night (Sunday 9 March, 02:00 → 03:00 in New York). */
const at = (id: string, utc: string, minutes = 30): SeedEvent => ({
  id,
  summary: id,
  start: { dateTime: utc, timeZone: TZ },
  end: { dateTime: DateTime.fromISO(utc).plus({ minutes }).toUTC().toISO() ?? '', timeZone: TZ },
});
const dstEvents: SeedEvent[] = [
  at('lateonmarch8', '2025-03-09T04:30:00Z'), // 23:30 EST on the 8th: not on the 9th
  at('earlyonmarch9', '2025-03-09T05:30:00Z'), // 00:30 EST on the 9th
  at('lateonmarch9', '2025-03-10T03:30:00Z'), // 23:30 EDT on the 9th
  at('earlyonmarch10', '2025-03-10T04:30:00Z'), // 00:30 EDT on the 10th: not on the 9th
];

beforeAll(async () => {
  const seed = buildGoogleSeed();
  emu = await startGoogleEmulator({ seed: { ...seed, events: [...seed.events, ...dstEvents] } });
  cal = createGoogleCalendar({
    auth: createGoogleAuth({ serviceAccount: emu.serviceAccountJson, subject: emu.mailbox }),
    timezone: TZ,
    rootUrl: `${emu.url}/`,
    retry: { retryDelayMs: 10, maxRetryDelayMs: 20 },
  });
});
afterAll(async () => {
  await emu?.stop();
});

describe('GoogleCalendar.listEvents', () => {
  it("lists today's seeded showings in the team time zone, with offsets", async () => {
    const today = DateTime.now().setZone(TZ).toISODate() ?? '';
    const events = await cal.listEvents({ day: today });
    const plumber = events.find((e) => e.title.startsWith('Plumber visit'));
    expect(plumber).toMatchObject({ allDay: false, location: '12 Oak St #2' });
    expect(plumber?.start).toMatch(new RegExp(`^${today}T15:00:00[-+]\\d{2}:\\d{2}$`));
    expect(plumber?.attendees[0]).toMatchObject({
      email: 'bob@martinezplumbing.example',
      response: 'accepted',
    });
  });

  it('returns all-day events as dates', async () => {
    const firstOfNextMonth =
      DateTime.now().setZone(TZ).plus({ months: 1 }).startOf('month').toISODate() ?? '';
    const events = await cal.listEvents({ day: firstOfNextMonth });
    expect(events.find((e) => e.title === 'Rent due')).toMatchObject({
      allDay: true,
      start: firstOfNextMonth,
    });
  });

  it('uses the 23-hour local day on a spring-forward date', async () => {
    const events = await cal.listEvents({ day: '2025-03-09' });
    expect(events.map((e) => e.id)).toEqual(['earlyonmarch9', 'lateonmarch9']);
    expect(events[0]?.start).toBe('2025-03-09T00:30:00-05:00');
    expect(events[1]?.start).toBe('2025-03-09T23:30:00-04:00');
  });

  it('refuses malformed input before calling Google', async () => {
    await expect(cal.listEvents({ day: '9 March' })).rejects.toBeInstanceOf(ValidationError);
    await expect(cal.listEvents({ from: '2025-03-10T10:00', to: '2025-03-09T10:00' })).rejects.toBeInstanceOf(
      ValidationError,
    );
  });
});

describe('GoogleCalendar.createEvent', () => {
  const storedStart = (id: string) => emu.state.events().find((e) => e.id === id)?.startMs;

  it('reads a wall time in the team zone on each side of a DST change', async () => {
    const before = await cal.createEvent({ title: 'Showing before DST', start: '2025-03-08T10:00' });
    const after = await cal.createEvent({ title: 'Showing after DST', start: '2025-03-09T10:00' });
    expect(before.start).toBe('2025-03-08T10:00:00-05:00');
    expect(after.start).toBe('2025-03-09T10:00:00-04:00');
    // What Google stored is the instant: 15:00Z before the change, 14:00Z after it.
    expect(storedStart(before.id)).toBe(Date.parse('2025-03-08T15:00:00Z'));
    expect(storedStart(after.id)).toBe(Date.parse('2025-03-09T14:00:00Z'));
    expect(after.end).toBe('2025-03-09T11:00:00-04:00');
  });

  it('refuses a wall time the clocks skip', async () => {
    await expect(cal.createEvent({ title: 'Impossible', start: '2025-03-09T02:30' })).rejects.toThrow(
      /does not exist/,
    );
  });

  it('treats a duration as elapsed time across the fall-back hour', async () => {
    const e = await cal.createEvent({
      title: 'Night repair',
      start: '2025-11-02T00:30',
      durationMinutes: 120,
    });
    expect(e.start).toBe('2025-11-02T00:30:00-04:00');
    expect(e.end).toBe('2025-11-02T01:30:00-05:00');
  });

  it('accepts an explicit offset and another zone', async () => {
    const e = await cal.createEvent({
      title: 'Call with owner',
      start: '2025-07-01T09:00',
      timezone: 'America/Los_Angeles',
    });
    expect(e.start).toBe('2025-07-01T12:00:00-04:00');
    const o = await cal.createEvent({
      title: 'Offset',
      start: '2025-07-01T16:00:00Z',
      end: '2025-07-01T17:00:00Z',
    });
    expect(o.start).toBe('2025-07-01T12:00:00-04:00');
  });

  it('invites attendees and asks Google to notify them', async () => {
    const e = await cal.createEvent({
      title: 'Showing: 48 Elm Ave #3',
      start: '2025-04-02T17:00',
      durationMinutes: 30,
      attendees: ['tom.becker@mail.example'],
      location: '48 Elm Ave #3',
    });
    expect(e.attendees).toEqual([{ email: 'tom.becker@mail.example', response: 'needsAction' }]);
    const stored = emu.state.events().find((x) => x.id === e.id);
    expect(stored?.sendUpdates).toBe('all');
  });

  it('is idempotent per client reference, and findCreated reconciles', async () => {
    const input = { title: 'Vendor visit', start: '2025-05-05T09:00', clientRef: 'act_cal_1' };
    await expect(cal.findCreated('act_cal_1')).resolves.toBeUndefined();
    const first = await cal.createEvent(input);
    const second = await cal.createEvent(input);
    expect(second.id).toBe(first.id);
    expect(first.id).toBe(eventIdFor('act_cal_1'));
    expect(emu.state.events().filter((e) => e.summary === 'Vendor visit')).toHaveLength(1);
    await expect(cal.findCreated('act_cal_1')).resolves.toMatchObject({
      id: first.id,
      start: '2025-05-05T09:00:00-04:00',
    });
  });

  it('refuses invalid events before calling Google', async () => {
    await expect(cal.createEvent({ title: '', start: '2025-05-05T09:00' })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(
      cal.createEvent({ title: 'x', start: '2025-05-05T09:00', end: '2025-05-05T08:00' }),
    ).rejects.toThrow(/end after/);
    await expect(cal.createEvent({ title: 'x', start: 'tomorrow at 3' })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(
      cal.createEvent({ title: 'x', start: '2025-05-05T09:00', timezone: 'Mars/Base' }),
    ).rejects.toThrow(/Unknown time zone/);
  });
});

describe('GoogleCalendar upstream failures', () => {
  it('retries a 429 on a list and then succeeds', async () => {
    emu.state.failNext('/calendar/v3/calendars/primary/events', 429);
    const events = await cal.listEvents({ day: '2025-03-09' });
    expect(events.map((e) => e.id)).toContain('earlyonmarch9');
    const statuses = emu.state.requests
      .filter((r) => r.path === '/calendar/v3/calendars/primary/events')
      .slice(-2);
    expect(statuses.map((r) => r.status)).toEqual([429, 200]);
  });

  it('maps an unknown calendar to NotFoundError', async () => {
    const other = createGoogleCalendar({
      auth: createGoogleAuth({ serviceAccount: emu.serviceAccountJson, subject: emu.mailbox }),
      timezone: TZ,
      calendarId: 'someone-else@oakproperties.example',
      rootUrl: `${emu.url}/`,
    });
    await expect(other.listEvents({ day: '2025-03-09' })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('reports a malformed response as an upstream fault', async () => {
    emu.state.respondNext('/calendar/v3/calendars/primary/events', {
      status: 200,
      body: '{"items":[{"summary":1}]}',
    });
    await expect(cal.listEvents({ day: '2025-03-09' })).rejects.toMatchObject({ code: 'upstream_malformed' });
  });

  it('does not retry an insert that failed (no duplicate events)', async () => {
    emu.state.failNext('/calendar/v3/calendars/primary/events', 500);
    const before = emu.state.events().length;
    await expect(cal.createEvent({ title: 'Flaky', start: '2025-06-01T10:00' })).rejects.toMatchObject({
      retryable: true,
    });
    expect(emu.state.events()).toHaveLength(before);
  });

  it('reports revoked credentials as an auth failure', async () => {
    emu.state.revokeTokens();
    await expect(cal.listEvents({ day: '2025-03-09' })).rejects.toMatchObject({
      code: 'upstream_auth_failed',
    });
  });
});
