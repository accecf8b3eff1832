import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GoogleEmulator, startGoogleEmulator } from '../../../scripts/emulators/google';
import { buildGoogleSeed, DEMO_DRIVE_IDS, type SeedEvent } from '../../../scripts/emulators/seed/google-data';
import { createGoogleAuth } from '../adapters/google/auth';
import { createGmailMailbox } from '../adapters/google/gmail-mailbox';
import { createGoogleCalendar } from '../adapters/google/google-calendar';
import { createGoogleDrive } from '../adapters/google/google-drive';
import { buildGoogleToolDeps } from '../composition/tool-deps';
import { extractDayRange } from '../domain/extract';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors';
import { type GoogleToolDeps, googleTools } from './google';
import { bindAll, ToolRegistry } from './registry';
import type { ToolContext } from './tool';

const TZ = 'America/New_York';
const ID = { davidFirst: '18f0a00000000001', davidFollowUp: '18f0a00000000003', maria: '18f0a00000000004' };

const event = (id: string, utc: string): SeedEvent => ({
  id,
  summary: id,
  start: { dateTime: utc, timeZone: TZ },
  end: { dateTime: DateTime.fromISO(utc).plus({ minutes: 30 }).toUTC().toISO() ?? '', timeZone: TZ },
});
/** Around the 2025 US spring-forward night (Sunday 9 March, 02:00 → 03:00 in New York). */
const dstEvents = [
  event('lateonmarch8', '2025-03-09T04:30:00Z'),
  event('earlyonmarch9', '2025-03-09T05:30:00Z'),
  event('lateonmarch9', '2025-03-10T03:30:00Z'),
  event('earlyonmarch10', '2025-03-10T04:30:00Z'),
];

/** A busy week for free/busy: Mon 17 Mar 2025 11:00–12:30 and Tue 18 Mar 10:00–11:00 in New York. */
const busyEvents: SeedEvent[] = [
  ['fb_mon', '2025-03-17T15:00:00Z', '2025-03-17T16:30:00Z'],
  ['fb_tue', '2025-03-18T14:00:00Z', '2025-03-18T15:00:00Z'],
].map(([id, start, end]) => ({
  id: id as string,
  summary: 'Busy',
  start: { dateTime: start as string, timeZone: TZ },
  end: { dateTime: end as string, timeZone: TZ },
}));

let emu: GoogleEmulator;
let deps: GoogleToolDeps;
let registry: ToolRegistry;
let seq = 0;

const ctx = (over: Partial<ToolContext> = {}): ToolContext => ({
  conversationId: 'conv_google',
  runId: 'run_google',
  actionId: `act_g_${++seq}`,
  now: new Date(),
  timezone: TZ,
  ...over,
});

/** Validates like the runtime does before a call or an approval, then runs. */
async function call(name: string, args: Record<string, unknown>, c: ToolContext = ctx()) {
  const v = registry.validateArgs(name, args);
  if (!v.ok) throw new ValidationError(v.reason);
  // biome-ignore lint/suspicious/noExplicitAny: tests read tool results field by field
  return registry.get(name).run(v.args, c) as Promise<Record<string, any>>;
}

function makeDeps(): GoogleToolDeps {
  const auth = createGoogleAuth({ serviceAccount: emu.serviceAccountJson, subject: emu.mailbox });
  const common = { auth, rootUrl: `${emu.url}/`, retry: { retryDelayMs: 10, maxRetryDelayMs: 20 } };
  return {
    mailbox: createGmailMailbox({ ...common, address: emu.mailbox, fromName: 'Oak Properties' }),
    calendar: createGoogleCalendar({ ...common, timezone: TZ }),
    drive: createGoogleDrive(common),
    writeRetry: { minDelayMs: 5, maxDelayMs: 10 },
  };
}

beforeAll(async () => {
  const seed = buildGoogleSeed();
  emu = await startGoogleEmulator({
    seed: { ...seed, events: [...seed.events, ...dstEvents, ...busyEvents] },
  });
  deps = makeDeps();
  registry = new ToolRegistry(bindAll(googleTools, deps));
});
afterAll(async () => {
  await emu?.stop();
});

const lastSent = () => emu.state.sent().at(-1);

describe('search_emails and read_email', () => {
  it('finds mail with Gmail syntax and returns normalised summaries', async () => {
    const r = await call('search_emails', { query: 'heater is:unread' });
    expect(r.emails.map((e: { id: string }) => e.id)).toContain(ID.maria);
    const maria = r.emails.find((e: { id: string }) => e.id === ID.maria);
    expect(Object.keys(maria).sort()).toEqual(
      ['date', 'from', 'id', 'snippet', 'subject', 'threadId', 'to', 'unread'].sort(),
    );
  });

  it('reads an email with what a threaded answer needs', async () => {
    const r = await call('read_email', { id: ID.maria });
    expect(r).toMatchObject({
      threadId: ID.maria,
      subject: 'Heater making a loud noise',
      messageIdHeader: '<CAMl0004@mail.example>',
    });
    expect(r.text).toContain('the heater in 12 Oak St #2 is banging');
  });

  it('says how to recover from an unknown id (404)', async () => {
    const e = await call('read_email', { id: 'ffffffffffffffff' }).catch((x) => x);
    expect(e).toBeInstanceOf(NotFoundError);
    expect(e).toMatchObject({ code: 'not_found' });
    expect(e.message).toMatch(/search_emails/);
  });

  it('retries a 429 and then answers', async () => {
    emu.state.failNext('/gmail/v1/users/me/messages', 429);
    const r = await call('search_emails', { query: 'lease' });
    expect(r.count).toBeGreaterThan(0);
    const statuses = emu.state.requests.filter((x) => x.path === '/gmail/v1/users/me/messages').slice(-2);
    expect(statuses.map((x) => x.status)).toEqual([429, 200]);
  });

  it('reports a malformed answer as such, not as "no mail"', async () => {
    emu.state.respondNext('/gmail/v1/users/me/messages', { status: 200, body: '<html>maintenance</html>' });
    await expect(call('search_emails', { query: 'lease' })).rejects.toMatchObject({
      code: 'upstream_malformed',
      retryable: false,
    });
  });

  it('refuses bad arguments at validation', async () => {
    await expect(call('search_emails', { query: '' })).rejects.toBeInstanceOf(ValidationError);
    await expect(call('read_email', { id: ID.maria, maxChars: 10 ** 6 })).rejects.toBeInstanceOf(
      ValidationError,
    );
  });
});

describe('send_email', () => {
  it('sends a new email (no thread) to exactly the approved recipients', async () => {
    const r = await call('send_email', {
      to: 'Tom Becker <tom.becker@mail.example>, priya.n@mail.example',
      subject: 'Showing on Saturday',
      body: 'Hi Tom, the showing is confirmed for Saturday at 10.',
    });
    const sent = lastSent();
    expect(sent).toMatchObject({
      id: r.messageId,
      subject: 'Showing on Saturday',
      inReplyTo: '',
      references: '',
    });
    expect(sent?.to).toContain('tom.becker@mail.example');
    expect(sent?.to).toContain('priya.n@mail.example');
    expect(sent?.requestedThreadId).toBeUndefined();
    expect(sent?.text).toBe('Hi Tom, the showing is confirmed for Saturday at 10.');
    expect(r).toMatchObject({ reply: false });
  });

  it('replies in thread with the rules planner’s arguments (threadId + inReplyTo)', async () => {
    const r = await call('send_email', {
      to: 'maria.lopez@mail.example',
      subject: 'Re: Heater making a loud noise',
      body: 'We will send CoolAir today.',
      threadId: ID.maria,
      inReplyTo: '<CAMl0004@mail.example>',
    });
    const sent = lastSent();
    expect(sent).toMatchObject({
      threadId: ID.maria,
      requestedThreadId: ID.maria,
      inReplyTo: '<CAMl0004@mail.example>',
      references: '<CAMl0004@mail.example>',
      subject: 'Re: Heater making a loud noise',
    });
    expect(r).toMatchObject({ reply: true, inThread: true, threadId: ID.maria });
  });

  it('answers the latest message of a thread with the whole References chain when only threadId is given', async () => {
    await call('send_email', {
      to: 'dkim@mail.example',
      body: 'Yes, the new lease can start on the 1st.',
      threadId: ID.davidFirst,
    });
    expect(lastSent()).toMatchObject({
      threadId: ID.davidFirst,
      subject: 'Re: Lease renewal question',
      inReplyTo: '<CAFdk1003@mail.example>',
      references: '<CAFdk1001@mail.example> <reply-2001@oakproperties.example> <CAFdk1003@mail.example>',
    });
  });

  it('answers an earlier message of the thread when inReplyTo names it', async () => {
    await call('send_email', {
      to: 'dkim@mail.example',
      subject: 'Re: Lease renewal question',
      body: 'About your first question: yes, 12 months at the same rent.',
      threadId: ID.davidFirst,
      inReplyTo: '<CAFdk1001@mail.example>',
    });
    expect(lastSent()).toMatchObject({
      threadId: ID.davidFirst,
      inReplyTo: '<CAFdk1001@mail.example>',
      references: '<CAFdk1001@mail.example>',
    });
  });

  it('replies by Gmail message id, taking thread and headers from that message', async () => {
    const r = await call('send_email', {
      to: 'dkim@mail.example',
      body: 'Paperwork attached tomorrow.',
      messageId: ID.davidFollowUp,
    });
    expect(lastSent()).toMatchObject({
      threadId: ID.davidFirst,
      inReplyTo: '<CAFdk1003@mail.example>',
      references: '<CAFdk1001@mail.example> <reply-2001@oakproperties.example> <CAFdk1003@mail.example>',
    });
    expect(r.inThread).toBe(true);
  });

  it('says when Gmail did not keep the reply in the thread (subject changed)', async () => {
    const r = await call('send_email', {
      to: 'maria.lopez@mail.example',
      subject: 'Different topic',
      body: 'Hello',
      threadId: ID.maria,
    });
    expect(r).toMatchObject({ reply: true, inThread: false });
  });

  it('refuses a new email without a subject, and addresses that are not addresses', async () => {
    await expect(call('send_email', { to: 'a@b.example', body: 'x' })).rejects.toThrow(/subject/);
    await expect(call('send_email', { to: 'maria', subject: 's', body: 'x' })).rejects.toThrow(
      /email address/,
    );
    await expect(
      call('send_email', { to: 'a@b.example', cc: 'not an address', subject: 's', body: 'x' }),
    ).rejects.toThrow(/email address/);
  });

  it('does not run outside an approved action (no action id) and sends nothing', async () => {
    const before = emu.state.sent().length;
    await expect(
      call('send_email', { to: 'a@b.example', subject: 's', body: 'x' }, ctx({ actionId: undefined })),
    ).rejects.toBeInstanceOf(ForbiddenError);
    expect(emu.state.sent()).toHaveLength(before);
  });

  it('tells the agent when the thread does not exist', async () => {
    const e = await call('send_email', { to: 'a@b.example', body: 'x', threadId: 'ffffffffffffffff' }).catch(
      (x) => x,
    );
    expect(e).toMatchObject({ code: 'not_found' });
    expect(e.message).toMatch(/search_emails/);
  });

  it('retries a send refused with 429 and sends exactly once', async () => {
    emu.state.failNext('/gmail/v1/users/me/messages/send', 429);
    const before = emu.state.sent().length;
    await call('send_email', { to: 'a@b.example', subject: 'Rate limited', body: 'x' });
    expect(emu.state.sent()).toHaveLength(before + 1);
    const sends = emu.state.requests.filter((r) => r.path === '/gmail/v1/users/me/messages/send').slice(-2);
    expect(sends.map((r) => r.status)).toEqual([429, 200]);
  });

  it('marks a 503 on send as outcome-unknown, and reconcile tells whether it went out', async () => {
    const c = ctx();
    const args = { to: 'a@b.example', subject: 'Maybe sent', body: 'x', threadId: undefined };
    emu.state.failNext('/gmail/v1/users/me/messages/send', 503);
    const e = await call('send_email', args, c).catch((x) => x);
    expect(e).toMatchObject({ outcomeUnknown: true, retryable: true });
    const tool = registry.get('send_email');
    await expect(tool.reconcile?.(args, c)).resolves.toBeUndefined();
    const r = await call('send_email', args, c);
    await expect(tool.reconcile?.(args, c)).resolves.toMatchObject({
      messageId: r.messageId,
      reconciled: true,
    });
  });
});

describe('list_calendar_events', () => {
  it('answers the rules planner’s window in the shape it reads ({ events: [{ summary, start }] })', async () => {
    const range = extractDayRange('what is on the calendar today', new Date(), TZ);
    const r = await call('list_calendar_events', { timeMin: range.start, timeMax: range.end });
    expect(r.timeZone).toBe(TZ);
    const plumber = r.events.find((e: { summary: string }) => e.summary.startsWith('Plumber visit'));
    expect(plumber.start).toMatch(/T15:00:00[-+]\d{2}:\d{2}$/);
    expect(new Date(plumber.start).toLocaleTimeString('en-US', { timeZone: TZ, hour: 'numeric' })).toBe(
      '3 PM',
    );
  });

  it('covers exactly the 23-hour local day of a spring-forward date', async () => {
    const byDay = await call('list_calendar_events', { day: '2025-03-09' });
    expect(byDay.events.map((e: { id: string }) => e.id)).toEqual(['earlyonmarch9', 'lateonmarch9']);
    const range = extractDayRange('calendar on March 9 2025', new Date('2025-03-01T12:00:00Z'), TZ);
    const byWindow = await call('list_calendar_events', { timeMin: range.start, timeMax: range.end });
    expect(byWindow.events.map((e: { start: string }) => e.start)).toEqual([
      '2025-03-09T00:30:00-05:00',
      '2025-03-09T23:30:00-04:00',
    ]);
  });

  it('retries a 429 and reports a malformed answer', async () => {
    emu.state.failNext('/calendar/v3/calendars/primary/events', 429);
    await expect(call('list_calendar_events', { day: '2025-03-09' })).resolves.toMatchObject({ count: 2 });
    emu.state.respondNext('/calendar/v3/calendars/primary/events', {
      status: 200,
      body: '{"items":[{"id":1}]}',
    });
    await expect(call('list_calendar_events', { day: '2025-03-09' })).rejects.toMatchObject({
      code: 'upstream_malformed',
    });
  });

  it('refuses day together with a window', async () => {
    await expect(
      call('list_calendar_events', { day: '2025-03-09', timeMin: '2025-03-09T00:00' }),
    ).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('create_calendar_event', () => {
  const stored = (id: string) => emu.state.events().find((e) => e.id === id);

  it('takes the rules planner’s arguments (offset start, UTC end, timeZone)', async () => {
    const r = await call('create_calendar_event', {
      summary: 'Showing: 7 Birch Rd',
      start: '2025-03-09T10:00:00.000-04:00',
      end: '2025-03-09T14:30:00.000Z',
      timeZone: TZ,
    });
    expect(r).toMatchObject({
      start: '2025-03-09T10:00:00-04:00',
      end: '2025-03-09T10:30:00-04:00',
      timeZone: TZ,
    });
    expect(stored(r.id)?.startMs).toBe(Date.parse('2025-03-09T14:00:00Z'));
    expect(stored(r.id)?.attendees).toEqual([]);
    expect(stored(r.id)?.sendUpdates).toBe('none');
  });

  it('reads wall times on both sides of the spring-forward change', async () => {
    const before = await call('create_calendar_event', {
      summary: 'Before',
      start: '2025-03-08T10:00',
      timeZone: TZ,
    });
    const after = await call('create_calendar_event', { summary: 'After', start: '2025-03-09T10:00' });
    expect(before.start).toBe('2025-03-08T10:00:00-05:00');
    expect(after.start).toBe('2025-03-09T10:00:00-04:00');
    expect(stored(before.id)?.startMs).toBe(Date.parse('2025-03-08T15:00:00Z'));
    expect(stored(after.id)?.startMs).toBe(Date.parse('2025-03-09T14:00:00Z'));
  });

  it('refuses a wall time the clocks skip before approval, and in the team zone at run time', async () => {
    await expect(
      call('create_calendar_event', { summary: 'Impossible', start: '2025-03-09T02:30', timeZone: TZ }),
    ).rejects.toThrow(/does not exist/);
    const count = emu.state.events().length;
    await expect(
      call('create_calendar_event', { summary: 'Impossible', start: '2025-03-09T02:30' }),
    ).rejects.toThrow(/does not exist/);
    expect(emu.state.events()).toHaveLength(count);
  });

  it('counts a duration as elapsed time across the fall-back hour', async () => {
    const r = await call('create_calendar_event', {
      summary: 'Night repair',
      start: '2025-11-02T00:30',
      durationMinutes: 120,
      timeZone: TZ,
    });
    expect(r.start).toBe('2025-11-02T00:30:00-04:00');
    expect(r.end).toBe('2025-11-02T01:30:00-05:00');
  });

  it('resolves a wall time that happens twice to the later one, and the card says so', async () => {
    const args = { summary: 'Boiler check', start: '2025-11-02T01:30', durationMinutes: 30, timeZone: TZ };
    const r = await call('create_calendar_event', args);
    expect(r.start).toBe('2025-11-02T01:30:00-05:00');
    expect(stored(r.id)?.startMs).toBe(Date.parse('2025-11-02T06:30:00Z'));
    expect(registry.get('create_calendar_event').summarize(args)).toMatch(
      /01:30 happens twice that night, this is the later one \(EST\)/,
    );
    expect(
      registry.get('create_calendar_event').summarize({ ...args, start: '2025-11-02T03:30' }),
    ).not.toMatch(/twice/);
  });

  it('invites attendees when given', async () => {
    const r = await call('create_calendar_event', {
      summary: 'Showing with Tom',
      start: '2025-04-02T17:00',
      durationMinutes: 30,
      attendees: ['tom.becker@mail.example'],
    });
    expect(r.attendees).toEqual([{ email: 'tom.becker@mail.example', response: 'needsAction' }]);
    expect(stored(r.id)?.sendUpdates).toBe('all');
  });

  it('is idempotent per action and reconcile finds the event', async () => {
    const c = ctx();
    const args = { summary: 'Vendor visit', start: '2025-05-05T09:00', timeZone: TZ };
    const tool = registry.get('create_calendar_event');
    await expect(tool.reconcile?.(args, c)).resolves.toBeUndefined();
    const first = await call('create_calendar_event', args, c);
    const again = await call('create_calendar_event', args, c);
    expect(again.id).toBe(first.id);
    expect(emu.state.events().filter((e) => e.summary === 'Vendor visit')).toHaveLength(1);
    await expect(tool.reconcile?.(args, c)).resolves.toMatchObject({ id: first.id, reconciled: true });
  });

  it('refuses an end before the start, an unknown zone, and running without an action', async () => {
    await expect(
      call('create_calendar_event', {
        summary: 'x',
        start: '2025-05-05T09:00',
        end: '2025-05-05T08:00',
        timeZone: TZ,
      }),
    ).rejects.toThrow(/end after/);
    await expect(
      call('create_calendar_event', { summary: 'x', start: '2025-05-05T09:00', timeZone: 'Mars/Base' }),
    ).rejects.toThrow(/IANA/);
    await expect(
      call(
        'create_calendar_event',
        { summary: 'x', start: '2025-05-05T09:00' },
        ctx({ actionId: undefined }),
      ),
    ).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('summarises the local time for the approval card', () => {
    expect(
      registry.get('create_calendar_event').summarize({
        summary: 'Showing',
        start: '2025-03-09T10:00',
        end: '2025-03-09T10:30',
        timeZone: TZ,
      }),
    ).toBe('Add “Showing” to the calendar: Sun 9 Mar 2025, 10:00–10:30 (America/New_York)');
  });
});

describe('Drive tools', () => {
  it('finds and reads a doc, a sheet and a PDF', async () => {
    const found = await call('search_drive', { query: 'procedures' });
    expect(found.files.map((f: { id: string }) => f.id)).toContain(DEMO_DRIVE_IDS.procedures);
    const doc = await call('read_google_doc', { id: DEMO_DRIVE_IDS.procedures });
    expect(doc.text).toContain('Call CoolAir HVAC');
    const sheet = await call('read_google_sheet', { id: DEMO_DRIVE_IDS.rentRoll, range: 'Vacancies' });
    expect(sheet).toMatchObject({ sheet: 'Vacancies', sheets: ['Rent roll', 'Vacancies'] });
    expect(sheet.rows[1]).toEqual(['48 Elm Ave #3', 'next month']);
    const pdf = await call('read_drive_pdf', { id: DEMO_DRIVE_IDS.leasePdf });
    expect(pdf.text).toContain('Monthly rent: $2,150');
  });

  it('points at the right tool for a file of another type, and at search for a missing one', async () => {
    const wrong = await call('read_drive_pdf', { id: DEMO_DRIVE_IDS.procedures }).catch((x) => x);
    expect(wrong).toMatchObject({ code: 'validation_failed' });
    expect(wrong.message).toMatch(/read_google_doc/);
    const missing = await call('read_google_doc', { id: '1NoSuchDoc' }).catch((x) => x);
    expect(missing).toBeInstanceOf(Error);
    expect(missing).toMatchObject({ code: 'not_found' });
    expect(missing.message).toMatch(/search_drive/);
  });

  it('retries a 429 on a search', async () => {
    emu.state.failNext('/drive/v3/files', 429);
    const r = await call('search_drive', { query: 'rent roll' });
    expect(r.files.map((f: { id: string }) => f.id)).toContain(DEMO_DRIVE_IDS.rentRoll);
    const statuses = emu.state.requests.filter((x) => x.path === '/drive/v3/files').slice(-2);
    expect(statuses.map((x) => x.status)).toEqual([429, 200]);
  });
});

describe('find_free_slots', () => {
  it('offers showing times around what free/busy says is taken, one a day, at least two hours ahead', async () => {
    // Monday 17 March 2025, 09:00 in New York: the first slot can be 11:00, but 11:00–12:30 is taken.
    const r = await call('find_free_slots', {}, ctx({ now: new Date('2025-03-17T13:00:00Z') }));
    expect(r.slots.map((s: { label: string }) => s.label)).toEqual([
      'Mon 17 Mar at 12:30',
      'Tue 18 Mar at 11:00',
      'Wed 19 Mar at 10:00',
    ]);
    expect(r.slots[0]).toMatchObject({
      start: '2025-03-17T12:30:00-04:00',
      end: '2025-03-17T13:00:00-04:00',
    });
    const asked = emu.state.requests.filter((x) => x.path === '/calendar/v3/freeBusy').at(-1);
    expect(asked?.status).toBe(200);
  });

  it('refuses a window outside its bounds with a clear reason', async () => {
    await expect(call('find_free_slots', { days: 30 })).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('configuration and credentials', () => {
  it('builds nothing without a service account, and working deps from the emulator env', async () => {
    const base = { TEAM_TIMEZONE: TZ, TEAM_NAME: 'Oak Properties', EMAIL_BODY_LIMIT: 4000 };
    expect(buildGoogleToolDeps(base)).toBeUndefined();
    const built = buildGoogleToolDeps({ ...base, ...emu.env });
    expect(built).toBeDefined();
    const tools = new ToolRegistry(bindAll(googleTools, built as GoogleToolDeps));
    const r = (await tools.get('list_calendar_events').run({ day: '2025-03-10', limit: 10 }, ctx())) as {
      events: { id: string }[];
    };
    expect(r.events.map((e) => e.id)).toEqual(['earlyonmarch10']);
  });

  it('turns revoked credentials (401) into an error that tells the team to check access', async () => {
    emu.state.revokeTokens();
    const e = await call('read_email', { id: ID.maria }).catch((x) => x);
    expect(e).toMatchObject({ code: 'upstream_auth_failed', retryable: false });
    expect(e.message).toMatch(/access to this service is not working/);
    expect(e).not.toBeInstanceOf(NotFoundError);
  });
});
