import { DateTime } from 'luxon';
import { z } from 'zod';
import { parseEventTime } from '../domain/event-time';
import { openSlots, SHOWING_DEFAULTS } from '../domain/showing-slots';
import { ForbiddenError, ValidationError } from '../errors';
import type { Calendar, CalendarEvent } from '../ports/calendar';
import type { Drive } from '../ports/drive';
import type { Mailbox } from '../ports/mailbox';
import { type ErrorHints, readCall, type WriteRetryOptions, writeCall } from './provider-calls';
import { capOutput, lazyInput, type Tool, type ToolContext } from './tool';

/**
 * The Google Workspace tools (SPEC §3.4): the shared inbox, the team calendar and the shared Drive, through
 * the Mailbox / Calendar / Drive ports. Reads are retried by the adapters; writes carry the pending action id
 * as their idempotency reference, so `reconcile` can ask Google whether an interrupted write happened.
 */
export interface GoogleToolDeps {
  mailbox: Mailbox;
  calendar: Calendar;
  drive: Drive;
  /** Backoff for a write refused with 429 (tests shorten it). */
  writeRetry?: WriteRetryOptions;
}

const MAX_TEXT = 8_000;
const OUTPUT_MAX = 10_000;

const HINTS: Record<string, ErrorHints> = {
  email: { not_found: 'Use search_emails to find the id of the email.' },
  thread: { not_found: 'The thread id may be wrong; use search_emails to find the email to answer.' },
  calendar: {
    validation_failed: 'Give local times like 2025-03-09T10:00 with a timeZone, or ISO times with an offset.',
  },
  drive: { not_found: 'Use search_drive to find the file id.', forbidden: 'The file is not shared with us.' },
};

/** Writes need the pending action id: it is the idempotency reference and proves the executor ran us. */
function actionRef(ctx: ToolContext, tool: string): string {
  if (!ctx.actionId)
    throw new ForbiddenError(`${tool} runs only as an approved action; propose it for approval instead.`);
  return ctx.actionId;
}

const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

// ---------------------------------------------------------------- mail

const searchEmailsInput = lazyInput(() =>
  z.object({
    query: z
      .string()
      .trim()
      .min(1)
      .max(300)
      .describe(
        'Gmail search syntax, e.g. "from:maria heater", "is:unread newer_than:2d", "subject:invoice"',
      ),
    limit: z.number().int().min(1).max(25).default(10),
  }),
);

export const searchEmails: Tool<typeof searchEmailsInput, GoogleToolDeps> = {
  name: 'search_emails',
  group: 'google',
  kind: 'read',
  description:
    'Search the shared team inbox (Gmail search syntax). Returns id, thread id, sender, subject, date and a snippet; use read_email for the full text.',
  input: searchEmailsInput,
  async run(deps, input) {
    const found = await readCall(() => deps.mailbox.search(input.query, { limit: input.limit }));
    return capOutput(
      {
        count: found.length,
        emails: found.map((m) => ({
          id: m.id,
          threadId: m.threadId,
          from: m.from,
          to: clip(m.to, 300),
          subject: m.subject,
          date: m.date,
          snippet: clip(m.snippet, 300),
          unread: m.unread,
        })),
      },
      OUTPUT_MAX,
    );
  },
  summarize: (i) => `Search email for “${i.query}”`,
};

const readEmailInput = lazyInput(() =>
  z.object({
    id: z.string().trim().min(1).max(100).describe('Email id from search_emails'),
    maxChars: z.number().int().min(200).max(MAX_TEXT).default(4_000),
  }),
);

export const readEmail: Tool<typeof readEmailInput, GoogleToolDeps> = {
  name: 'read_email',
  group: 'google',
  kind: 'read',
  description:
    'Read one email as plain text (quoted history dropped, attachments listed). Gives the threadId and messageIdHeader needed to answer it with send_email.',
  input: readEmailInput,
  async run(deps, input) {
    const m = await readCall(() => deps.mailbox.read(input.id, { bodyLimit: input.maxChars }), HINTS.email);
    return capOutput(
      {
        id: m.id,
        threadId: m.threadId,
        from: m.from,
        to: m.to,
        ...(m.cc ? { cc: m.cc } : {}),
        ...(m.replyTo ? { replyTo: m.replyTo } : {}),
        subject: m.subject,
        date: m.date,
        unread: m.unread,
        text: m.text,
        truncated: m.truncated,
        ...(m.messageIdHeader ? { messageIdHeader: m.messageIdHeader } : {}),
        attachments: m.attachments,
      },
      OUTPUT_MAX,
    );
  },
  summarize: (i) => `Read email ${i.id}`,
};

/** Splits "a@x.com, Name <b@y.com>" on the commas outside quotes and angle brackets. */
export function splitAddressList(list: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  let angle = false;
  for (const ch of list) {
    if (ch === '"') quoted = !quoted;
    else if (ch === '<') angle = true;
    else if (ch === '>') angle = false;
    if ((ch === ',' || ch === ';') && !quoted && !angle) {
      if (cur.trim()) out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

const emailOnly = z.email();
const addressOf = (mailbox: string) => (/<([^>]+)>\s*$/.exec(mailbox)?.[1] ?? mailbox).trim();
const validAddressList = (v: string) => {
  const parts = splitAddressList(v);
  return (
    parts.length > 0 && parts.length <= 20 && parts.every((p) => emailOnly.safeParse(addressOf(p)).success)
  );
};

const sendEmailInput = lazyInput(() =>
  z
    .object({
      to: z
        .string()
        .trim()
        .min(3)
        .max(1000)
        .refine(validAddressList, 'must be one or more email addresses separated by commas')
        .describe('Recipient address(es), comma-separated; "Name <a@b.com>" is fine'),
      subject: z
        .string()
        .trim()
        .min(1)
        .max(300)
        .optional()
        .describe('Required for a new email; a reply defaults to "Re: <the thread subject>"'),
      body: z.string().trim().min(1).max(20_000).describe('Plain-text body'),
      cc: z
        .string()
        .trim()
        .max(1000)
        .refine(validAddressList, 'must be one or more email addresses separated by commas')
        .optional(),
      threadId: z
        .string()
        .trim()
        .min(1)
        .max(100)
        .optional()
        .describe('Gmail thread to reply in (from search_emails/read_email); omit for a new email'),
      inReplyTo: z
        .string()
        .trim()
        .min(3)
        .max(998)
        .optional()
        .describe('Message-ID header (<…@…>) of the email being answered (read_email: messageIdHeader)'),
      messageId: z
        .string()
        .trim()
        .min(1)
        .max(100)
        .optional()
        .describe('Gmail id of the email being answered; its thread and headers are used for the reply'),
    })
    .refine((v) => v.subject || v.threadId || v.messageId, {
      message: 'a new email needs a subject (or give threadId/messageId to reply in a thread)',
      path: ['subject'],
    }),
);

export const sendEmail: Tool<typeof sendEmailInput, GoogleToolDeps> = {
  name: 'send_email',
  group: 'google',
  kind: 'write',
  description:
    'Send an email from the shared team inbox. To answer an email, give its threadId (and inReplyTo) or messageId so the reply stays in the thread; otherwise a new email is sent. Needs approval.',
  input: sendEmailInput,
  async run(deps, input, ctx) {
    const clientRef = actionRef(ctx, 'send_email');
    let thread: { threadId: string; inReplyTo?: string; references?: string } | undefined;
    if (input.messageId) {
      const orig = await readCall(
        () => deps.mailbox.read(input.messageId as string, { bodyLimit: 200 }),
        HINTS.email,
      );
      thread = {
        threadId: orig.threadId,
        ...(orig.messageIdHeader
          ? {
              inReplyTo: orig.messageIdHeader,
              references: [orig.references, orig.messageIdHeader].filter(Boolean).join(' '),
            }
          : {}),
      };
    } else if (input.threadId) {
      thread = { threadId: input.threadId, ...(input.inReplyTo ? { inReplyTo: input.inReplyTo } : {}) };
    }
    const sent = await writeCall(
      () =>
        deps.mailbox.send({
          to: splitAddressList(input.to),
          ...(input.cc ? { cc: splitAddressList(input.cc) } : {}),
          ...(input.subject ? { subject: input.subject } : {}),
          text: input.body,
          ...(thread ? { thread } : {}),
          clientRef,
        }),
      HINTS.thread,
      deps.writeRetry,
    );
    return {
      messageId: sent.id,
      threadId: sent.threadId,
      to: input.to,
      ...(thread ? { reply: true, inThread: sent.threaded } : { reply: false }),
    };
  },
  async reconcile(deps, input, ctx) {
    const clientRef = actionRef(ctx, 'send_email');
    const found = await deps.mailbox.findSent({
      clientRef,
      ...(input.threadId ? { threadId: input.threadId } : {}),
    });
    return found
      ? { messageId: found.id, threadId: found.threadId, to: input.to, reconciled: true }
      : undefined;
  },
  summarize: (i) =>
    `${i.threadId || i.messageId ? 'Reply by email' : 'Email'} to ${i.to}${i.subject ? `: “${clip(i.subject, 80)}”` : ''} — “${clip(i.body.replace(/\s+/g, ' '), 80)}”`,
};

// ---------------------------------------------------------------- calendar

const when = z
  .string()
  .trim()
  .min(10)
  .max(40)
  .describe('Local time like 2025-03-09T10:00 (in timeZone), or ISO 8601 with an offset');

const validZone = (zone: string) => DateTime.local().setZone(zone).isValid;

const listEventsInput = lazyInput(() =>
  z
    .object({
      timeMin: when.optional().describe('Start of the window (default: now)'),
      timeMax: when.optional().describe('End of the window (default: 7 days after the start)'),
      day: z
        .string()
        .regex(/^\d{4}-\d{2}-\d{2}$/, 'day must be YYYY-MM-DD')
        .optional()
        .describe('A whole local day in the team time zone, instead of timeMin/timeMax'),
      query: z.string().trim().max(200).optional().describe('Words to match in the events'),
      limit: z.number().int().min(1).max(100).default(25),
    })
    .refine((v) => !(v.day && (v.timeMin || v.timeMax)), 'give either day or timeMin/timeMax, not both'),
);

const eventOut = (e: CalendarEvent) => ({
  id: e.id,
  summary: e.title,
  start: e.start,
  end: e.end,
  allDay: e.allDay,
  ...(e.location ? { location: e.location } : {}),
  ...(e.description ? { description: clip(e.description, 500) } : {}),
  ...(e.attendees.length
    ? {
        attendees: e.attendees.map((a) => ({
          email: a.email,
          ...(a.name ? { name: a.name } : {}),
          ...(a.response ? { response: a.response } : {}),
        })),
      }
    : {}),
  ...(e.link ? { link: e.link } : {}),
});

export const listCalendarEvents: Tool<typeof listEventsInput, GoogleToolDeps> = {
  name: 'list_calendar_events',
  group: 'google',
  kind: 'read',
  description:
    'List the team calendar’s events in a window (or one local day). Times come back in the team time zone with their offset; all-day events have a date only.',
  input: listEventsInput,
  async run(deps, input, ctx) {
    const events = await readCall(
      () =>
        deps.calendar.listEvents({
          ...(input.day ? { day: input.day } : {}),
          ...(input.timeMin ? { from: input.timeMin } : {}),
          ...(input.timeMax ? { to: input.timeMax } : {}),
          ...(input.query ? { query: input.query } : {}),
          limit: input.limit,
        }),
      HINTS.calendar,
    );
    return capOutput(
      { timeZone: ctx.timezone, count: events.length, events: events.map(eventOut) },
      OUTPUT_MAX,
    );
  },
  summarize: (i) => `Read the calendar${i.day ? ` for ${i.day}` : ''}`,
};

const freeSlotsInput = lazyInput(() =>
  z.object({
    days: z
      .number()
      .int()
      .min(1)
      .max(14)
      .default(SHOWING_DEFAULTS.days)
      .describe('How many days ahead to look, from today'),
    durationMinutes: z.number().int().min(15).max(180).default(SHOWING_DEFAULTS.durationMinutes),
    count: z.number().int().min(1).max(6).default(SHOWING_DEFAULTS.count),
  }),
);

/**
 * Showing times to offer: the calendar's free/busy inside showing hours (domain/showing-slots.ts). A read:
 * it books nothing; the reply that offers the times is still a card, and the booking is its own write.
 */
export const findFreeSlots: Tool<typeof freeSlotsInput, GoogleToolDeps> = {
  name: 'find_free_slots',
  group: 'google',
  kind: 'read',
  description: `Free times on the team calendar for a showing (showing hours ${SHOWING_DEFAULTS.dayStart}:00–${SHOWING_DEFAULTS.dayEnd}:00 local, no Sundays, at least ${SHOWING_DEFAULTS.noticeMinutes / 60} h from now), at most one a day first. Each slot has start/end with offset and a label to quote.`,
  input: freeSlotsInput,
  async run(deps, input, ctx) {
    const freeBusy = deps.calendar.freeBusy?.bind(deps.calendar);
    if (!freeBusy) throw new ValidationError('This calendar does not answer free/busy queries.');
    const from = DateTime.fromJSDate(ctx.now).setZone(ctx.timezone);
    const busy = await readCall(
      () =>
        freeBusy({
          from: from.toISO() ?? '',
          to: from.startOf('day').plus({ days: input.days }).toISO() ?? '',
        }),
      HINTS.calendar,
    );
    const slots = openSlots(busy, { ...input, now: ctx.now, zone: ctx.timezone });
    return { timeZone: ctx.timezone, slots };
  },
  summarize: (i) => `Read the calendar's free/busy for the next ${i.days} days`,
};

const createEventInput = lazyInput(() =>
  z
    .object({
      summary: z.string().trim().min(1).max(300).describe('Event title'),
      start: when,
      end: when.optional().describe('Defaults to start + durationMinutes'),
      durationMinutes: z
        .number()
        .int()
        .min(5)
        .max(24 * 60)
        .optional()
        .describe('Used when end is not given (default 60)'),
      timeZone: z
        .string()
        .max(64)
        .refine(validZone, 'must be an IANA time zone such as America/New_York')
        .optional()
        .describe('IANA zone the local times are in (default: the team time zone)'),
      location: z.string().trim().max(300).optional(),
      description: z.string().trim().max(4000).optional(),
      attendees: z.array(z.email()).max(20).optional().describe('Email addresses to invite (optional)'),
    })
    .superRefine((v, ctx) => {
      // Catch a wall time the zone skips (DST) or an end before the start before anyone approves it.
      if (!v.timeZone) return;
      const parse = (value: string, path: string) => {
        try {
          return parseEventTime(value, v.timeZone as string);
        } catch (e) {
          ctx.addIssue({ code: 'custom', path: [path], message: e instanceof Error ? e.message : String(e) });
          return undefined;
        }
      };
      const start = parse(v.start, 'start');
      const end = v.end ? parse(v.end, 'end') : undefined;
      if (start && end && end <= start)
        ctx.addIssue({ code: 'custom', path: ['end'], message: 'the event must end after it starts' });
    }),
);

/**
 * "Sun 9 Mar 2025, 10:00–10:30 (America/New_York)" for approval cards. A wall time that happens twice (the
 * fall-back night) is resolved by luxon to the later, standard-time occurrence; the card says so, because
 * the person approving is the one who knows which 1:30 was meant.
 */
function describeWhen(i: z.infer<typeof createEventInput>): string {
  const zone = i.timeZone ?? 'UTC';
  try {
    const start = parseEventTime(i.start, zone);
    const end = i.end ? parseEventTime(i.end, zone) : start.plus({ minutes: i.durationMinutes ?? 60 });
    const sameDay = start.hasSame(end, 'day');
    const twice =
      i.timeZone && !/(Z|[+-]\d{2}:?\d{2})$/.test(i.start) && start.getPossibleOffsets().length > 1
        ? `; ${start.toFormat('HH:mm')} happens twice that night, this is the later one (${start.toFormat('ZZZZ')})`
        : '';
    return `${start.toFormat('ccc d LLL yyyy, HH:mm')}–${end.toFormat(sameDay ? 'HH:mm' : 'ccc d LLL HH:mm')}${i.timeZone ? ` (${i.timeZone}${twice})` : ''}`;
  } catch {
    return `${i.start}${i.end ? ` – ${i.end}` : ''}`;
  }
}

export const createCalendarEvent: Tool<typeof createEventInput, GoogleToolDeps> = {
  name: 'create_calendar_event',
  group: 'google',
  kind: 'write',
  description:
    'Put an event on the team calendar (showings, vendor visits). Local times are read in timeZone (default the team zone); a time the clocks skip for daylight saving is refused. Attendees are optional and get an invitation. Needs approval.',
  input: createEventInput,
  async run(deps, input, ctx) {
    const clientRef = actionRef(ctx, 'create_calendar_event');
    const timeZone = input.timeZone ?? ctx.timezone;
    const e = await writeCall(
      () =>
        deps.calendar.createEvent({
          title: input.summary,
          start: input.start,
          ...(input.end ? { end: input.end } : {}),
          ...(input.durationMinutes ? { durationMinutes: input.durationMinutes } : {}),
          timezone: timeZone,
          ...(input.location ? { location: input.location } : {}),
          ...(input.description ? { description: input.description } : {}),
          ...(input.attendees?.length ? { attendees: input.attendees } : {}),
          clientRef,
        }),
      HINTS.calendar,
      deps.writeRetry,
    );
    return { ...eventOut(e), timeZone };
  },
  async reconcile(deps, input, ctx) {
    const found = await deps.calendar.findCreated(actionRef(ctx, 'create_calendar_event'));
    return found
      ? { ...eventOut(found), timeZone: input.timeZone ?? ctx.timezone, reconciled: true }
      : undefined;
  },
  summarize: (i) =>
    `Add “${clip(i.summary, 80)}” to the calendar: ${describeWhen(i)}${i.attendees?.length ? `, inviting ${i.attendees.join(', ')}` : ''}`,
};

// ---------------------------------------------------------------- drive

const searchDriveInput = lazyInput(() =>
  z.object({
    query: z
      .string()
      .trim()
      .max(200)
      .optional()
      .describe('Words in the file name or content; empty = recent files'),
    kind: z.enum(['folder', 'doc', 'sheet', 'pdf']).optional(),
    folderId: z.string().trim().max(200).optional(),
    limit: z.number().int().min(1).max(50).default(10),
  }),
);

export const searchDrive: Tool<typeof searchDriveInput, GoogleToolDeps> = {
  name: 'search_drive',
  group: 'google',
  kind: 'read',
  description:
    'Find files in the shared Google Drive by words in their name or content (docs, sheets, PDFs, folders). Read them with read_google_doc, read_google_sheet or read_drive_pdf.',
  input: searchDriveInput,
  async run(deps, input) {
    const files = await readCall(
      () =>
        deps.drive.search({
          ...(input.query ? { query: input.query } : {}),
          ...(input.kind ? { kind: input.kind } : {}),
          ...(input.folderId ? { folderId: input.folderId } : {}),
          limit: input.limit,
        }),
      HINTS.drive,
    );
    return capOutput({ count: files.length, files }, OUTPUT_MAX);
  },
  summarize: (i) => `Search Drive for “${i.query ?? ''}”`,
};

const readTextInput = lazyInput(() =>
  z.object({
    id: z.string().trim().min(1).max(200).describe('File id from search_drive'),
    maxChars: z.number().int().min(200).max(MAX_TEXT).default(6_000),
  }),
);

/** Google answers 400 for a file of the wrong type (a sheet read as a doc); say which tools fit. */
const wrongKind: ErrorHints = {
  ...HINTS.drive,
  validation_failed:
    'Check the file type with search_drive: read_google_doc for docs, read_google_sheet for sheets, read_drive_pdf for PDFs.',
};

export const readGoogleDoc: Tool<typeof readTextInput, GoogleToolDeps> = {
  name: 'read_google_doc',
  group: 'google',
  kind: 'read',
  description: 'Read a Google Doc as text (headings, bullets and tables kept).',
  input: readTextInput,
  async run(deps, input) {
    const doc = await readCall(() => deps.drive.readDoc(input.id, { maxChars: input.maxChars }), wrongKind);
    return capOutput(doc, OUTPUT_MAX);
  },
  summarize: (i) => `Read Google Doc ${i.id}`,
};

const readSheetInput = lazyInput(() =>
  z.object({
    id: z.string().trim().min(1).max(200).describe('Spreadsheet id from search_drive'),
    range: z
      .string()
      .trim()
      .max(200)
      .optional()
      .describe('A tab name, an A1 range ("A1:D20") or both ("Rent roll!A1:D20"); default the first tab'),
    maxRows: z.number().int().min(1).max(500).default(100),
  }),
);

export const readGoogleSheet: Tool<typeof readSheetInput, GoogleToolDeps> = {
  name: 'read_google_sheet',
  group: 'google',
  kind: 'read',
  description: 'Read rows of a Google Sheet (formatted values). Lists every tab so you can read another one.',
  input: readSheetInput,
  async run(deps, input) {
    const sheet = await readCall(
      () =>
        deps.drive.readSheet(input.id, {
          ...(input.range ? { range: input.range } : {}),
          maxRows: input.maxRows,
        }),
      wrongKind,
    );
    // Cap by rows, not by characters, so the model never gets half a row.
    const rows: string[][] = [];
    let size = 0;
    for (const r of sheet.rows) {
      const cells = r.map((c) => clip(c, 500));
      size += JSON.stringify(cells).length;
      if (size > OUTPUT_MAX - 1_000) break;
      rows.push(cells);
    }
    return { ...sheet, rows, truncated: sheet.truncated || rows.length < sheet.rows.length };
  },
  summarize: (i) => `Read Google Sheet ${i.id}${i.range ? ` (${i.range})` : ''}`,
};

export const readDrivePdf: Tool<typeof readTextInput, GoogleToolDeps> = {
  name: 'read_drive_pdf',
  group: 'google',
  kind: 'read',
  description: 'Read the text of a PDF stored in the shared Drive (leases, invoices, notices).',
  input: readTextInput,
  async run(deps, input) {
    const pdf = await readCall(() => deps.drive.readPdf(input.id, { maxChars: input.maxChars }), wrongKind);
    return capOutput(pdf, OUTPUT_MAX);
  },
  summarize: (i) => `Read PDF ${i.id}`,
};

export const googleTools = [
  searchEmails,
  readEmail,
  sendEmail,
  listCalendarEvents,
  findFreeSlots,
  createCalendarEvent,
  searchDrive,
  readGoogleDoc,
  readGoogleSheet,
  readDrivePdf,
] as const;
