import { generateKeyPairSync, type KeyObject, randomBytes, verify } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { DateTime } from 'luxon';
import { type DmarcOutcome, gmailAuthenticationResults } from './google/auth-results';
import { buildDocument, readRange } from './google/docs-sheets';
import { compileDriveQuery, type DriveFile, selectedFileFields } from './google/drive-query';
import { ApiError, googleError } from './google/errors';
import { GmailQuery } from './google/gmail-query';
import {
  composeRaw,
  type Header,
  headerValue,
  leaves,
  type MimeNode,
  nodeText,
  parseHeaderBlock,
  parseMime,
  stripHtml,
} from './google/mime';
import { readUpload } from './google/upload';
import { TEAM_DOMAIN } from './seed/demo-team';
import { buildGoogleSeed, DRIVE_MIME, type GoogleSeed, type SeedEvent } from './seed/google-data';

/**
 * A local stand-in for the Google Workspace REST APIs our adapters call (Gmail v1, Calendar v3, Drive v3,
 * Docs v1, Sheets v4) plus the OAuth 2 token endpoint used by service accounts. Request and response shapes
 * follow Google's published REST reference so the real `@googleapis/*` clients work unchanged: only their
 * `rootUrl` and the token URL point here. It is deliberately a subset (see the notes per API below) and it
 * listens on 127.0.0.1 only.
 *
 * Auth is real enough to catch mistakes: `/token` accepts the JWT-bearer grant, verifies the RS256 assertion
 * against the service account's public key, checks aud/exp/iat, the delegated `sub` and the scopes, then
 * issues an opaque access token that every API route requires (401 without it, 403 for a scope that does
 * not cover the API, 403 when `userId` is not the delegated user).
 */

/** The audience Google requires in a service-account assertion (google-auth-library hard-codes it). */
export const GOOGLE_TOKEN_AUDIENCE = 'https://oauth2.googleapis.com/token';

export interface ServiceAccountKey {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  auth_uri: string;
  token_uri: string;
  universe_domain: string;
}

interface GmailPart {
  partId: string;
  mimeType: string;
  filename: string;
  headers: Header[];
  body: { size: number; data?: string; attachmentId?: string };
  parts?: GmailPart[];
}

interface StoredMessage {
  id: string;
  threadId: string;
  labelIds: string[];
  internalDate: number;
  historyId: number;
  raw: string;
  payload: GmailPart;
  snippet: string;
  attachments: Map<string, string>;
  index: {
    from: string;
    to: string;
    cc: string;
    subject: string;
    text: string;
    messageId: string;
    filenames: string[];
  };
}

interface HistoryRecord {
  id: number;
  messages: { id: string; threadId: string }[];
  messagesAdded?: { message: { id: string; threadId: string; labelIds: string[] } }[];
  labelsAdded?: { message: { id: string; threadId: string; labelIds: string[] }; labelIds: string[] }[];
  labelsRemoved?: { message: { id: string; threadId: string; labelIds: string[] }; labelIds: string[] }[];
}

interface MailboxState {
  address: string;
  messages: Map<string, StoredMessage>;
  history: HistoryRecord[];
  historyId: number;
}

interface StoredEvent {
  id: string;
  summary?: string;
  description?: string;
  location?: string;
  /** Instants for timed events; for all-day events, the calendar-zone midnights of start and end dates. */
  startMs: number;
  endMs: number;
  allDay?: { start: string; end: string };
  timeZone?: string;
  attendees: { email: string; displayName?: string; responseStatus: string; optional?: boolean }[];
  created: string;
  updated: string;
  sendUpdates?: string;
}

interface CalendarState {
  id: string;
  summary: string;
  timeZone: string;
  events: Map<string, StoredEvent>;
}

/** A sent message as recorded by `messages.send`, for assertions in tests. */
export interface SentRecord {
  id: string;
  threadId: string;
  /** The threadId the client asked for; differs from `threadId` when Gmail would have started a new thread. */
  requestedThreadId?: string;
  from: string;
  to: string;
  cc: string;
  subject: string;
  messageIdHeader: string;
  inReplyTo: string;
  references: string;
  text: string;
  headers: Header[];
}

export interface DeliverEmailInput {
  from: string;
  to?: string;
  subject: string;
  text?: string;
  html?: string;
  labelIds?: string[];
  internalDate?: number;
  threadId?: string;
  messageIdHeader?: string;
  inReplyTo?: string;
  references?: string;
  /** Defaults to the seeded shared inbox. */
  mailbox?: string;
  /**
   * Gmail's DMARC verdict stamped in `Authentication-Results` as the mail arrives (default `pass`: mail from
   * a domain that signs its mail). `fail` is a forged From, e.g. outside mail claiming the team's domain.
   */
  dmarc?: DmarcOutcome;
}

interface Override {
  prefix: string;
  status: number;
  body?: string;
  headers?: Record<string, string>;
  remaining: number;
}

export interface GoogleEmulatorState {
  /** The next `times` requests whose path starts with `pathPrefix` get `status` with a Google error body. */
  failNext(
    pathPrefix: string,
    status: number,
    opts?: { times?: number; headers?: Record<string, string> },
  ): void;
  /** The next matching requests get exactly this response (e.g. a 200 with a malformed body). */
  respondNext(
    pathPrefix: string,
    res: { status: number; body: string; headers?: Record<string, string>; times?: number },
  ): void;
  /** Drops every pending failNext/respondNext. */
  clearFailures(): void;
  /** Simulates inbound mail arriving in a mailbox (history, labels and search index updated like Gmail). */
  deliverEmail(input: DeliverEmailInput): { id: string; threadId: string };
  sent(mailbox?: string): SentRecord[];
  message(id: string, mailbox?: string): { id: string; threadId: string; labelIds: string[] } | undefined;
  events(calendarId?: string): StoredEvent[];
  /** Invalidates every issued access token (the next API call answers 401). */
  revokeTokens(): void;
  /** Makes `messages.send` replace the client's Message-ID with its own, to test reconciliation fallbacks. */
  replaceSentMessageIds(on: boolean): void;
  readonly tokensIssued: number;
  /** Every delegated token request: the scopes asked for and whether they were granted. */
  readonly tokenRequests: Array<{ subject?: string; scopes: string[]; granted: boolean }>;
  readonly requests: RequestRecord[];
}

/** One request as the emulator saw it, for asserting what a client library actually sends. */
export interface RequestRecord {
  method: string;
  path: string;
  status: number;
  /** The query string with its `?`, or ''. */
  search: string;
  contentType?: string;
}

export interface GoogleEmulator {
  url: string;
  tokenUrl: string;
  /** A freshly generated key for this run, with `token_uri` pointing at this emulator. Never a real key. */
  serviceAccount: ServiceAccountKey;
  serviceAccountJson: string;
  /** The seeded shared inbox (the domain-wide delegation subject). */
  mailbox: string;
  timezone: string;
  /** The configuration (config.ts names) that points the production adapters at this emulator. */
  env: {
    GOOGLE_API_BASE: string;
    GOOGLE_TOKEN_URL: string;
    GOOGLE_SERVICE_ACCOUNT_JSON: string;
    GOOGLE_IMPERSONATE_USER: string;
  };
  state: GoogleEmulatorState;
  /** What the emulated Workspace admin delegated; tests and `npm run doctor` states change it live. */
  delegatedScopes: Set<string>;
  stop(): Promise<void>;
}

export interface GoogleEmulatorOptions {
  port?: number;
  /** Seed data; `false` starts empty. Defaults to the demo team (`buildGoogleSeed`). */
  seed?: GoogleSeed | false;
  /** Scopes the emulated Workspace admin granted the service account for delegation. */
  delegatedScopes?: string[];
}

const DEFAULT_DELEGATED_SCOPES = [
  'https://mail.google.com/',
  'https://www.googleapis.com/auth/gmail.modify',
  'https://www.googleapis.com/auth/gmail.readonly',
  'https://www.googleapis.com/auth/gmail.send',
  'https://www.googleapis.com/auth/gmail.insert',
  'https://www.googleapis.com/auth/calendar',
  'https://www.googleapis.com/auth/calendar.events',
  'https://www.googleapis.com/auth/calendar.readonly',
  'https://www.googleapis.com/auth/drive',
  'https://www.googleapis.com/auth/drive.readonly',
  'https://www.googleapis.com/auth/documents.readonly',
  'https://www.googleapis.com/auth/spreadsheets.readonly',
];

// ---------------------------------------------------------------- the server

function b64urlJson(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

function newGmailId(): string {
  return randomBytes(8).toString('hex');
}

/** `users.messages.insert` in both forms: the JSON call and the media-upload one. */
const GMAIL_INSERT_PATH = /^\/(upload\/)?gmail\/v1\/users\/[^/]+\/messages$/;

/** Gmail's system label ids; user labels are `Label_<n>`. Anything else is refused, as Gmail does. */
const GMAIL_SYSTEM_LABELS = new Set([
  'INBOX',
  'SPAM',
  'TRASH',
  'UNREAD',
  'STARRED',
  'IMPORTANT',
  'SENT',
  'DRAFT',
  'CHAT',
  'CATEGORY_PERSONAL',
  'CATEGORY_SOCIAL',
  'CATEGORY_PROMOTIONS',
  'CATEGORY_UPDATES',
  'CATEGORY_FORUMS',
]);

/** What `state.deliverEmail` and `messages.insert` without `labelIds` file mail under: unread in the inbox. */
const DELIVERED_LABELS = ['INBOX', 'UNREAD', 'CATEGORY_PERSONAL'];

/** Calendar event ids: base32hex characters (a–v, 0–9), 5 to 1024 long (Calendar API reference, Event.id). */
const EVENT_ID_RE = /^[a-v0-9]{5,1024}$/;

export async function startGoogleEmulator(opts: GoogleEmulatorOptions = {}): Promise<GoogleEmulator> {
  const seed = opts.seed === false ? undefined : (opts.seed ?? buildGoogleSeed());
  const delegatedScopes = new Set(opts.delegatedScopes ?? DEFAULT_DELEGATED_SCOPES);
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const clientEmail = `switchboard@switchboard-local.iam.gserviceaccount.com`;
  const accounts = new Map<string, KeyObject>([[clientEmail, publicKey]]);
  const tokens = new Map<string, { subject?: string; scopes: string[]; expiresAt: number }>();
  let tokensIssued = 0;
  const tokenRequests: Array<{ subject?: string; scopes: string[]; granted: boolean }> = [];
  let replaceMessageIds = false;
  const overrides: Override[] = [];
  const requests: RequestRecord[] = [];
  const mailboxes = new Map<string, MailboxState>();
  const sent = new Map<string, SentRecord[]>();
  const calendars = new Map<string, CalendarState>();
  const files = new Map<string, DriveFile>();
  const defaultTz = seed?.timezone ?? 'America/New_York';
  /** The shared inbox (the delegation subject); with `seed: false` still the team's, only empty. */
  const defaultMailbox = seed?.mailbox ?? `office@${TEAM_DOMAIN}`;
  const domain = defaultMailbox.split('@')[1] ?? TEAM_DOMAIN;

  const mailboxFor = (address: string): MailboxState => {
    const key = address.toLowerCase();
    let mb = mailboxes.get(key);
    if (!mb) {
      mb = { address: key, messages: new Map(), history: [], historyId: 1000 };
      mailboxes.set(key, mb);
    }
    return mb;
  };
  const calendarFor = (address: string): CalendarState => {
    const key = address.toLowerCase();
    let cal = calendars.get(key);
    if (!cal) {
      cal = { id: key, summary: key, timeZone: defaultTz, events: new Map() };
      calendars.set(key, cal);
    }
    return cal;
  };

  const summary = (m: StoredMessage) => ({ id: m.id, threadId: m.threadId, labelIds: [...m.labelIds] });

  const record = (mb: MailboxState, entry: Omit<HistoryRecord, 'id'>): number => {
    mb.historyId += 1;
    mb.history.push({ id: mb.historyId, ...entry });
    return mb.historyId;
  };

  const store = (
    mb: MailboxState,
    input: { id?: string; threadId?: string; raw: string; labelIds: string[]; internalDate: number },
  ): StoredMessage => {
    const id = input.id ?? newGmailId();
    const root = parseMime(input.raw);
    const attachments = new Map<string, string>();
    const toPart = (node: MimeNode, partId: string): GmailPart => {
      const base = { partId, mimeType: node.mimeType, filename: node.filename, headers: node.headers };
      if (node.children.length) {
        return {
          ...base,
          body: { size: 0 },
          parts: node.children.map((c, i) => toPart(c, partId === '' ? String(i) : `${partId}.${i}`)),
        };
      }
      const data = node.body.toString('base64url');
      if (node.filename) {
        const attachmentId = `ANGjdJ${id}${partId.replace(/\./g, '_')}${randomBytes(6).toString('hex')}`;
        attachments.set(attachmentId, data);
        return { ...base, body: { size: node.body.length, attachmentId } };
      }
      return { ...base, body: { size: node.body.length, data } };
    };
    const payload = toPart(root, '');
    const bodyLeaves = leaves(root).filter((l) => !l.filename);
    const plain = bodyLeaves.filter((l) => l.mimeType === 'text/plain').map(nodeText);
    const html = bodyLeaves.filter((l) => l.mimeType === 'text/html').map((l) => stripHtml(nodeText(l)));
    const text = (plain.length ? plain : html).join('\n');
    const h = (n: string) => headerValue(root.headers, n) ?? '';
    const message: StoredMessage = {
      id,
      threadId: input.threadId ?? id,
      labelIds: [...input.labelIds],
      internalDate: input.internalDate,
      historyId: 0,
      raw: input.raw,
      payload,
      snippet: text.replace(/\s+/g, ' ').trim().slice(0, 200),
      attachments,
      index: {
        from: h('From').toLowerCase(),
        to: h('To').toLowerCase(),
        cc: h('Cc').toLowerCase(),
        subject: h('Subject').toLowerCase(),
        text: text.toLowerCase(),
        messageId: h('Message-ID').replace(/^<|>$/g, '').toLowerCase(),
        filenames: leaves(root)
          .filter((l) => l.filename)
          .map((l) => l.filename.toLowerCase()),
      },
    };
    mb.messages.set(id, message);
    message.historyId = record(mb, {
      messages: [{ id, threadId: message.threadId }],
      messagesAdded: [{ message: summary(message) }],
    });
    return message;
  };

  for (const e of seed?.emails ?? []) {
    store(mailboxFor(seed?.mailbox ?? ''), {
      id: e.id,
      threadId: e.threadId,
      labelIds: e.labelIds,
      internalDate: e.internalDate,
      raw: composeRaw({ ...e, date: new Date(e.internalDate) }),
    });
  }
  if (seed) {
    const cal = calendarFor(seed.mailbox);
    cal.summary = 'Oak Properties';
    cal.timeZone = seed.timezone;
    for (const ev of seed.events)
      cal.events.set(ev.id, eventFromInput(ev, cal.timeZone, new Date().toISOString()));
    for (const f of seed.files) {
      files.set(f.id, { ...f, trashed: false, createdTime: f.modifiedTime, size: f.bytes?.length });
    }
  }

  const app = new Hono();

  app.onError((err, c) => {
    if (err instanceof ApiError)
      return c.json(googleError(err.status, err.message, err.reason), err.status as 400);
    return c.json(googleError(500, String(err)), 500);
  });
  app.notFound((c) => c.json(googleError(404, `Not found: ${c.req.path}`), 404));

  app.use('*', async (c, next) => {
    const path = c.req.path;
    const search = new URL(c.req.url).search;
    const contentType = c.req.header('content-type');
    const seen = { method: c.req.method, path, search, ...(contentType ? { contentType } : {}) };
    // Prefixes match the path plus query string, so a test can target e.g. `…/files/ID?alt=media`.
    const target = path + search;
    const o = overrides.find((x) => target.startsWith(x.prefix));
    if (o) {
      o.remaining -= 1;
      if (o.remaining <= 0) overrides.splice(overrides.indexOf(o), 1);
      requests.push({ ...seen, status: o.status });
      const headers = { 'content-type': 'application/json; charset=UTF-8', ...o.headers };
      const body = o.body ?? JSON.stringify(googleError(o.status));
      return new Response(body, { status: o.status, headers });
    }
    await next();
    requests.push({ ...seen, status: c.res.status });
  });

  app.post('/token', async (c) => {
    const form = await c.req.parseBody();
    const oauthError = (status: 400 | 401, error: string, description: string) =>
      c.json({ error, error_description: description }, status);
    if (
      form.grant_type !== 'urn:ietf:params:oauth:grant-type:jwt-bearer' ||
      typeof form.assertion !== 'string'
    ) {
      return oauthError(400, 'unsupported_grant_type', 'Invalid grant_type: expected the JWT bearer grant.');
    }
    const [h = '', p = '', sig = ''] = form.assertion.split('.');
    const header = b64urlJson(h) as { alg?: string } | undefined;
    const claims = b64urlJson(p) as
      | { iss?: string; sub?: string; aud?: string; scope?: string; iat?: number; exp?: number }
      | undefined;
    if (!header || !claims || header.alg !== 'RS256') return oauthError(400, 'invalid_grant', 'Invalid JWT.');
    const key = claims.iss ? accounts.get(claims.iss) : undefined;
    if (!key) return oauthError(400, 'invalid_grant', 'Invalid grant: account not found');
    if (!verify('RSA-SHA256', Buffer.from(`${h}.${p}`), key, Buffer.from(sig, 'base64url'))) {
      return oauthError(400, 'invalid_grant', 'Invalid JWT Signature.');
    }
    const now = Math.floor(Date.now() / 1000);
    const tokenUrl = new URL('/token', c.req.url).href;
    if (claims.aud !== GOOGLE_TOKEN_AUDIENCE && claims.aud !== tokenUrl) {
      return oauthError(400, 'invalid_grant', 'Invalid JWT: Failed audience check.');
    }
    if (
      typeof claims.iat !== 'number' ||
      typeof claims.exp !== 'number' ||
      claims.exp <= now ||
      claims.iat > now + 300 ||
      claims.exp - claims.iat > 3600
    ) {
      return oauthError(
        400,
        'invalid_grant',
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
      );
    }
    const scopes = (claims.scope ?? '').split(/\s+/).filter(Boolean);
    if (!scopes.length) return oauthError(400, 'invalid_scope', 'Empty or missing scope not allowed.');
    if (claims.sub !== undefined) {
      if (!claims.sub.toLowerCase().endsWith(`@${domain}`)) {
        return oauthError(400, 'invalid_grant', 'Invalid email or User ID');
      }
      const granted = scopes.every((s) => delegatedScopes.has(s));
      tokenRequests.push({ subject: claims.sub.toLowerCase(), scopes, granted });
      if (!granted) {
        return oauthError(
          401,
          'unauthorized_client',
          'Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested.',
        );
      }
    }
    const accessToken = `ya29.emu-${randomBytes(24).toString('base64url')}`;
    tokens.set(accessToken, { subject: claims.sub?.toLowerCase(), scopes, expiresAt: Date.now() + 3600_000 });
    tokensIssued += 1;
    return c.json({ access_token: accessToken, expires_in: 3599, token_type: 'Bearer' });
  });

  type Family = 'gmail' | 'calendar' | 'drive' | 'docs' | 'sheets';
  const familyOf = (path: string): Family | undefined =>
    path.startsWith('/gmail/') || path.startsWith('/upload/gmail/')
      ? 'gmail'
      : path.startsWith('/calendar/')
        ? 'calendar'
        : path.startsWith('/drive/')
          ? 'drive'
          : path.startsWith('/v1/documents')
            ? 'docs'
            : path.startsWith('/v4/spreadsheets')
              ? 'sheets'
              : undefined;
  const scopeAllows = (family: Family, write: boolean, path: string, scopes: string[]) =>
    scopes.some((s) => {
      const name = s.replace('https://www.googleapis.com/auth/', '');
      if (family === 'gmail') {
        if (s === 'https://mail.google.com/' || name === 'gmail.modify') return true;
        if (!write) return name === 'gmail.readonly';
        if (name === 'gmail.insert') return GMAIL_INSERT_PATH.test(path);
        return name === 'gmail.send' && path.endsWith('/messages/send');
      }
      if (family === 'calendar')
        return name === 'calendar' || name === 'calendar.events' || (!write && name.startsWith('calendar'));
      if (family === 'drive') return name === 'drive' || (!write && name.startsWith('drive'));
      if (family === 'docs') return name.startsWith('documents') || name.startsWith('drive');
      return name.startsWith('spreadsheets') || name.startsWith('drive');
    });

  app.use('*', async (c, next) => {
    const family = familyOf(c.req.path);
    if (!family) return next();
    const auth = c.req.header('authorization') ?? '';
    const token = /^Bearer\s+(.+)$/i.exec(auth)?.[1];
    const grant = token ? tokens.get(token) : undefined;
    if (!grant || grant.expiresAt < Date.now()) {
      c.header('WWW-Authenticate', 'Bearer realm="https://accounts.google.com/", error="invalid_token"');
      return c.json(googleError(401), 401);
    }
    // freeBusy.query is a POST that only reads: calendar.readonly covers it.
    const write = c.req.method !== 'GET' && c.req.path !== '/calendar/v3/freeBusy';
    if (!scopeAllows(family, write, c.req.path, grant.scopes)) {
      return c.json(
        googleError(403, 'Request had insufficient authentication scopes.', 'insufficientPermissions'),
        403,
      );
    }
    c.set('grant' as never, grant as never);
    return next();
  });

  const grantOf = (c: Context) => c.get('grant' as never) as { subject?: string; scopes: string[] };
  /** `userId` must be `me` or the delegated user; a service account without `sub` has no mailbox. */
  const userMailbox = (c: Context): MailboxState => {
    const subject = grantOf(c).subject;
    if (!subject) throw new ApiError(400, 'Precondition check failed.', 'failedPrecondition');
    const userId = (c.req.param('userId') ?? 'me').toLowerCase();
    if (userId !== 'me' && userId !== subject)
      throw new ApiError(403, `Delegation denied for ${subject}`, 'forbidden');
    return mailboxFor(subject);
  };
  const query = (c: Context, name: string) => c.req.query(name);
  const queries = (c: Context, name: string) => c.req.queries(name) ?? [];
  const intParam = (c: Context, name: string, def: number, max: number) => {
    const v = query(c, name);
    if (v === undefined) return def;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new ApiError(400, `Invalid value for ${name}: ${v}`, 'invalid');
    return Math.min(n, max);
  };
  const jsonBody = async (c: Context): Promise<Record<string, unknown>> => {
    try {
      const body = await c.req.json();
      if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('not an object');
      return body as Record<string, unknown>;
    } catch {
      throw new ApiError(400, 'Invalid JSON payload received.', 'parseError');
    }
  };

  // ---- Gmail

  app.get('/gmail/v1/users/:userId/profile', (c) => {
    const mb = userMailbox(c);
    return c.json({
      emailAddress: mb.address,
      messagesTotal: mb.messages.size,
      threadsTotal: new Set([...mb.messages.values()].map((m) => m.threadId)).size,
      historyId: String(mb.historyId),
    });
  });

  app.get('/gmail/v1/users/:userId/messages', (c) => {
    const mb = userMailbox(c);
    const q = query(c, 'q') ?? '';
    const pred = GmailQuery.compile(q, Date.now());
    const labelIds = queries(c, 'labelIds');
    const includeSpamTrash = query(c, 'includeSpamTrash') === 'true';
    const max = intParam(c, 'maxResults', 100, 500) || 100;
    const offset = Number(query(c, 'pageToken') ?? '0') || 0;
    const matches = [...mb.messages.values()]
      .filter((m) => includeSpamTrash || !m.labelIds.some((l) => l === 'SPAM' || l === 'TRASH'))
      .filter((m) => labelIds.every((l) => m.labelIds.includes(l)))
      .filter(pred)
      .sort((a, b) => b.internalDate - a.internalDate);
    const page = matches.slice(offset, offset + max);
    return c.json({
      ...(page.length ? { messages: page.map((m) => ({ id: m.id, threadId: m.threadId })) } : {}),
      ...(offset + max < matches.length ? { nextPageToken: String(offset + max) } : {}),
      resultSizeEstimate: matches.length,
    });
  });

  const renderMessage = (m: StoredMessage, format: string, metadataHeaders: string[]) => {
    const base = {
      id: m.id,
      threadId: m.threadId,
      labelIds: m.labelIds,
      snippet: m.snippet,
      historyId: String(m.historyId),
      internalDate: String(m.internalDate),
      sizeEstimate: Buffer.byteLength(m.raw),
    };
    if (format === 'minimal') return base;
    if (format === 'raw') return { ...base, raw: Buffer.from(m.raw, 'utf8').toString('base64url') };
    if (format === 'metadata') {
      const wanted = metadataHeaders.map((h) => h.toLowerCase());
      const headers = wanted.length
        ? m.payload.headers.filter((h) => wanted.includes(h.name.toLowerCase()))
        : m.payload.headers;
      return {
        ...base,
        payload: { partId: '', mimeType: m.payload.mimeType, filename: '', headers, body: { size: 0 } },
      };
    }
    if (format !== 'full')
      throw new ApiError(400, `Invalid value at 'format' (${format})`, 'invalidArgument');
    return { ...base, payload: m.payload };
  };

  /**
   * Gmail keeps a message in the requested thread only when the thread exists, References or In-Reply-To
   * names a message in it, and the subjects match (Gmail API guide, "Managing threads"); otherwise the
   * message starts a thread of its own.
   */
  const threadFor = (mb: MailboxState, requestedThreadId: string | undefined, headers: Header[]) => {
    if (!requestedThreadId) return undefined;
    const h = (n: string) => headerValue(headers, n) ?? '';
    const normalize = (s: string) =>
      s
        .replace(/^\s*((re|fwd?|aw)\s*:\s*)+/i, '')
        .trim()
        .toLowerCase();
    const inThread = [...mb.messages.values()].filter((m) => m.threadId === requestedThreadId);
    const referenced = `${h('References')} ${h('In-Reply-To')}`
      .split(/\s+/)
      .map((x) => x.replace(/^<|>$/g, '').toLowerCase())
      .filter(Boolean);
    const linked = inThread.some((m) => referenced.includes(m.index.messageId));
    const sameSubject = inThread.some((m) => normalize(m.index.subject) === normalize(h('Subject')));
    return inThread.length && linked && sameSubject ? requestedThreadId : undefined;
  };

  const findMessage = (mb: MailboxState, id: string) => {
    const m = mb.messages.get(id);
    if (!m) throw new ApiError(404);
    return m;
  };

  app.post('/gmail/v1/users/:userId/messages/send', async (c) => {
    const mb = userMailbox(c);
    const body = await jsonBody(c);
    if (typeof body.raw !== 'string' || body.raw === '')
      throw new ApiError(
        400,
        "'raw' RFC822 payload message string or uploading message via /upload/* URL required",
        'invalidArgument',
      );
    const raw = Buffer.from(body.raw, 'base64url').toString('utf8');
    const parsed = parseMime(raw);
    const h = (n: string) => headerValue(parsed.headers, n) ?? '';
    const to = h('To');
    if (!to && !h('Cc') && !h('Bcc')) throw new ApiError(400, 'Invalid To header', 'invalidArgument');
    const requestedThreadId = typeof body.threadId === 'string' ? body.threadId : undefined;
    const threadId = threadFor(mb, requestedThreadId, parsed.headers);
    let rawToStore = raw;
    if (!h('Message-ID') || replaceMessageIds) {
      const own = `Message-ID: <${randomBytes(12).toString('hex')}@mail.gmail.com>`;
      rawToStore = h('Message-ID') ? raw.replace(/^Message-ID:.*$/im, own) : `${own}\r\n${raw}`;
    }
    const m = store(mb, { threadId, raw: rawToStore, labelIds: ['SENT'], internalDate: Date.now() });
    const plain = leaves(parsed)
      .filter((l) => !l.filename && l.mimeType === 'text/plain')
      .map(nodeText)
      .join('\n');
    const list = sent.get(mb.address) ?? [];
    list.push({
      id: m.id,
      threadId: m.threadId,
      requestedThreadId,
      from: h('From'),
      to,
      cc: h('Cc'),
      subject: h('Subject'),
      messageIdHeader:
        headerValue(parseHeaderBlock(rawToStore.split(/\r?\n\r?\n/)[0] ?? ''), 'Message-ID') ?? '',
      inReplyTo: h('In-Reply-To'),
      references: h('References'),
      text: plain,
      headers: parsed.headers,
    });
    sent.set(mb.address, list);
    return c.json(summary(m));
  });

  /**
   * `users.messages.insert`: files a message straight into the mailbox (like IMAP APPEND) without sending
   * it — how mail "arrives" for the local stack. Stored exactly as `state.deliverEmail` stores mail: a
   * `messagesAdded` history record, labels, search index, thread.
   */
  const insertMessage = (
    c: Context,
    mb: MailboxState,
    input: { raw: Buffer; labelIds: unknown; threadId: unknown },
  ) => {
    const raw = input.raw.toString('utf8');
    const parsed = parseMime(raw);
    if (!parsed.headers.length)
      throw new ApiError(400, 'Invalid RFC 822 message: no header fields.', 'invalidArgument');
    if (input.labelIds !== undefined && !Array.isArray(input.labelIds))
      throw new ApiError(400, "Invalid value at 'message.label_ids'", 'invalidArgument');
    const labelIds = (input.labelIds as unknown[] | undefined) ?? DELIVERED_LABELS;
    for (const l of labelIds) {
      if (typeof l !== 'string' || !(GMAIL_SYSTEM_LABELS.has(l) || /^Label_\d+$/.test(l)))
        throw new ApiError(400, `Invalid label: ${String(l)}`, 'invalidArgument');
    }
    if (input.threadId !== undefined && typeof input.threadId !== 'string')
      throw new ApiError(400, "Invalid value at 'message.thread_id'", 'invalidArgument');
    if (query(c, 'deleted') === 'true')
      throw new ApiError(
        400,
        'deleted=true (Vault-only messages) is not supported by this emulator.',
        'invalidArgument',
      );
    const source = query(c, 'internalDateSource') ?? 'receivedTime';
    if (source !== 'receivedTime' && source !== 'dateHeader') {
      throw new ApiError(
        400,
        `Invalid value at 'internal_date_source' (type.googleapis.com/google.apps.gmail.v1.InsertMessageRequest.InternalDateSource), "${source}"`,
        'invalidArgument',
      );
    }
    // dateHeader uses the Date header "when valid" (API reference); otherwise the time it was received.
    const dated = Date.parse(headerValue(parsed.headers, 'Date') ?? '');
    const internalDate = source === 'dateHeader' && Number.isFinite(dated) ? dated : Date.now();
    const m = store(mb, {
      threadId: threadFor(mb, input.threadId as string | undefined, parsed.headers),
      labelIds: [...new Set(labelIds as string[])],
      internalDate,
      raw,
    });
    return c.json(summary(m));
  };

  app.post('/gmail/v1/users/:userId/messages', async (c) => {
    const mb = userMailbox(c);
    const body = await jsonBody(c);
    if (typeof body.raw !== 'string' || body.raw === '')
      throw new ApiError(
        400,
        "'raw' RFC822 payload message string or uploading message via /upload/* URL required",
        'invalidArgument',
      );
    // proto3 JSON bytes: base64 in either alphabet, padding optional.
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(body.raw) || body.raw.replace(/=+$/, '').length % 4 === 1) {
      throw new ApiError(
        400,
        `Invalid value at 'message.raw' (TYPE_BYTES), Base64 decoding failed for "${body.raw.slice(0, 40)}"`,
        'invalidArgument',
      );
    }
    return insertMessage(c, mb, {
      raw: Buffer.from(body.raw, 'base64url'),
      labelIds: body.labelIds,
      threadId: body.threadId,
    });
  });

  // The same method through the upload protocol: what the googleapis client sends when given `media`.
  app.post('/upload/gmail/v1/users/:userId/messages', async (c) => {
    const mb = userMailbox(c);
    const upload = readUpload(
      query(c, 'uploadType'),
      c.req.header('content-type') ?? '',
      Buffer.from(await c.req.arrayBuffer()),
      (type) => type.startsWith('message/'),
      'message/*',
    );
    if (!upload.media.length) throw new ApiError(400, 'Media message is empty.', 'invalidArgument');
    return insertMessage(c, mb, {
      raw: upload.media,
      labelIds: upload.metadata.labelIds,
      threadId: upload.metadata.threadId,
    });
  });

  app.get('/gmail/v1/users/:userId/messages/:messageId/attachments/:id', (c) => {
    const m = findMessage(userMailbox(c), c.req.param('messageId'));
    const data = m.attachments.get(c.req.param('id'));
    if (data === undefined) throw new ApiError(404);
    return c.json({ size: Buffer.from(data, 'base64url').length, data });
  });

  app.get('/gmail/v1/users/:userId/messages/:id', (c) => {
    const m = findMessage(userMailbox(c), c.req.param('id'));
    return c.json(renderMessage(m, query(c, 'format') ?? 'full', queries(c, 'metadataHeaders')));
  });

  app.post('/gmail/v1/users/:userId/messages/:id/modify', async (c) => {
    const mb = userMailbox(c);
    const m = findMessage(mb, c.req.param('id'));
    const body = await jsonBody(c);
    const list = (v: unknown) =>
      Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
    const add = list(body.addLabelIds).filter((l) => !m.labelIds.includes(l));
    const remove = list(body.removeLabelIds).filter((l) => m.labelIds.includes(l));
    m.labelIds = [...m.labelIds.filter((l) => !remove.includes(l)), ...add];
    if (add.length)
      record(mb, {
        messages: [{ id: m.id, threadId: m.threadId }],
        labelsAdded: [{ message: summary(m), labelIds: add }],
      });
    if (remove.length) {
      record(mb, {
        messages: [{ id: m.id, threadId: m.threadId }],
        labelsRemoved: [{ message: summary(m), labelIds: remove }],
      });
    }
    if (add.length || remove.length) m.historyId = mb.historyId;
    return c.json(summary(m));
  });

  app.get('/gmail/v1/users/:userId/threads/:id', (c) => {
    const mb = userMailbox(c);
    const id = c.req.param('id');
    const messages = [...mb.messages.values()]
      .filter((m) => m.threadId === id)
      .sort((a, b) => a.internalDate - b.internalDate);
    if (!messages.length) throw new ApiError(404);
    const format = query(c, 'format') ?? 'full';
    return c.json({
      id,
      historyId: String(Math.max(...messages.map((m) => m.historyId))),
      messages: messages.map((m) => renderMessage(m, format, queries(c, 'metadataHeaders'))),
    });
  });

  app.get('/gmail/v1/users/:userId/history', (c) => {
    const mb = userMailbox(c);
    const startRaw = query(c, 'startHistoryId');
    if (!startRaw || !/^\d+$/.test(startRaw))
      throw new ApiError(400, 'Invalid startHistoryId', 'invalidArgument');
    const start = Number(startRaw);
    const oldest = mb.history[0]?.id ?? mb.historyId + 1;
    // Gmail answers 404 when the start id is older than the history it still keeps.
    if (start < oldest - 1) throw new ApiError(404);
    const types = queries(c, 'historyTypes');
    const labelId = query(c, 'labelId');
    const max = intParam(c, 'maxResults', 100, 500) || 100;
    const offset = Number(query(c, 'pageToken') ?? '0') || 0;
    const typeKey: Record<string, keyof HistoryRecord> = {
      messageAdded: 'messagesAdded',
      labelAdded: 'labelsAdded',
      labelRemoved: 'labelsRemoved',
    };
    const matching = mb.history
      .filter((r) => r.id > start)
      .filter((r) => !types.length || types.some((t) => typeKey[t] && r[typeKey[t] as keyof HistoryRecord]))
      .filter((r) => !labelId || r.messages.some((x) => mb.messages.get(x.id)?.labelIds.includes(labelId)))
      .map((r) => ({ ...r, id: String(r.id) }));
    const page = matching.slice(offset, offset + max);
    return c.json({
      ...(page.length ? { history: page } : {}),
      ...(offset + max < matching.length ? { nextPageToken: String(offset + max) } : {}),
      historyId: String(mb.historyId),
    });
  });

  // ---- Calendar

  const userCalendar = (c: Context): CalendarState => {
    const subject = grantOf(c).subject;
    const id = decodeURIComponent(c.req.param('calendarId') ?? '').toLowerCase();
    const resolved = id === 'primary' ? subject : id;
    if (!resolved) throw new ApiError(404);
    if (resolved !== subject) throw new ApiError(404);
    return calendarFor(resolved);
  };

  const renderEvent = (cal: CalendarState, ev: StoredEvent, zone: string) => {
    const time = (ms: number, date?: string) =>
      date !== undefined
        ? { date }
        : {
            dateTime: DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: true }),
            timeZone: ev.timeZone ?? cal.timeZone,
          };
    return {
      kind: 'calendar#event',
      id: ev.id,
      status: 'confirmed',
      htmlLink: `https://www.google.com/calendar/event?eid=${Buffer.from(`${ev.id} ${cal.id}`).toString('base64url')}`,
      created: ev.created,
      updated: ev.updated,
      ...(ev.summary !== undefined ? { summary: ev.summary } : {}),
      ...(ev.description !== undefined ? { description: ev.description } : {}),
      ...(ev.location !== undefined ? { location: ev.location } : {}),
      creator: { email: cal.id, self: true },
      organizer: { email: cal.id, displayName: cal.summary, self: true },
      start: time(ev.startMs, ev.allDay?.start),
      end: time(ev.endMs, ev.allDay?.end),
      iCalUID: `${ev.id}@google.com`,
      sequence: 0,
      ...(ev.attendees.length ? { attendees: ev.attendees } : {}),
      eventType: 'default',
    };
  };

  const rfc3339 = (c: Context, name: string): number | undefined => {
    const v = query(c, name);
    if (v === undefined) return undefined;
    // Calendar requires an explicit offset or Z on timeMin/timeMax.
    if (!/(Z|[+-]\d{2}:\d{2})$/.test(v) || Number.isNaN(Date.parse(v)))
      throw new ApiError(400, 'Bad Request', 'badRequest');
    return Date.parse(v);
  };

  app.get('/calendar/v3/calendars/:calendarId/events', (c) => {
    const cal = userCalendar(c);
    const timeMin = rfc3339(c, 'timeMin');
    const timeMax = rfc3339(c, 'timeMax');
    const singleEvents = query(c, 'singleEvents') === 'true';
    const orderBy = query(c, 'orderBy');
    if (orderBy === 'startTime' && !singleEvents) {
      throw new ApiError(400, 'The requested ordering is not available for the particular query.', 'invalid');
    }
    const zone = query(c, 'timeZone') ?? cal.timeZone;
    if (!DateTime.local().setZone(zone).isValid)
      throw new ApiError(400, 'Invalid time zone definition.', 'invalid');
    const q = (query(c, 'q') ?? '').toLowerCase();
    const max = intParam(c, 'maxResults', 250, 2500) || 250;
    const offset = Number(query(c, 'pageToken') ?? '0') || 0;
    const items = [...cal.events.values()]
      .filter((e) => timeMin === undefined || e.endMs > timeMin)
      .filter((e) => timeMax === undefined || e.startMs < timeMax)
      .filter(
        (e) =>
          !q ||
          [e.summary, e.description, e.location, ...e.attendees.map((a) => a.email)].some((f) =>
            f?.toLowerCase().includes(q),
          ),
      )
      .sort((a, b) => (orderBy === 'updated' ? a.updated.localeCompare(b.updated) : a.startMs - b.startMs));
    const page = items.slice(offset, offset + max);
    return c.json({
      kind: 'calendar#events',
      summary: cal.summary,
      updated: new Date().toISOString(),
      timeZone: zone,
      accessRole: 'owner',
      defaultReminders: [],
      items: page.map((e) => renderEvent(cal, e, zone)),
      ...(offset + max < items.length ? { nextPageToken: String(offset + max) } : {}),
    });
  });

  app.get('/calendar/v3/calendars/:calendarId/events/:eventId', (c) => {
    const cal = userCalendar(c);
    const ev = cal.events.get(c.req.param('eventId'));
    if (!ev) throw new ApiError(404);
    return c.json(renderEvent(cal, ev, query(c, 'timeZone') ?? ev.timeZone ?? cal.timeZone));
  });

  // freeBusy.query (Calendar API v3, `POST /calendar/v3/freeBusy`; shapes from the official client's
  // Schema$FreeBusyRequest / Schema$FreeBusyResponse, see test/contracts/vendor/google/calendar-freebusy.md).
  app.post('/calendar/v3/freeBusy', async (c) => {
    const body = await jsonBody(c);
    const instant = (name: 'timeMin' | 'timeMax') => {
      const v = body[name];
      if (v === undefined) throw new ApiError(400, `Missing ${name} parameter.`, 'required');
      if (typeof v !== 'string' || !/(Z|[+-]\d{2}:\d{2})$/.test(v) || Number.isNaN(Date.parse(v)))
        throw new ApiError(400, `Invalid ${name} parameter.`, 'invalid');
      return Date.parse(v);
    };
    const min = instant('timeMin');
    const max = instant('timeMax');
    if (max <= min) throw new ApiError(400, 'The specified time range is empty.', 'timeRangeEmpty');
    const zone = typeof body.timeZone === 'string' ? body.timeZone : 'UTC';
    if (!DateTime.local().setZone(zone).isValid)
      throw new ApiError(400, 'Invalid time zone definition.', 'invalid');
    const items = Array.isArray(body.items) ? body.items : [];
    if (items.length > 50)
      throw new ApiError(400, 'Too many calendars requested.', 'tooManyCalendarsRequested');
    const fmt = (ms: number) => DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: true }) ?? '';
    const subject = grantOf(c).subject;
    const calendarsOut: Record<string, unknown> = {};
    for (const item of items) {
      const raw = typeof (item as { id?: unknown })?.id === 'string' ? (item as { id: string }).id : '';
      const id = (raw === 'primary' ? (subject ?? '') : raw).toLowerCase();
      const cal = id ? calendars.get(id) : undefined;
      // A calendar the caller cannot see answers with an error entry, not a failed request.
      if (!cal || id !== subject) {
        calendarsOut[raw] = { errors: [{ domain: 'global', reason: 'notFound' }], busy: [] };
        continue;
      }
      calendarsOut[raw] = {
        busy: busyPeriods(cal, min, max).map(([s, e]) => ({ start: fmt(s), end: fmt(e) })),
      };
    }
    return c.json({
      kind: 'calendar#freeBusy',
      timeMin: fmt(min),
      timeMax: fmt(max),
      calendars: calendarsOut,
    });
  });

  app.post('/calendar/v3/calendars/:calendarId/events', async (c) => {
    const cal = userCalendar(c);
    const body = await jsonBody(c);
    const id = typeof body.id === 'string' ? body.id : randomBytes(13).toString('hex').replace(/[w-z]/g, 'a');
    if (!EVENT_ID_RE.test(id)) throw new ApiError(400, 'Invalid resource id value.', 'invalid');
    if (cal.events.has(id)) throw new ApiError(409, 'The requested identifier already exists.', 'duplicate');
    const ev = eventFromInput(
      { ...(body as Partial<SeedEvent>), id } as SeedEvent,
      cal.timeZone,
      new Date().toISOString(),
    );
    ev.sendUpdates = query(c, 'sendUpdates') ?? 'false';
    cal.events.set(id, ev);
    return c.json(renderEvent(cal, ev, ev.timeZone ?? cal.timeZone));
  });

  // ---- Drive

  const driveFile = (id: string): DriveFile => {
    const f = files.get(id);
    if (!f) throw new ApiError(404, `File not found: ${id}.`, 'notFound');
    return f;
  };
  const renderFile = (f: DriveFile, fields: string[] | 'all') => {
    const full: Record<string, unknown> = {
      kind: 'drive#file',
      id: f.id,
      name: f.name,
      mimeType: f.mimeType,
      parents: f.parents,
      trashed: f.trashed,
      createdTime: f.createdTime,
      modifiedTime: f.modifiedTime,
      webViewLink:
        f.mimeType === DRIVE_MIME.doc
          ? `https://docs.google.com/document/d/${f.id}/edit`
          : f.mimeType === DRIVE_MIME.sheet
            ? `https://docs.google.com/spreadsheets/d/${f.id}/edit`
            : `https://drive.google.com/file/d/${f.id}/view`,
      ...(f.size !== undefined ? { size: String(f.size) } : {}),
    };
    if (fields === 'all') return full;
    return Object.fromEntries(fields.filter((k) => k in full).map((k) => [k, full[k]]));
  };

  app.get('/drive/v3/files', (c) => {
    const pred = compileDriveQuery(query(c, 'q') ?? '');
    const max = intParam(c, 'pageSize', 100, 1000) || 100;
    const offset = Number(query(c, 'pageToken') ?? '0') || 0;
    const all = [...files.values()].filter(pred).sort((a, b) => b.modifiedTime.localeCompare(a.modifiedTime));
    const page = all.slice(offset, offset + max);
    const fields = selectedFileFields(query(c, 'fields'), true);
    return c.json({
      kind: 'drive#fileList',
      incompleteSearch: false,
      files: page.map((f) => renderFile(f, fields)),
      ...(offset + max < all.length ? { nextPageToken: String(offset + max) } : {}),
    });
  });

  app.get('/drive/v3/files/:fileId/export', (c) => {
    const f = driveFile(c.req.param('fileId'));
    const mimeType = query(c, 'mimeType');
    if (!mimeType) throw new ApiError(400, 'Required parameter: mimeType', 'required');
    if (f.mimeType === DRIVE_MIME.doc && mimeType === 'text/plain') {
      const text = (f.doc ?? [])
        .map((b) =>
          b.kind === 'table'
            ? b.rows.map((r) => r.join('\t')).join('\n')
            : b.kind === 'bullet'
              ? `* ${b.text}`
              : b.text,
        )
        .join('\n');
      return c.body(`\uFEFF${text}`, 200, { 'content-type': 'text/plain; charset=utf-8' });
    }
    if (f.mimeType === DRIVE_MIME.sheet && mimeType === 'text/csv') {
      const csv = (f.sheets?.[0]?.rows ?? [])
        .map((r) => r.map((v) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)).join(','))
        .join('\n');
      return c.body(csv, 200, { 'content-type': 'text/csv' });
    }
    if (!f.mimeType.startsWith('application/vnd.google-apps.')) {
      throw new ApiError(403, 'Export only supports Docs Editors files.', 'fileNotExportable');
    }
    throw new ApiError(400, 'The requested conversion is not supported.', 'badRequest');
  });

  app.get('/drive/v3/files/:fileId', (c) => {
    const f = driveFile(c.req.param('fileId'));
    if (query(c, 'alt') === 'media') {
      if (!f.bytes) {
        throw new ApiError(
          403,
          'Only files with binary content can be downloaded. Use Export with Docs Editors files.',
          'fileNotDownloadable',
        );
      }
      return c.body(Buffer.from(f.bytes), 200, {
        'content-type': f.mimeType,
        'content-length': String(f.bytes.length),
      });
    }
    return c.json(renderFile(f, selectedFileFields(query(c, 'fields'), false)));
  });

  // ---- Docs and Sheets

  app.get('/v1/documents/:documentId', (c) => {
    const f = driveFile(c.req.param('documentId'));
    if (f.mimeType !== DRIVE_MIME.doc)
      throw new ApiError(400, 'This operation is not supported for this document', 'failedPrecondition');
    return c.json(buildDocument(f));
  });

  const spreadsheet = (c: Context) => {
    const f = driveFile(c.req.param('spreadsheetId') ?? '');
    if (f.mimeType !== DRIVE_MIME.sheet)
      throw new ApiError(400, 'This operation is not supported for this document', 'failedPrecondition');
    return f;
  };

  app.get('/v4/spreadsheets/:spreadsheetId', (c) => {
    const f = spreadsheet(c);
    return c.json({
      spreadsheetId: f.id,
      properties: { title: f.name, locale: 'en_US', timeZone: defaultTz },
      sheets: (f.sheets ?? []).map((s, index) => ({
        properties: {
          sheetId: index === 0 ? 0 : 1000 + index,
          title: s.title,
          index,
          sheetType: 'GRID',
          gridProperties: {
            rowCount: Math.max(1000, s.rows.length),
            columnCount: Math.max(26, ...s.rows.map((r) => r.length)),
          },
        },
      })),
      spreadsheetUrl: `https://docs.google.com/spreadsheets/d/${f.id}/edit`,
    });
  });

  app.get('/v4/spreadsheets/:spreadsheetId/values/:range', (c) => {
    const f = spreadsheet(c);
    const { a1, values } = readRange(f, decodeURIComponent(c.req.param('range')));
    const unformatted = query(c, 'valueRenderOption') === 'UNFORMATTED_VALUE';
    const cells = values.map((r) =>
      r.map((v) => (unformatted && v !== '' && !Number.isNaN(Number(v)) ? Number(v) : v)),
    );
    const major = query(c, 'majorDimension') === 'COLUMNS' ? 'COLUMNS' : 'ROWS';
    const out =
      major === 'COLUMNS'
        ? Array.from({ length: Math.max(0, ...cells.map((r) => r.length)) }, (_, col) =>
            cells.map((r) => r[col] ?? ''),
          )
        : cells;
    return c.json({ range: a1, majorDimension: major, ...(out.length ? { values: out } : {}) });
  });

  const server = createServer(getRequestListener(app.fetch));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const tokenUrl = `${url}/token`;
  const serviceAccount: ServiceAccountKey = {
    type: 'service_account',
    project_id: 'switchboard-local',
    private_key_id: randomBytes(20).toString('hex'),
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: clientEmail,
    client_id: '100000000000000000001',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: tokenUrl,
    universe_domain: 'googleapis.com',
  };

  const state: GoogleEmulatorState = {
    failNext(prefix, status, o = {}) {
      overrides.push({ prefix, status, headers: o.headers, remaining: o.times ?? 1 });
    },
    clearFailures() {
      overrides.length = 0;
    },
    respondNext(prefix, res) {
      overrides.push({
        prefix,
        status: res.status,
        body: res.body,
        headers: res.headers,
        remaining: res.times ?? 1,
      });
    },
    deliverEmail(input) {
      const mb = mailboxFor(input.mailbox ?? defaultMailbox);
      const internalDate = input.internalDate ?? Date.now();
      const m = store(mb, {
        threadId: input.threadId,
        labelIds: input.labelIds ?? DELIVERED_LABELS,
        internalDate,
        raw: composeRaw({
          from: input.from,
          to: input.to ?? mb.address,
          subject: input.subject,
          text: input.text,
          html: input.html,
          messageIdHeader: input.messageIdHeader ?? `<${randomBytes(10).toString('hex')}@mail.example>`,
          inReplyTo: input.inReplyTo,
          references: input.references,
          date: new Date(internalDate),
          received: [
            [
              'Authentication-Results',
              gmailAuthenticationResults(
                (input.from.match(/<([^>]+)>/)?.[1] ?? input.from).trim(),
                input.dmarc ?? 'pass',
              ),
            ],
          ],
        }),
      });
      return { id: m.id, threadId: m.threadId };
    },
    sent(mailbox) {
      return [...(sent.get((mailbox ?? defaultMailbox).toLowerCase()) ?? [])];
    },
    message(id, mailbox) {
      const m = mailboxFor(mailbox ?? defaultMailbox).messages.get(id);
      return m ? summary(m) : undefined;
    },
    events(calendarId) {
      return [...calendarFor(calendarId ?? defaultMailbox).events.values()];
    },
    revokeTokens() {
      tokens.clear();
    },
    replaceSentMessageIds(on) {
      replaceMessageIds = on;
    },
    get tokensIssued() {
      return tokensIssued;
    },
    tokenRequests,
    requests,
  };

  return {
    url,
    tokenUrl,
    serviceAccount,
    serviceAccountJson: JSON.stringify(serviceAccount),
    mailbox: defaultMailbox,
    timezone: defaultTz,
    env: {
      GOOGLE_API_BASE: `${url}/`,
      GOOGLE_TOKEN_URL: tokenUrl,
      GOOGLE_SERVICE_ACCOUNT_JSON: JSON.stringify(serviceAccount),
      GOOGLE_IMPERSONATE_USER: defaultMailbox,
    },
    state,
    delegatedScopes,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The calendar's events overlapping [min, max), clipped to it and merged where they touch. */
function busyPeriods(cal: CalendarState, min: number, max: number): Array<[number, number]> {
  const spans = [...cal.events.values()]
    .filter((e) => e.endMs > min && e.startMs < max)
    .map((e): [number, number] => [Math.max(e.startMs, min), Math.min(e.endMs, max)])
    .sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const s of spans) {
    const last = merged[merged.length - 1];
    if (last && s[0] <= last[1]) last[1] = Math.max(last[1], s[1]);
    else merged.push([...s]);
  }
  return merged;
}

/** Validates and normalises an event resource (seed or `events.insert` body) into stored instants. */
function eventFromInput(ev: SeedEvent, calendarZone: string, nowIso: string): StoredEvent {
  const resolve = (t: unknown, which: 'start' | 'end') => {
    const time = (t ?? {}) as { date?: unknown; dateTime?: unknown; timeZone?: unknown };
    if (typeof time.date === 'string') {
      const d = DateTime.fromISO(time.date, { zone: calendarZone });
      if (!d.isValid || !/^\d{4}-\d{2}-\d{2}$/.test(time.date))
        throw new ApiError(400, `Invalid ${which} time.`, 'invalid');
      return { ms: d.toMillis(), date: time.date, zone: undefined };
    }
    if (typeof time.dateTime !== 'string') throw new ApiError(400, `Missing ${which} time.`, 'required');
    const zone = typeof time.timeZone === 'string' ? time.timeZone : undefined;
    if (zone && !DateTime.local().setZone(zone).isValid) {
      throw new ApiError(400, `Invalid time zone definition for ${which} time.`, 'invalid');
    }
    const hasOffset = /(Z|[+-]\d{2}:\d{2})$/.test(time.dateTime);
    if (!hasOffset && !zone)
      throw new ApiError(400, `Missing time zone definition for ${which} time.`, 'required');
    const dt = DateTime.fromISO(time.dateTime, { zone: zone ?? 'UTC' });
    if (!dt.isValid) throw new ApiError(400, `Invalid ${which} time.`, 'invalid');
    return { ms: dt.toMillis(), date: undefined, zone };
  };
  const start = resolve(ev.start, 'start');
  const end = resolve(ev.end, 'end');
  if ((start.date === undefined) !== (end.date === undefined)) {
    throw new ApiError(400, 'Start and end times must either both be date or both be dateTime.', 'invalid');
  }
  if (end.ms <= start.ms) throw new ApiError(400, 'The specified time range is empty.', 'timeRangeEmpty');
  const attendees = Array.isArray(ev.attendees) ? ev.attendees : [];
  for (const a of attendees) {
    if (!a || typeof a.email !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(a.email)) {
      throw new ApiError(400, 'Invalid attendee email.', 'invalid');
    }
  }
  return {
    id: ev.id,
    summary: typeof ev.summary === 'string' ? ev.summary : undefined,
    description: typeof ev.description === 'string' ? ev.description : undefined,
    location: typeof ev.location === 'string' ? ev.location : undefined,
    startMs: start.ms,
    endMs: end.ms,
    allDay:
      start.date !== undefined && end.date !== undefined ? { start: start.date, end: end.date } : undefined,
    timeZone: start.zone,
    attendees: attendees.map((a) => ({
      email: a.email,
      ...(a.displayName ? { displayName: a.displayName } : {}),
      responseStatus: a.responseStatus ?? 'needsAction',
    })),
    created: nowIso,
    updated: nowIso,
  };
}
