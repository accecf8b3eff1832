import { DateTime } from 'luxon';
import { DEMO_PEOPLE, type DemoPerson, TEAM_DOMAIN } from './demo-team';

/**
 * The demo team's Google Workspace: the shared inbox, its calendar and a Drive folder. Dates are relative
 * to `now` so a fresh `npm start` always has "today's" showings and "recent" unread mail. Vendor shapes
 * are built by the emulator from these plain records; nothing here knows about HTTP.
 */

/** The shared inbox the service account impersonates (domain-wide delegation `subject`). */
export const DEMO_MAILBOX = `office@${TEAM_DOMAIN}`;
export const DEMO_TIMEZONE = 'America/New_York';
/** Lead notifications arrive from this listing site address (the "leads source" of SPEC §4). */
export const DEMO_LEADS_SOURCE = 'leads@zillow.example';
export const DEMO_NOTIFICATIONS_SOURCE = 'notifications@clickup.example';

export interface SeedAttachment {
  filename: string;
  mimeType: string;
  data: Uint8Array;
}

export interface SeedEmail {
  /** Gmail ids are 16 hex digits; fixed here so tests and docs can name them. */
  id: string;
  /** Thread id = id of the thread's first message (Gmail's convention). */
  threadId: string;
  from: string;
  to: string;
  cc?: string;
  subject: string;
  text?: string;
  html?: string;
  attachments?: SeedAttachment[];
  labelIds: string[];
  internalDate: number;
  messageIdHeader: string;
  inReplyTo?: string;
  references?: string;
}

export type SeedEventTime = { dateTime: string; timeZone: string } | { date: string };

export interface SeedEvent {
  id: string;
  summary: string;
  description?: string;
  location?: string;
  start: SeedEventTime;
  end: SeedEventTime;
  attendees?: { email: string; displayName?: string; responseStatus?: string }[];
}

export type SeedDocBlock =
  | { kind: 'heading'; level: 1 | 2 | 3; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'bullet'; text: string }
  | { kind: 'table'; rows: string[][] };

export interface SeedDriveFile {
  id: string;
  name: string;
  mimeType: string;
  parents: string[];
  modifiedTime: string;
  doc?: SeedDocBlock[];
  sheets?: { title: string; rows: string[][] }[];
  /** Binary content (the PDF) and, for full-text search, the text it carries. */
  bytes?: Uint8Array;
  text?: string;
}

export interface GoogleSeed {
  mailbox: string;
  timezone: string;
  emails: SeedEmail[];
  events: SeedEvent[];
  files: SeedDriveFile[];
}

export const DRIVE_MIME = {
  folder: 'application/vnd.google-apps.folder',
  doc: 'application/vnd.google-apps.document',
  sheet: 'application/vnd.google-apps.spreadsheet',
  pdf: 'application/pdf',
} as const;

export const DEMO_DRIVE_IDS = {
  folder: '1OakPropertiesFolder0000000000001',
  procedures: '1MaintenanceProceduresDoc00000001',
  rentRoll: '1RentRollSheet0000000000000000001',
  leasePdf: '1LeaseSummaryPdf00000000000000001',
} as const;

function person(id: string): DemoPerson {
  const p = DEMO_PEOPLE.find((x) => x.id === id);
  if (!p) throw new Error(`demo person ${id} missing from demo-team.ts`);
  return p;
}

const named = (p: DemoPerson) => `${p.firstName} ${p.lastName} <${p.email}>`;

function escapePdfText(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\(/g, '\\(').replace(/\)/g, '\\)');
}

/**
 * A minimal but valid single-page PDF 1.4 (catalog, pages, page, content stream, Helvetica) whose text
 * objects carry `lines`. Built by hand so the repo holds no binary fixture; the xref offsets are computed,
 * so pdf.js (unpdf) parses it without falling back to its repair path.
 */
export function buildPdf(lines: string[]): Uint8Array {
  const content = [
    'BT',
    '/F1 12 Tf',
    '16 TL',
    '72 720 Td',
    ...lines.map((l) => `(${escapePdfText(l)}) Tj T*`),
    'ET',
  ].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xrefAt = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
}

export const LEASE_PDF_LINES = [
  'Lease summary: 12 Oak St #2',
  'Tenant: Maria Lopez',
  'Term: 2025-06-01 to 2026-05-31',
  'Monthly rent: $2,150, due on the 1st',
  'Pets: one cat allowed',
];

export function buildGoogleSeed(opts: { now?: Date } = {}): GoogleSeed {
  const now = opts.now ?? new Date();
  const ago = (minutes: number) => now.getTime() - minutes * 60_000;
  const maria = person('ct_maria');
  const david = person('ct_david');
  const bob = person('ct_bob');
  const lead = person('ct_lead');
  const office = `Oak Properties <${DEMO_MAILBOX}>`;

  const emails: SeedEmail[] = [
    {
      id: '18f0a00000000001',
      threadId: '18f0a00000000001',
      from: named(david),
      to: office,
      subject: 'Lease renewal question',
      text: 'Hi, my lease at 48 Elm Ave #5 ends in two months. Can I renew for 12 months at the same rent?\n\nThanks,\nDavid',
      labelIds: ['INBOX', 'CATEGORY_PERSONAL'],
      internalDate: ago(3 * 24 * 60),
      messageIdHeader: '<CAFdk1001@mail.example>',
    },
    {
      id: '18f0a00000000002',
      threadId: '18f0a00000000001',
      from: office,
      to: named(david),
      subject: 'Re: Lease renewal question',
      text: 'Hi David, yes — we can renew. We will send the paperwork this week.\n\nOak Properties',
      labelIds: ['SENT'],
      internalDate: ago(2 * 24 * 60),
      messageIdHeader: `<reply-2001@${TEAM_DOMAIN}>`,
      inReplyTo: '<CAFdk1001@mail.example>',
      references: '<CAFdk1001@mail.example>',
    },
    {
      id: '18f0a00000000003',
      threadId: '18f0a00000000001',
      from: named(david),
      to: office,
      subject: 'Re: Lease renewal question',
      text: [
        'Great, thank you. Could the new lease start on the 1st of next month?',
        '',
        'On Tue, Oak Properties wrote:',
        '> Hi David, yes — we can renew. We will send the paperwork this week.',
      ].join('\n'),
      labelIds: ['INBOX', 'UNREAD', 'CATEGORY_PERSONAL'],
      internalDate: ago(90),
      messageIdHeader: '<CAFdk1003@mail.example>',
      inReplyTo: `<reply-2001@${TEAM_DOMAIN}>`,
      references: `<CAFdk1001@mail.example> <reply-2001@${TEAM_DOMAIN}>`,
    },
    {
      id: '18f0a00000000004',
      threadId: '18f0a00000000004',
      from: named(maria),
      to: office,
      subject: 'Heater making a loud noise',
      text: 'Hello, the heater in 12 Oak St #2 is banging every few minutes since last night. Is someone able to look at it?\n\nMaria',
      html: '<p>Hello, the heater in <b>12 Oak St #2</b> is banging every few minutes since last night. Is someone able to look at it?</p><p>Maria</p>',
      labelIds: ['INBOX', 'UNREAD', 'CATEGORY_PERSONAL'],
      internalDate: ago(50),
      messageIdHeader: '<CAMl0004@mail.example>',
    },
    {
      id: '18f0a00000000005',
      threadId: '18f0a00000000005',
      from: 'HomeMart Deals <deals@homemart-promo.example>',
      to: office,
      subject: 'Spring sale: 20% off water heaters',
      html: '<h1>Spring sale</h1><p>20% off all water heaters this week only.</p>',
      labelIds: ['INBOX', 'UNREAD', 'CATEGORY_PROMOTIONS'],
      internalDate: ago(45),
      messageIdHeader: '<promo-5@homemart-promo.example>',
    },
    {
      id: '18f0a00000000006',
      threadId: '18f0a00000000006',
      from: `ClickUp <${DEMO_NOTIFICATIONS_SOURCE}>`,
      to: office,
      subject: 'Task assigned to you: Fix heater at 12 Oak St #2',
      text: 'Sam Chen assigned you a task in Maintenance: Fix heater at 12 Oak St #2.',
      labelIds: ['INBOX', 'UNREAD', 'CATEGORY_UPDATES'],
      internalDate: ago(40),
      messageIdHeader: '<notif-6@clickup.example>',
    },
    {
      id: '18f0a00000000007',
      threadId: '18f0a00000000007',
      from: `Zillow Rentals <${DEMO_LEADS_SOURCE}>`,
      to: office,
      subject: `New lead: ${lead.firstName} ${lead.lastName} is interested in 48 Elm Ave #3`,
      text: [
        `${lead.firstName} ${lead.lastName} wants to see 48 Elm Ave #3.`,
        `Phone: ${lead.phone}`,
        `Email: ${lead.email}`,
        'Move-in: next month. Credit score (self-reported): 700. Pets: none.',
      ].join('\n'),
      labelIds: ['INBOX', 'UNREAD', 'CATEGORY_UPDATES'],
      internalDate: ago(30),
      messageIdHeader: '<lead-7@zillow.example>',
    },
    {
      id: '18f0a00000000008',
      threadId: '18f0a00000000008',
      from: named(bob),
      to: office,
      subject: 'Invoice 1042 for 12 Oak St',
      html: '<div>Hi team,<br>attached is invoice <b>1042</b> for the pipe repair at 12 Oak St.<br>Total: $380.</div><div>Bob &amp; crew</div>',
      attachments: [
        {
          filename: 'invoice-1042.pdf',
          mimeType: 'application/pdf',
          data: buildPdf(['Invoice 1042', 'Total: $380']),
        },
      ],
      labelIds: ['INBOX', 'UNREAD', 'CATEGORY_PERSONAL'],
      internalDate: ago(20),
      messageIdHeader: '<inv-1042@martinezplumbing.example>',
    },
  ];

  const zone = DEMO_TIMEZONE;
  const today = DateTime.fromJSDate(now, { zone }).startOf('day');
  const at = (days: number, hour: number, minute = 0) =>
    today.plus({ days }).set({ hour, minute }).toISO({ suppressMilliseconds: true }) ?? '';
  const events: SeedEvent[] = [
    {
      id: 'plumber0visit0001',
      summary: 'Plumber visit: 12 Oak St #2 (Martinez Plumbing)',
      location: '12 Oak St #2',
      start: { dateTime: at(0, 15), timeZone: zone },
      end: { dateTime: at(0, 16), timeZone: zone },
      attendees: [{ email: bob.email, displayName: 'Bob Martinez', responseStatus: 'accepted' }],
    },
    {
      id: 'showing0elm0000001',
      summary: `Showing: 48 Elm Ave #3 with ${lead.firstName} ${lead.lastName}`,
      location: '48 Elm Ave #3',
      description: 'Lead from Zillow. Bring the application forms.',
      start: { dateTime: at(1, 10), timeZone: zone },
      end: { dateTime: at(1, 10, 30), timeZone: zone },
      attendees: [
        {
          email: lead.email,
          displayName: `${lead.firstName} ${lead.lastName}`,
          responseStatus: 'needsAction',
        },
        { email: person('ct_sam').email, displayName: 'Sam Chen', responseStatus: 'accepted' },
      ],
    },
    {
      id: 'showing0birch00002',
      summary: 'Showing: 7 Birch Rd (open house)',
      location: '7 Birch Rd',
      start: { dateTime: at(2, 14), timeZone: zone },
      end: { dateTime: at(2, 15), timeZone: zone },
    },
    {
      id: 'rent0due000000003',
      summary: 'Rent due',
      start: { date: today.plus({ months: 1 }).startOf('month').toISODate() ?? '' },
      end: { date: today.plus({ months: 1 }).startOf('month').plus({ days: 1 }).toISODate() ?? '' },
    },
  ];

  const modified = DateTime.fromJSDate(now).minus({ days: 7 }).toUTC().toISO() ?? '';
  const files: SeedDriveFile[] = [
    {
      id: DEMO_DRIVE_IDS.folder,
      name: 'Oak Properties',
      mimeType: DRIVE_MIME.folder,
      parents: ['root'],
      modifiedTime: modified,
    },
    {
      id: DEMO_DRIVE_IDS.procedures,
      name: 'Maintenance procedures',
      mimeType: DRIVE_MIME.doc,
      parents: [DEMO_DRIVE_IDS.folder],
      modifiedTime: modified,
      doc: [
        { kind: 'heading', level: 1, text: 'Maintenance procedures' },
        { kind: 'paragraph', text: 'Urgent issues (no heat, flooding, gas smell) are handled the same day.' },
        { kind: 'heading', level: 2, text: 'Heating' },
        { kind: 'bullet', text: 'Ask the tenant whether the thermostat has power.' },
        { kind: 'bullet', text: 'Call CoolAir HVAC for any heater noise or failure.' },
        { kind: 'heading', level: 2, text: 'Preferred vendors' },
        {
          kind: 'table',
          rows: [
            ['Trade', 'Vendor', 'Phone'],
            ['Plumbing', 'Martinez Plumbing', person('ct_bob').phone],
            ['HVAC', 'CoolAir HVAC', person('ct_hvac').phone],
          ],
        },
      ],
    },
    {
      id: DEMO_DRIVE_IDS.rentRoll,
      name: 'Rent roll',
      mimeType: DRIVE_MIME.sheet,
      parents: [DEMO_DRIVE_IDS.folder],
      modifiedTime: modified,
      sheets: [
        {
          title: 'Rent roll',
          rows: [
            ['Unit', 'Tenant', 'Monthly rent', 'Lease end', 'Balance'],
            ['12 Oak St #2', 'Maria Lopez', '2150', '2026-05-31', '0'],
            ['48 Elm Ave #5', 'David Kim', '1875', '2026-02-28', '0'],
            ['7 Birch Rd', 'Priya Nair', '2600', '2026-08-31', '150'],
            ['48 Elm Ave #3', '', '1950', '', ''],
          ],
        },
        {
          title: 'Vacancies',
          rows: [
            ['Unit', 'Available from'],
            ['48 Elm Ave #3', 'next month'],
          ],
        },
      ],
    },
    {
      id: DEMO_DRIVE_IDS.leasePdf,
      name: 'Lease summary - 12 Oak St #2.pdf',
      mimeType: DRIVE_MIME.pdf,
      parents: [DEMO_DRIVE_IDS.folder],
      modifiedTime: modified,
      bytes: buildPdf(LEASE_PDF_LINES),
      text: LEASE_PDF_LINES.join('\n'),
    },
  ];

  return { mailbox: DEMO_MAILBOX, timezone: DEMO_TIMEZONE, emails, events, files };
}
