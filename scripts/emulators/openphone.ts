import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signOpenPhoneLegacy, signOpenPhoneStandard } from '../../shared/src/domain/openphone-signature';
import { listMessages2026 } from './openphone-messages-2026';
import {
  CURRENT_API_VERSION,
  callCompletedEvent,
  callSummaryEvent,
  callTranscriptEvent,
  messageEvent,
  type PayloadCall,
} from './openphone-payloads';
import { loadWorkspace, perSecondLimiter, saveWorkspace } from './openphone-store';
import { DEMO_LINES, DEMO_PEOPLE } from './seed/demo-team';
import { DEMO_USERS, HISTORY_CALLS, HISTORY_MESSAGES } from './seed/openphone-history';

/**
 * A local OpenPhone (Quo) public API v1, speaking the request and response shapes of Quo's OpenAPI document
 * (phone numbers, contacts, messages, calls, call summaries and transcripts), plus signed webhook deliveries
 * in both of Quo's signature schemes. Production code reaches it exactly as it reaches api.openphone.com:
 * only the base URL and the key differ.
 *
 * Not confirmed from the docs, so chosen here: lists are newest first; page tokens are opaque offsets;
 * `participants` is accepted both as `participants[]=` and as repeated `participants=`.
 */
export interface OpenPhoneEmulatorOptions {
  port?: number;
  apiKey: string;
  /** Signs webhook deliveries: base64, or whsec_<base64>. */
  webhookSecret?: string;
  /** Where fireIncomingMessage / fireWebhook post by default. */
  webhookUrl?: string;
  /** 'demo' (default): the demo team, lines, history; 'empty': lines and users only. */
  seed?: 'demo' | 'empty';
  /** Clock for createdAt and signatures; tests inject it. */
  now?: () => Date;
  /**
   * Keeps the workspace (messages, contacts, calls, media) in `<dataDir>/openphone.json` and starts from it when
   * present, so state survives a killed stack (openphone-store.ts).
   */
  dataDir?: string;
  /** Quo's 10 requests/second per key; over it → 429. 0 turns the limit off. */
  rateLimitPerSecond?: number;
  /** Wall clock for the rate limit (default Date.now), apart from `now`, which tests freeze. */
  rateClock?: () => number;
  /**
   * Fault injection for the mid-send crash test: a valid POST /v1/messages is accepted and stored (as Quo would)
   * but never answered, so the caller is left not knowing whether it went out.
   */
  holdSends?: boolean;
  /** After each accepted send, deliver its `message.delivered` webhook in this scheme (off by default). */
  deliveredWebhooks?: 'legacy' | 'standard';
}

export interface EmulatedMessage {
  id: string;
  to: string[];
  from: string;
  text: string;
  phoneNumberId: string;
  direction: 'incoming' | 'outgoing';
  userId: string | null;
  status: string;
  createdAt: string;
  updatedAt: string;
  media: Array<{ url: string; type: string }>;
}

export interface EmulatedContact {
  id: string;
  externalId: string | null;
  source: string | null;
  sourceUrl: string | null;
  defaultFields: {
    firstName: string | null;
    lastName: string | null;
    company: string | null;
    role: string | null;
    emails: Array<{ id: string; name: string; value: string | null }>;
    phoneNumbers: Array<{ id: string; name: string; value: string | null }>;
  };
  customFields: unknown[];
  createdAt: string;
  updatedAt: string;
  createdByUserId: string;
}

export interface EmulatedCall {
  id: string;
  phoneNumberId: string;
  userId: string;
  direction: 'incoming' | 'outgoing';
  status: string;
  participants: string[];
  duration: number;
  createdAt: string;
  answeredAt: string | null;
  answeredBy: string | null;
  initiatedBy: string | null;
  completedAt: string | null;
  updatedAt: string | null;
  callRoute: string | null;
  aiHandled: string | null;
  forwardedFrom: string | null;
  forwardedTo: string | null;
}

export interface WebhookDelivery {
  scheme: 'legacy' | 'standard';
  url: string;
  eventId: string;
  /** The standard scheme's webhook-id (stable across retries of the same delivery). */
  webhookId: string | null;
  rawBody: string;
  headers: Record<string, string>;
  /** Status the receiver answered with (0 if the POST failed). */
  status: number;
  responseText: string;
}

interface ScriptedResponse {
  method?: string;
  path: string;
  times: number;
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

export interface OpenPhoneEmulatorState {
  phoneNumbers: Array<(typeof DEMO_LINES)[keyof typeof DEMO_LINES] & { users: typeof DEMO_USERS }>;
  contacts: Map<string, EmulatedContact>;
  /** Every message the workspace has: seeded history, received texts and sent ones. */
  messages: EmulatedMessage[];
  /** Only the messages created through POST /v1/messages, in order: assert "exactly once" on this. */
  sent: EmulatedMessage[];
  calls: EmulatedCall[];
  summaries: Map<
    string,
    { callId: string; status: string; summary: string[]; nextSteps: string[]; jobs: unknown[] }
  >;
  transcripts: Map<
    string,
    { callId: string; createdAt: string; status: string; duration: number; dialogue: unknown[] }
  >;
  /** Media the emulator serves at `<url>/media/<id>` (public, like Quo's storage URLs). */
  media: Map<string, { type: string; data: Buffer }>;
  /** Every API request with the status it got (after auth and scripted failures). */
  requests: Array<{ method: string; path: string; query: string; status: number }>;
  deliveries: WebhookDelivery[];
  /**
   * The next `times` (default 1) requests to `path` (exact, or a prefix ending in `*`) answer `status` with a
   * Quo-style error body. `retryAfterSeconds` adds a Retry-After header.
   */
  failNext(
    path: string,
    status: number,
    opts?: { times?: number; method?: string; retryAfterSeconds?: number },
  ): void;
  /** The next request(s) to `path` answer exactly this (e.g. a 200 with a malformed body). */
  respondNext(
    path: string,
    response: { status: number; body: string | object; method?: string; times?: number },
  ): void;
  /** Drops every scripted response not used yet. */
  clearScripted(): void;
  /**
   * The workspace's legacy webhooks as `GET /v1/webhooks` lists them. Undefined (the default): one enabled
   * message webhook pointing at `webhookUrl`, when there is one. Tests set other states (none, disabled,
   * another URL).
   */
  webhooks?: EmulatedWebhook[];
  /**
   * The workspace's 2026-03-30 (beta) webhooks as `GET /webhooks` lists them: a separate set that the legacy
   * list never shows (and vice versa). Empty by default: the local stack registers a legacy webhook.
   */
  datedWebhooks: EmulatedDatedWebhook[];
}

/**
 * A webhook created with `POST /webhooks` and the version header, as `GET /webhooks` lists it
 * (test/contracts/vendor/quo/api/webhooks.list.2026-03-30.json): its pinned `apiVersion`, and no `key`.
 */
export interface EmulatedDatedWebhook {
  id: string;
  orgId: string;
  label: string | null;
  status: 'enabled' | 'disabled';
  url: string;
  createdAt: string;
  updatedAt: string;
  events: string[];
  resourceIds: string[];
  apiVersion: string;
}

/** A legacy (v1) webhook, shaped as Quo's `listWebhooks_v1` documents it (test/contracts/vendor/quo/api). */
export interface EmulatedWebhook {
  id: string;
  userId: string;
  orgId: string;
  label: string | null;
  status: 'enabled' | 'disabled';
  url: string;
  key: string;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
  events: string[];
  resourceIds: string[];
}

export interface FireIncomingMessageInput {
  from: string;
  /** Our line's number; defaults to the shared line. */
  to?: string;
  text: string;
  scheme: 'legacy' | 'standard';
  /** Payloads from app-created webhooks have used `body` for the text; the API guide uses `text`. */
  textField?: 'text' | 'body';
  /** Photos: a `url` is sent as is; without one the emulator stores `bytes` (a tiny PNG by default) and serves them. */
  media?: Array<{ type: string; url?: string; bytes?: Uint8Array }>;
  /** Overrides the emulator's webhookUrl for this delivery. */
  url?: string;
}

export interface FireCallInput {
  /** The outside party. */
  from: string;
  /** Our line's number; defaults to the shared line. */
  to?: string;
  scheme: 'legacy' | 'standard';
  durationSeconds?: number;
  /** Also deliver call.summary.completed with these lines. */
  summary?: { summary: string[]; nextSteps: string[] };
  /** Also deliver call.transcript.completed; `who` says which side spoke. */
  transcript?: Array<{ who: 'caller' | 'member'; text: string }>;
  url?: string;
}

export interface FireWebhookInput {
  /** Any Quo event type: call.completed, message.delivered, contact.updated … */
  type: string;
  /** Becomes `data.object` (legacy) or `data.resource` (2026-03-30) of the event envelope. */
  object: Record<string, unknown>;
  /** `data.context` in the 2026-03-30 body. */
  context?: Record<string, unknown>;
  scheme: 'legacy' | 'standard';
  url?: string;
}

export interface OpenPhoneEmulator {
  url: string;
  state: OpenPhoneEmulatorState;
  /** Signs and posts one event in the envelope of the scheme's webhook generation (see openphone-payloads.ts). */
  fireWebhook(input: FireWebhookInput): Promise<WebhookDelivery>;
  /** Records an incoming text in the workspace and delivers its message.received webhook. */
  fireIncomingMessage(input: FireIncomingMessageInput): Promise<WebhookDelivery & { messageId: string }>;
  /** A completed incoming call (kept in the workspace) and its call.completed, summary and transcript webhooks. */
  fireCall(input: FireCallInput): Promise<{ callId: string; deliveries: WebhookDelivery[] }>;
  /**
   * A text a person sent from the Quo app (an outgoing copy): stored as an outgoing message and delivered as
   * `message.delivered`.
   */
  fireAppSentMessage(input: {
    to: string;
    text: string;
    scheme: 'legacy' | 'standard';
    line?: string;
    url?: string;
  }): Promise<WebhookDelivery & { messageId: string }>;
  /** Sends a delivery again the way Quo retries: same body and ids, fresh timestamp and signature. */
  redeliver(delivery: WebhookDelivery): Promise<WebhookDelivery>;
  stop(): Promise<void>;
}

const DOCS = 'https://openphone.com/docs';
const E164 = /^\+[1-9]\d{1,14}$/;
const MAX_BODY = 1_000_000;

export async function startOpenPhoneEmulator(options: OpenPhoneEmulatorOptions): Promise<OpenPhoneEmulator> {
  const now = options.now ?? (() => new Date());
  const startedAt = now().toISOString();
  const scripted: ScriptedResponse[] = [];
  const limit = options.rateLimitPerSecond ?? 10;
  const limiter = limit > 0 ? perSecondLimiter(limit, options.rateClock) : { take: () => true };
  let baseUrl = '';
  const state: OpenPhoneEmulatorState = {
    ...restore(seedData(options.seed ?? 'demo', now()), options.dataDir),
    datedWebhooks: [],
    failNext(path, status, opts = {}) {
      scripted.push({
        path,
        status,
        method: opts.method,
        times: opts.times ?? 1,
        body: JSON.stringify(errorBody(status, titleFor(status), `Injected ${status}`)),
        headers:
          opts.retryAfterSeconds === undefined
            ? undefined
            : { 'retry-after': String(opts.retryAfterSeconds) },
      });
    },
    respondNext(path, r) {
      scripted.push({
        path,
        status: r.status,
        method: r.method,
        times: r.times ?? 1,
        body: typeof r.body === 'string' ? r.body : JSON.stringify(r.body),
      });
    },
    clearScripted() {
      scripted.length = 0;
    },
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, errorBody(500, 'Unknown', String(err)));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://emulator');
    const method = req.method ?? 'GET';
    const reply = (status: number, body?: unknown, headers?: Record<string, string>) => {
      state.requests.push({ method, path: url.pathname, query: url.search, status });
      send(res, status, body, headers);
    };

    const rule = scripted.find(
      (s) => s.times > 0 && (!s.method || s.method === method) && pathMatches(s.path, url.pathname),
    );
    if (rule) {
      rule.times -= 1;
      state.requests.push({ method, path: url.pathname, query: url.search, status: rule.status });
      res.writeHead(rule.status, { 'content-type': 'application/json', ...rule.headers });
      res.end(rule.body);
      return;
    }

    const media = method === 'GET' ? /^\/media\/([A-Za-z0-9_-]+)$/.exec(url.pathname) : null;
    if (media) return serveMedia(res, media[1] ?? '', reply);

    // The raw key, no scheme: `Bearer <key>` is refused as Quo refuses it.
    if (req.headers.authorization !== options.apiKey) {
      return reply(401, errorBody(401, 'Unauthorized', 'Invalid or missing API key'));
    }
    if (!limiter.take(options.apiKey)) {
      return reply(
        429,
        errorBody(429, 'Too Many Requests', 'Rate limit exceeded: 10 requests per second per API key'),
      );
    }

    let body: unknown;
    if (method === 'POST' || method === 'PATCH') {
      const raw = await readBody(req);
      if (raw === null) return reply(413, errorBody(413, 'Payload Too Large', 'Body too large'));
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        return reply(400, errorBody(400, 'Bad Request', 'Body is not valid JSON'));
      }
    }

    if (!url.pathname.startsWith('/v1/')) {
      const out = dated(req, method, url);
      return reply(out.status, out.body);
    }
    const route = routes.find((r) => r.method === method && r.pattern.test(url.pathname));
    if (!route) return reply(404, errorBody(404, 'Not Found', `No route for ${method} ${url.pathname}`));
    const params = url.pathname.match(route.pattern)?.slice(1).map(decodeURIComponent) ?? [];
    const out = route.handler({ params, query: url.searchParams, body });
    if (method !== 'GET' && out.status < 400) persist();
    const isSend = method === 'POST' && url.pathname === '/v1/messages' && out.status === 202;
    if (isSend && options.holdSends) {
      // Accepted and stored, never answered: the caller cannot know it went out (crash test).
      state.requests.push({ method, path: url.pathname, query: url.search, status: 202 });
      return;
    }
    reply(out.status, out.body);
    if (isSend && options.deliveredWebhooks)
      void fireDelivered((out.body as { data: { id: string } }).data.id);
  }

  /** The 2026-03-30 API (no /v1 prefix): the version header is required, as Quo requires it. */
  function dated(req: IncomingMessage, method: string, url: URL): Out {
    const version = req.headers['quo-api-version'] ?? req.headers['x-quo-api-version'];
    if (version !== CURRENT_API_VERSION) {
      return fail(400, 'Bad Request', 'Missing or unsupported Quo-Api-Version header', [
        {
          path: '/header/quo-api-version',
          message: `must be ${CURRENT_API_VERSION}`,
          value: version ?? null,
        },
      ]);
    }
    // "Returns all webhooks created through the beta webhook endpoints for the workspace. Not paginated."
    if (method === 'GET' && url.pathname === '/webhooks')
      return { status: 200, body: { data: state.datedWebhooks } };
    if (method === 'GET' && url.pathname === '/messages') {
      const listed = listMessages2026(state.messages, url.searchParams);
      if (!listed.ok) {
        return fail(400, 'Bad Request', 'Validation failed for 1 field.', [
          { path: listed.path, message: listed.message, value: listed.value },
        ]);
      }
      return { status: 200, body: { data: listed.data.map(datedMessage), nextCursor: listed.nextCursor } };
    }
    const one = method === 'GET' ? /^\/messages\/([^/]+)$/.exec(url.pathname) : null;
    if (one) {
      const m = state.messages.find((x) => x.id === decodeURIComponent(one[1] ?? ''));
      return m
        ? { status: 200, body: { data: datedMessage(m) } }
        : fail(404, 'Not Found', 'Message not found');
    }
    return fail(404, 'Not Found', `No route for ${method} ${url.pathname}`);
  }

  function datedMessage(m: EmulatedMessage) {
    return {
      ...m,
      conversationId: conversationIdOf(
        m.phoneNumberId,
        m.direction === 'incoming' ? m.from : (m.to[0] ?? ''),
      ),
    };
  }

  function serveMedia(res: ServerResponse, id: string, reply: (s: number, b?: unknown) => void) {
    const item = state.media.get(id);
    if (!item) return reply(404, errorBody(404, 'Not Found', 'No such media'));
    state.requests.push({ method: 'GET', path: `/media/${id}`, query: '', status: 200 });
    res.writeHead(200, { 'content-type': item.type, 'content-length': String(item.data.length) });
    res.end(item.data);
  }

  function persist() {
    if (!options.dataDir) return;
    saveWorkspace(options.dataDir, {
      version: 1,
      messages: state.messages,
      sentIds: state.sent.map((m) => m.id),
      contacts: [...state.contacts.values()],
      calls: state.calls,
      summaries: [...state.summaries],
      transcripts: [...state.transcripts],
      media: Object.fromEntries(
        [...state.media].map(([id, m]) => [id, { type: m.type, base64: m.data.toString('base64') }]),
      ),
    });
  }

  type Out = { status: number; body?: unknown };
  type Ctx = { params: string[]; query: URLSearchParams; body: unknown };
  const fail = (status: number, title: string, message: string, errors?: unknown[]): Out => ({
    status,
    body: errorBody(status, title, message, errors),
  });
  const lineById = (id: string | null) => state.phoneNumbers.find((l) => l.id === id || l.number === id);

  const routes: Array<{ method: string; pattern: RegExp; handler: (ctx: Ctx) => Out }> = [
    {
      method: 'GET',
      pattern: /^\/v1\/phone-numbers$/,
      handler: ({ query }) => {
        const userId = query.get('userId');
        const lines = state.phoneNumbers.filter((l) => !userId || l.users.some((u) => u.id === userId));
        return { status: 200, body: { data: lines.map(phoneNumberJson) } };
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/contacts$/,
      handler: ({ query }) => {
        const page = pageParams(query, 50);
        if ('error' in page) return page.error;
        const externalIds = [...query.getAll('externalIds'), ...query.getAll('externalIds[]')];
        const all = [...state.contacts.values()].filter(
          (c) => externalIds.length === 0 || (c.externalId !== null && externalIds.includes(c.externalId)),
        );
        return { status: 200, body: paginate(all, page) };
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/contacts$/,
      handler: ({ body }) => {
        const problem = contactProblem(body, true);
        if (problem) return fail(400, 'Bad Request', problem);
        const input = body as ContactWrite;
        const at = now().toISOString();
        const contact: EmulatedContact = {
          id: randomBytes(12).toString('hex'),
          externalId: input.externalId ?? null,
          source: input.source ?? 'public-api',
          sourceUrl: null,
          defaultFields: {
            firstName: input.defaultFields?.firstName ?? null,
            lastName: input.defaultFields?.lastName ?? null,
            company: input.defaultFields?.company ?? null,
            role: input.defaultFields?.role ?? null,
            emails: withIds(input.defaultFields?.emails),
            phoneNumbers: withIds(input.defaultFields?.phoneNumbers),
          },
          customFields: [],
          createdAt: at,
          updatedAt: at,
          createdByUserId: ownerId(),
        };
        state.contacts.set(contact.id, contact);
        return { status: 201, body: { data: contact } };
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/contacts\/([^/]+)$/,
      handler: ({ params }) => {
        const contact = state.contacts.get(params[0] ?? '');
        return contact
          ? { status: 200, body: { data: contact } }
          : fail(404, 'Not Found', 'Contact not found');
      },
    },
    {
      method: 'PATCH',
      pattern: /^\/v1\/contacts\/([^/]+)$/,
      handler: ({ params, body }) => {
        const contact = state.contacts.get(params[0] ?? '');
        if (!contact) return fail(404, 'Not Found', 'Contact not found');
        const problem = contactProblem(body, false);
        if (problem) return fail(400, 'Bad Request', problem);
        const input = body as ContactWrite;
        const f = input.defaultFields ?? {};
        const d = contact.defaultFields;
        if (f.firstName !== undefined) d.firstName = f.firstName;
        if (f.lastName !== undefined) d.lastName = f.lastName;
        if (f.company !== undefined) d.company = f.company;
        if (f.role !== undefined) d.role = f.role;
        if (f.emails !== undefined) d.emails = withIds(f.emails);
        if (f.phoneNumbers !== undefined) d.phoneNumbers = withIds(f.phoneNumbers);
        if (input.externalId !== undefined) contact.externalId = input.externalId;
        contact.updatedAt = now().toISOString();
        return { status: 200, body: { data: contact } };
      },
    },
    {
      method: 'DELETE',
      pattern: /^\/v1\/contacts\/([^/]+)$/,
      handler: ({ params }) =>
        state.contacts.delete(params[0] ?? '')
          ? { status: 204 }
          : fail(404, 'Not Found', 'Contact not found'),
    },
    {
      method: 'POST',
      pattern: /^\/v1\/messages$/,
      handler: ({ body }) => {
        const b = (body ?? {}) as Record<string, unknown>;
        const errors: Array<{ path: string; message: string }> = [];
        if (
          typeof b.content !== 'string' ||
          b.content.length < 1 ||
          b.content.length > 1600 ||
          !/\S/.test(b.content)
        ) {
          errors.push({ path: '/content', message: 'Expected a non-blank string of 1 to 1600 characters' });
        }
        if (typeof b.from !== 'string' || !(b.from.startsWith('PN') || E164.test(b.from))) {
          errors.push({ path: '/from', message: 'Expected a phone number id (PN…) or an E.164 number' });
        }
        if (
          !Array.isArray(b.to) ||
          b.to.length !== 1 ||
          !b.to.every((t) => typeof t === 'string' && E164.test(t))
        ) {
          errors.push({ path: '/to', message: 'Expected exactly one E.164 phone number' });
        }
        if (b.userId !== undefined && (typeof b.userId !== 'string' || !b.userId.startsWith('US'))) {
          errors.push({ path: '/userId', message: 'Expected a user id (US…)' });
        }
        if (errors.length) return fail(400, 'Bad Request', 'Invalid request body', errors);
        const line = lineById(b.from as string);
        if (!line)
          return fail(403, 'Not Phone Number User', 'The sender is not a phone number of this workspace');
        const at = now().toISOString();
        const message: EmulatedMessage = {
          id: `AC${randomBytes(16).toString('hex')}`,
          to: b.to as string[],
          from: line.number,
          text: b.content as string,
          media: [],
          phoneNumberId: line.id,
          direction: 'outgoing',
          userId: typeof b.userId === 'string' ? b.userId : (line.users[0]?.id ?? null),
          status: 'queued',
          createdAt: at,
          updatedAt: at,
        };
        state.messages.push(message);
        state.sent.push(message);
        const response = { status: 202, body: { data: v1Message(message) } };
        // The emulated carrier delivers at once; later reads see the final status.
        message.status = 'delivered';
        return response;
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/webhooks$/,
      handler: ({ query }) => {
        const userId = query.get('userId');
        if (userId !== null && !/^US/.test(userId))
          return fail(400, 'Bad Request', 'Invalid query', [
            { path: '/userId', message: 'Expected string to match ^US(.*)$', value: userId },
          ]);
        // "Defaults to the workspace owner."
        const owner = userId ?? ownerId();
        return { status: 200, body: { data: legacyWebhooks().filter((w) => w.userId === owner) } };
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/messages$/,
      handler: ({ query }) => {
        const scope = conversationScope(query, 'messages');
        if ('error' in scope) return scope.error;
        const page = pageParams(query, 100);
        if ('error' in page) return page.error;
        const matching = state.messages
          .filter(
            (m) =>
              m.phoneNumberId === scope.lineId &&
              sameSet(m.direction === 'incoming' ? [m.from] : m.to, scope.participants) &&
              inWindow(m.createdAt, query),
          )
          .sort(newestFirst);
        return { status: 200, body: paginate(matching.map(v1Message), page) };
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/messages\/([^/]+)$/,
      handler: ({ params }) => {
        const message = state.messages.find((m) => m.id === params[0]);
        return message
          ? { status: 200, body: { data: v1Message(message) } }
          : fail(404, 'Not Found', 'Message not found');
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/calls$/,
      handler: ({ query }) => {
        const scope = conversationScope(query, 'calls');
        if ('error' in scope) return scope.error;
        const page = pageParams(query, 100);
        if ('error' in page) return page.error;
        const matching = state.calls
          .filter(
            (c) =>
              c.phoneNumberId === scope.lineId &&
              sameSet(c.participants, scope.participants) &&
              inWindow(c.createdAt, query),
          )
          .sort(newestFirst);
        return { status: 200, body: paginate(matching, page) };
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/calls\/([^/]+)$/,
      handler: ({ params }) => {
        const call = state.calls.find((c) => c.id === params[0]);
        return call ? { status: 200, body: { data: call } } : fail(404, 'Not Found', 'Call not found');
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/call-summaries\/([^/]+)$/,
      handler: ({ params }) => {
        const summary = state.summaries.get(params[0] ?? '');
        return summary
          ? { status: 200, body: { data: summary } }
          : fail(404, 'Not Found', 'Call summary not found');
      },
    },
    {
      method: 'GET',
      pattern: /^\/v1\/call-transcripts\/([^/]+)$/,
      handler: ({ params }) => {
        const transcript = state.transcripts.get(params[0] ?? '');
        return transcript
          ? { status: 200, body: { data: transcript } }
          : fail(404, 'Not Found', 'Call transcript not found');
      },
    },
  ];

  function conversationScope(
    query: URLSearchParams,
    what: 'messages' | 'calls',
  ): { error: Out } | { lineId: string; participants: string[] } {
    const lineId = query.get('phoneNumberId');
    const participants = [...query.getAll('participants[]'), ...query.getAll('participants')];
    if (!lineId) return { error: fail(400, 'Bad Request', 'phoneNumberId is required') };
    if (participants.length === 0) return { error: fail(400, 'Bad Request', 'participants is required') };
    if (what === 'calls' && participants.length > 1) {
      return { error: fail(400, 'Too Many Participants', 'Only one participant is supported') };
    }
    if (!participants.every((p) => E164.test(p))) {
      return { error: fail(400, 'Bad Request', 'participants must be E.164 phone numbers') };
    }
    if (!lineById(lineId)) return { error: fail(404, 'Not Found', 'Phone number not found') };
    return { lineId, participants };
  }

  function pageParams(
    query: URLSearchParams,
    max: number,
  ): { error: Out } | { maxResults: number; offset: number } {
    const raw = query.get('maxResults');
    const maxResults = Number(raw);
    if (raw === null || !Number.isInteger(maxResults) || maxResults < 1 || maxResults > max) {
      return { error: fail(400, 'Bad Request', `maxResults is required, an integer from 1 to ${max}`) };
    }
    const token = query.get('pageToken');
    let offset = 0;
    if (token) {
      const decoded = Number(
        Buffer.from(token, 'base64url')
          .toString('utf8')
          .replace(/^offset:/, ''),
      );
      if (!Number.isInteger(decoded) || decoded < 0)
        return { error: fail(400, 'Bad Request', 'Invalid pageToken') };
      offset = decoded;
    }
    return { maxResults, offset };
  }

  function legacyWebhooks(): EmulatedWebhook[] {
    if (state.webhooks) return state.webhooks;
    const url = options.webhookUrl;
    if (!url) return [];
    return [
      {
        id: 'WHlocal0001',
        userId: ownerId(),
        orgId: 'ORlocal0001',
        label: 'Switchboard',
        status: 'enabled',
        url,
        key: options.webhookSecret ?? 'local-key',
        createdAt: startedAt,
        updatedAt: startedAt,
        deletedAt: null,
        events: ['message.received', 'message.delivered'],
        resourceIds: ['*'],
      },
    ];
  }

  function ownerId() {
    return state.phoneNumbers[0]?.users[0]?.id ?? 'USowner';
  }

  async function deliver(
    scheme: 'legacy' | 'standard',
    url: string,
    eventId: string,
    rawBody: string,
    webhookId: string | null,
  ): Promise<WebhookDelivery> {
    if (!options.webhookSecret)
      throw new Error('startOpenPhoneEmulator: webhookSecret is required to fire webhooks');
    const timestampMs = now().getTime();
    const signed =
      scheme === 'legacy'
        ? signOpenPhoneLegacy({ rawBody, secret: options.webhookSecret, timestampMs })
        : signOpenPhoneStandard({
            rawBody,
            secret: options.webhookSecret,
            timestampMs,
            webhookId: webhookId ?? `msg_${randomBytes(12).toString('hex')}`,
          });
    const headers = { 'content-type': 'application/json', ...signed };
    let status = 0;
    let responseText = '';
    try {
      const res = await fetch(url, { method: 'POST', headers, body: rawBody });
      status = res.status;
      responseText = await res.text();
    } catch (err) {
      responseText = String(err);
    }
    const delivery: WebhookDelivery = {
      scheme,
      url,
      eventId,
      webhookId: signed['webhook-id'] ?? null,
      rawBody,
      headers,
      status,
      responseText,
    };
    state.deliveries.push(delivery);
    return delivery;
  }

  /** Posts one event in the body of the webhook generation that signs with `input.scheme`. */
  async function fireWebhook(input: FireWebhookInput): Promise<WebhookDelivery> {
    const target = input.url ?? options.webhookUrl;
    if (!target) throw new Error('fireWebhook: no webhookUrl');
    const eventId = `EV${randomBytes(16).toString('hex')}`;
    const at = now().toISOString();
    const event =
      input.scheme === 'legacy'
        ? {
            id: eventId,
            object: 'event',
            apiVersion: 'v4',
            createdAt: at,
            type: input.type,
            data: { object: input.object },
          }
        : {
            id: eventId,
            apiVersion: CURRENT_API_VERSION,
            createdAt: at,
            type: input.type,
            data: { resource: input.object, context: input.context ?? {}, links: { quo: null } },
          };
    return deliver(input.scheme, target, eventId, JSON.stringify(event), null);
  }

  /** Signs and posts a body built elsewhere (openphone-payloads.ts), recording the delivery. */
  function fireBody(scheme: 'legacy' | 'standard', body: { id: string }, url?: string) {
    const target = url ?? options.webhookUrl;
    if (!target) throw new Error('fire: no webhookUrl');
    return deliver(scheme, target, body.id, JSON.stringify(body), null);
  }

  /** Stores media without a URL and serves it at `<url>/media/<id>`. */
  function mediaUrls(list: FireIncomingMessageInput['media']) {
    return (list ?? []).map((m) => {
      if (m.url) return { url: m.url, type: m.type };
      const id = `ME${randomBytes(12).toString('hex')}`;
      state.media.set(id, { type: m.type, data: Buffer.from(m.bytes ?? TINY_PNG) });
      return { url: `${baseUrl}/media/${id}`, type: m.type };
    });
  }

  function newMessage(
    line: NonNullable<ReturnType<typeof lineById>>,
    m: Pick<EmulatedMessage, 'from' | 'to' | 'text' | 'direction' | 'userId' | 'status' | 'media'>,
  ): EmulatedMessage {
    const at = now().toISOString();
    const message = {
      id: `AC${randomBytes(16).toString('hex')}`,
      ...m,
      phoneNumberId: line.id,
      createdAt: at,
      updatedAt: at,
    };
    state.messages.push(message);
    persist();
    return message;
  }

  async function fireMessage(
    type: 'message.received' | 'message.delivered',
    message: EmulatedMessage,
    opts: { scheme: 'legacy' | 'standard'; url?: string; appStyle?: boolean },
  ) {
    const line = lineById(message.phoneNumberId);
    const participant = message.direction === 'incoming' ? message.from : (message.to[0] ?? '');
    const body = messageEvent({
      scheme: opts.scheme,
      type,
      eventId: `EV${randomBytes(16).toString('hex')}`,
      at: now().toISOString(),
      appStyle: opts.appStyle ?? false,
      message: {
        ...message,
        userId: message.userId ?? line?.users[0]?.id ?? null,
        conversationId: conversationIdOf(message.phoneNumberId, participant),
      },
    });
    const delivery = await fireBody(opts.scheme, body, opts.url);
    return { ...delivery, messageId: message.id };
  }

  async function fireDelivered(messageId: string) {
    const message = state.messages.find((m) => m.id === messageId);
    if (!message || !options.deliveredWebhooks || !options.webhookUrl) return;
    await fireMessage('message.delivered', message, { scheme: options.deliveredWebhooks }).catch(
      () => undefined,
    );
  }

  async function fireCall(input: FireCallInput) {
    const line = lineById(input.to ?? DEMO_LINES.shared.number);
    if (!line) throw new Error(`fireCall: ${input.to} is not a line of this workspace`);
    const member = line.users[0]?.id ?? 'USowner';
    const end = now();
    const duration = input.durationSeconds ?? 60;
    const start = new Date(end.getTime() - duration * 1000).toISOString();
    const call: PayloadCall = {
      id: `AC${randomBytes(16).toString('hex')}`,
      direction: 'incoming',
      status: 'answered',
      participant: input.from,
      line: line.number,
      phoneNumberId: line.id,
      conversationId: conversationIdOf(line.id, input.from),
      userId: member,
      durationSeconds: duration,
      createdAt: start,
      answeredAt: start,
      completedAt: end.toISOString(),
    };
    state.calls.push({
      id: call.id,
      phoneNumberId: line.id,
      userId: member,
      direction: 'incoming',
      status: 'completed',
      participants: [input.from],
      duration,
      createdAt: start,
      answeredAt: start,
      answeredBy: member,
      initiatedBy: null,
      completedAt: call.completedAt,
      updatedAt: call.completedAt,
      callRoute: 'phone-number',
      aiHandled: null,
      forwardedFrom: null,
      forwardedTo: null,
    });
    const dialogue = (input.transcript ?? []).map((t, i) => ({
      content: t.text,
      start: i * 5,
      end: i * 5 + 4,
      identifier: t.who === 'caller' ? input.from : line.number,
      userId: t.who === 'member' ? member : null,
    }));
    if (input.summary)
      state.summaries.set(call.id, { callId: call.id, status: 'completed', ...input.summary, jobs: [] });
    if (input.transcript) {
      state.transcripts.set(call.id, {
        callId: call.id,
        createdAt: call.completedAt,
        status: 'completed',
        duration,
        dialogue,
      });
    }
    persist();
    const at = call.completedAt;
    const ev = () => `EV${randomBytes(16).toString('hex')}`;
    const bodies = [
      callCompletedEvent({ scheme: input.scheme, eventId: ev(), at, call }),
      ...(input.summary
        ? [callSummaryEvent({ scheme: input.scheme, eventId: ev(), at, call, ...input.summary })]
        : []),
      ...(input.transcript
        ? [callTranscriptEvent({ scheme: input.scheme, eventId: ev(), at, call, dialogue })]
        : []),
    ];
    const deliveries = [];
    for (const b of bodies) deliveries.push(await fireBody(input.scheme, b, input.url));
    return { callId: call.id, deliveries };
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://127.0.0.1:${port}`;

  return {
    url: baseUrl,
    state,
    fireWebhook,
    fireCall,

    async fireIncomingMessage(input) {
      const line = lineById(input.to ?? DEMO_LINES.shared.number);
      if (!line) throw new Error(`fireIncomingMessage: ${input.to} is not a line of this workspace`);
      const message = newMessage(line, {
        from: input.from,
        to: [line.number],
        text: input.text,
        direction: 'incoming',
        userId: null,
        status: 'received',
        media: mediaUrls(input.media),
      });
      return fireMessage('message.received', message, {
        scheme: input.scheme,
        appStyle: input.textField === 'body',
        ...(input.url ? { url: input.url } : {}),
      });
    },

    async fireAppSentMessage(input) {
      const line = lineById(input.line ?? DEMO_LINES.shared.number);
      if (!line) throw new Error(`fireAppSentMessage: ${input.line} is not a line of this workspace`);
      const message = newMessage(line, {
        from: line.number,
        to: [input.to],
        text: input.text,
        direction: 'outgoing',
        userId: line.users[0]?.id ?? null,
        status: 'delivered',
        media: [],
      });
      return fireMessage('message.delivered', message, {
        scheme: input.scheme,
        ...(input.url ? { url: input.url } : {}),
      });
    },

    redeliver(delivery) {
      return deliver(delivery.scheme, delivery.url, delivery.eventId, delivery.rawBody, delivery.webhookId);
    },

    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface ContactWrite {
  defaultFields?: {
    firstName?: string | null;
    lastName?: string | null;
    company?: string | null;
    role?: string | null;
    emails?: Array<{ name: string; value: string | null }>;
    phoneNumbers?: Array<{ name: string; value: string | null }>;
  };
  externalId?: string | null;
  source?: string;
}

/** The checks Quo documents for contact writes: firstName on create, fields of the right types, a source that is not reserved. */
function contactProblem(body: unknown, creating: boolean): string | null {
  if (typeof body !== 'object' || body === null) return 'Body must be an object';
  const b = body as Record<string, unknown>;
  const f = b.defaultFields as Record<string, unknown> | undefined;
  if (creating && (typeof f !== 'object' || f === null)) return 'defaultFields is required';
  if (f !== undefined && (typeof f !== 'object' || f === null)) return 'defaultFields must be an object';
  if (creating && (typeof f?.firstName !== 'string' || !f.firstName))
    return 'defaultFields.firstName is required';
  for (const key of ['firstName', 'lastName', 'company', 'role']) {
    const v = f?.[key];
    if (v !== undefined && v !== null && typeof v !== 'string')
      return `defaultFields.${key} must be a string`;
  }
  for (const key of ['emails', 'phoneNumbers']) {
    const list = f?.[key];
    if (list === undefined) continue;
    if (
      !Array.isArray(list) ||
      !list.every((i) => typeof i?.name === 'string' && (i.value === null || typeof i.value === 'string'))
    ) {
      return `defaultFields.${key} must be a list of { name, value }`;
    }
  }
  if (
    b.source !== undefined &&
    (typeof b.source !== 'string' || /^(openphone|csv)|^(device|zapier|google-people|other)$/.test(b.source))
  ) {
    return 'source is reserved or invalid';
  }
  return null;
}

function withIds(list: Array<{ name: string; value: string | null }> | undefined) {
  return (list ?? []).map((i) => ({ id: randomBytes(6).toString('hex'), name: i.name, value: i.value }));
}

type SeedData = Omit<OpenPhoneEmulatorState, 'failNext' | 'respondNext' | 'clearScripted' | 'datedWebhooks'>;

function seedData(seed: 'demo' | 'empty', at: Date): SeedData {
  const iso = (minutesAgo: number) => new Date(at.getTime() - minutesAgo * 60_000).toISOString();
  const internal = DEMO_USERS;
  const alex = internal.filter((u) => u.email.startsWith('alex@'));
  const state: SeedData = {
    phoneNumbers: [
      { ...DEMO_LINES.shared, users: internal },
      { ...DEMO_LINES.assistant, users: alex },
    ],
    contacts: new Map(),
    messages: [],
    sent: [],
    calls: [],
    summaries: new Map(),
    transcripts: new Map(),
    media: new Map(),
    requests: [],
    deliveries: [],
  };
  if (seed === 'empty') return state;

  const seededAt = iso(60 * 24 * 30);
  for (const p of DEMO_PEOPLE) {
    state.contacts.set(p.id, {
      id: p.id,
      externalId: null,
      source: null,
      sourceUrl: null,
      defaultFields: {
        firstName: p.firstName,
        lastName: p.lastName,
        company: p.company ?? null,
        role: p.role,
        emails: [{ id: `${p.id}_email`, name: 'email', value: p.email }],
        phoneNumbers: [{ id: `${p.id}_phone`, name: 'mobile', value: p.phone }],
      },
      customFields: [],
      createdAt: seededAt,
      updatedAt: seededAt,
      createdByUserId: internal[0]?.id ?? 'USowner',
    });
  }

  for (const h of HISTORY_MESSAGES) {
    const line = DEMO_LINES[h.line];
    state.messages.push({
      id: h.id,
      to: h.direction === 'incoming' ? [line.number] : [h.participant],
      from: h.direction === 'incoming' ? h.participant : line.number,
      text: h.text,
      media: [],
      phoneNumberId: line.id,
      direction: h.direction,
      userId: h.userId ?? null,
      status: h.direction === 'incoming' ? 'received' : 'delivered',
      createdAt: iso(h.minutesAgo),
      updatedAt: iso(h.minutesAgo),
    });
  }

  for (const c of HISTORY_CALLS) {
    const line = DEMO_LINES[c.line];
    const answered = c.status === 'completed';
    const start = iso(c.minutesAgo);
    const end = new Date(Date.parse(start) + c.durationSeconds * 1000).toISOString();
    state.calls.push({
      id: c.id,
      phoneNumberId: line.id,
      userId: c.userId,
      direction: c.direction,
      status: c.status,
      participants: [c.participant],
      duration: c.durationSeconds,
      createdAt: start,
      answeredAt: answered ? start : null,
      answeredBy: answered && c.direction === 'incoming' ? c.userId : null,
      initiatedBy: c.direction === 'outgoing' ? c.userId : null,
      completedAt: answered ? end : null,
      updatedAt: end,
      callRoute: c.direction === 'incoming' ? 'phone-number' : null,
      aiHandled: null,
      forwardedFrom: null,
      forwardedTo: null,
    });
    if (c.summary) {
      state.summaries.set(c.id, { callId: c.id, status: 'completed', ...c.summary, jobs: [] });
    }
    if (c.transcript) {
      state.transcripts.set(c.id, {
        callId: c.id,
        createdAt: end,
        status: 'completed',
        duration: c.durationSeconds,
        dialogue: c.transcript.map((t) => ({
          content: t.text,
          start: t.start,
          end: t.end,
          identifier: t.who === 'participant' ? c.participant : line.number,
          userId: t.who === 'member' ? c.userId : null,
        })),
      });
    }
  }
  return state;
}

function phoneNumberJson(line: OpenPhoneEmulatorState['phoneNumbers'][number]) {
  return {
    id: line.id,
    groupId: `GR${line.id.slice(2)}`,
    portRequestId: null,
    formattedNumber: formatUs(line.number),
    forward: null,
    name: line.name,
    number: line.number,
    portingStatus: null,
    symbol: null,
    users: line.users.map((u) => ({ ...u, groupId: `GR${line.id.slice(2)}` })),
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
    restrictions: {
      calling: { CA: 'unrestricted', Intl: 'restricted', US: 'unrestricted' },
      messaging: { CA: 'unrestricted', Intl: 'restricted', US: 'unrestricted' },
    },
  };
}

function formatUs(e164: string) {
  const m = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(e164);
  return m ? `(${m[1]}) ${m[2]}-${m[3]}` : e164;
}

function paginate<T>(items: T[], page: { maxResults: number; offset: number }) {
  const slice = items.slice(page.offset, page.offset + page.maxResults);
  const next = page.offset + page.maxResults;
  return {
    data: slice,
    totalItems: items.length,
    nextPageToken: next < items.length ? Buffer.from(`offset:${next}`).toString('base64url') : null,
  };
}

function inWindow(createdAt: string, query: URLSearchParams) {
  const t = Date.parse(createdAt);
  const after = query.get('createdAfter');
  const before = query.get('createdBefore');
  return (!after || t > Date.parse(after)) && (!before || t < Date.parse(before));
}

const newestFirst = (a: { createdAt: string }, b: { createdAt: string }) =>
  Date.parse(b.createdAt) - Date.parse(a.createdAt);

function sameSet(a: string[], b: string[]) {
  return a.length === b.length && a.every((x) => b.includes(x));
}

function pathMatches(pattern: string, path: string) {
  return pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : pattern === path;
}

function errorBody(status: number, title: string, message: string, errors?: unknown[]) {
  return {
    message,
    code: `09${String(status).padStart(5, '0')}`,
    status,
    docs: DOCS,
    title,
    trace: randomBytes(8).toString('hex'),
    ...(errors ? { errors } : {}),
  };
}

function titleFor(status: number) {
  return (
    { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests' }[
      status
    ] ?? (status >= 500 ? 'Unknown' : 'Error')
  );
}

function send(res: ServerResponse, status: number, body?: unknown, headers?: Record<string, string>) {
  if (body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function conversationIdOf(lineId: string, participant: string) {
  return `CN${createHash('sha256').update(`${lineId}|${participant}`).digest('hex').slice(0, 24)}`;
}

/** The v1 message resource has no media (Quo's v1 reference); the 2026-03-30 one does. */
function v1Message({ media: _media, ...m }: EmulatedMessage) {
  return m;
}

/** A 1×1 PNG: what the emulator serves for a photo a test did not give bytes for. */
const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==',
  'base64',
);

/** Seed data, unless the data folder holds a workspace from an earlier run: then that (persisted by `persist`). */
function restore(seed: SeedData, dataDir: string | undefined): SeedData {
  const stored = dataDir
    ? loadWorkspace<
        EmulatedMessage,
        EmulatedContact,
        EmulatedCall,
        SeedData['summaries'] extends Map<string, infer S> ? S : never,
        SeedData['transcripts'] extends Map<string, infer T> ? T : never
      >(dataDir)
    : null;
  if (!stored) return seed;
  const messages = stored.messages;
  const byId = new Map(messages.map((m) => [m.id, m]));
  return {
    ...seed,
    messages,
    sent: stored.sentIds.flatMap((id) => byId.get(id) ?? []),
    contacts: new Map(stored.contacts.map((c) => [c.id, c])),
    calls: stored.calls,
    summaries: new Map(stored.summaries),
    transcripts: new Map(stored.transcripts),
    media: new Map(
      Object.entries(stored.media).map(([id, m]) => [
        id,
        { type: m.type, data: Buffer.from(m.base64, 'base64') },
      ]),
    ),
  };
}
