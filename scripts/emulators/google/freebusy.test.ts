import { calendar } from '@googleapis/calendar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGoogleAuth, GOOGLE_SCOPES } from '../../../shared/src/adapters/google/auth';
import { type GoogleEmulator, startGoogleEmulator } from '../google';

/**
 * Calendar `freebusy.query` through the official client (issue 17: showing slots are the gaps between busy
 * periods). Shapes: test/contracts/vendor/google/calendar-freebusy.md.
 */
let emu: GoogleEmulator;
let cal: ReturnType<typeof calendar>;
beforeAll(async () => {
  emu = await startGoogleEmulator({ seed: false });
  const auth = createGoogleAuth({
    serviceAccount: emu.serviceAccountJson,
    subject: emu.mailbox,
    scopes: GOOGLE_SCOPES.calendar,
    tokenUrl: emu.tokenUrl,
  });
  cal = calendar({ version: 'v3', auth, rootUrl: emu.env.GOOGLE_API_BASE });
  const event = (id: string, start: string, end: string) =>
    cal.events.insert({
      calendarId: 'primary',
      requestBody: { id, summary: id, start: { dateTime: start }, end: { dateTime: end } },
    });
  await event('a0001', '2026-11-24T14:00:00Z', '2026-11-24T15:00:00Z');
  await event('a0002', '2026-11-24T14:30:00Z', '2026-11-24T15:30:00Z');
  await event('a0003', '2026-11-24T18:00:00Z', '2026-11-24T19:00:00Z');
  await event('a0004', '2026-11-25T14:00:00Z', '2026-11-25T15:00:00Z');
});
afterAll(async () => {
  await emu?.stop();
});

describe('Calendar freebusy.query', () => {
  it('answers busy periods in the range, merged and clipped, in the asked time zone', async () => {
    const { data } = await cal.freebusy.query({
      requestBody: {
        timeMin: '2026-11-24T13:00:00Z',
        timeMax: '2026-11-24T18:30:00Z',
        timeZone: 'America/New_York',
        items: [{ id: 'primary' }, { id: 'someone-else@other.example' }],
      },
    });
    expect(data).toEqual({
      kind: 'calendar#freeBusy',
      timeMin: '2026-11-24T08:00:00-05:00',
      timeMax: '2026-11-24T13:30:00-05:00',
      calendars: {
        primary: {
          busy: [
            { start: '2026-11-24T09:00:00-05:00', end: '2026-11-24T10:30:00-05:00' },
            { start: '2026-11-24T13:00:00-05:00', end: '2026-11-24T13:30:00-05:00' },
          ],
        },
        'someone-else@other.example': { errors: [{ domain: 'global', reason: 'notFound' }], busy: [] },
      },
    });
  });

  it('refuses what Calendar refuses: no timeMin, an empty range, a local time without offset', async () => {
    const status = async (requestBody: Record<string, unknown>) =>
      cal.freebusy.query({ requestBody }).then(
        (r) => r.status,
        (e: { status?: number }) => e.status,
      );
    expect(await status({ timeMax: '2026-11-24T18:00:00Z', items: [{ id: 'primary' }] })).toBe(400);
    expect(
      await status({ timeMin: '2026-11-24T18:00:00Z', timeMax: '2026-11-24T18:00:00Z', items: [] }),
    ).toBe(400);
    expect(await status({ timeMin: '2026-11-24T09:00:00', timeMax: '2026-11-24T18:00:00Z', items: [] })).toBe(
      400,
    );
  });
});
