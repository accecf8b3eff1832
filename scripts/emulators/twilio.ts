import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import twilio from 'twilio';

/**
 * A local Twilio REST API (2010-04-01) for the two resources the on-call pager uses, Messages and Calls:
 * form-encoded POSTs with HTTP Basic auth (Account SID : Auth Token), JSON resources back with Twilio's
 * snake_case fields, Twilio's error body `{ code, message, more_info, status }`, and status callbacks signed
 * with X-Twilio-Signature made by the twilio package's own helper. The twilio SDK talks to it unchanged
 * through a request client that swaps the origin (see shared/src/adapters/twilio-pager.ts).
 */
export interface TwilioEmulatorOptions {
  port?: number;
  accountSid: string;
  authToken: string;
  /**
   * Delivers status callbacks to this origin instead of the callback URL's own, while the signature still
   * covers the URL as given in the request: what a tunnel in front of the local stack looks like to Twilio.
   */
  statusCallbackBase?: string;
  /** Plays the usual status sequence (message: sent, delivered; call: initiated … completed) after each create. */
  autoStatusCallbacks?: boolean;
  now?: () => Date;
  /** Numbers the account owns (IncomingPhoneNumbers.json); tests change `state.incomingNumbers`. */
  incomingNumbers?: string[];
}

export interface EmulatedTwilioMessage {
  sid: string;
  to: string;
  from: string;
  body: string;
  status: string;
  statusCallback: string | null;
  dateCreated: string;
}

export interface EmulatedTwilioCall {
  sid: string;
  to: string;
  from: string;
  status: string;
  /** The TwiML the call was created with (or null when created with a Url). */
  twiml: string | null;
  url: string | null;
  /** Text of every <Say> in the TwiML, for assertions. */
  says: string[];
  statusCallback: string | null;
  statusCallbackEvents: string[];
  sequence: number;
  dateCreated: string;
}

export interface StatusCallbackDelivery {
  sid: string;
  url: string;
  deliveredTo: string;
  params: Record<string, string>;
  signature: string;
  status: number;
  responseText: string;
}

export interface TwilioEmulatorState {
  messages: EmulatedTwilioMessage[];
  calls: EmulatedTwilioCall[];
  callbacks: StatusCallbackDelivery[];
  requests: Array<{ method: string; path: string; status: number }>;
  /** E.164 numbers the account owns, as IncomingPhoneNumbers.json lists them. */
  incomingNumbers: string[];
  /** The next `times` (default 1) requests to `path` (exact, or prefix ending in `*`) get a Twilio error. */
  failNext(path: string, status: number, opts?: { times?: number; code?: number; message?: string }): void;
  clearScripted(): void;
}

export interface TwilioEmulator {
  url: string;
  state: TwilioEmulatorState;
  /**
   * Moves a message or call to `status` and POSTs the signed status callback, if the resource asked for one
   * (and, for calls, subscribed to that event). Returns null when Twilio would send nothing.
   */
  sendStatusCallback(
    sid: string,
    status: string,
    extra?: Record<string, string>,
  ): Promise<StatusCallbackDelivery | null>;
  stop(): Promise<void>;
}

const API_VERSION = '2010-04-01';
const E164 = /^\+[1-9]\d{1,14}$/;
const TERMINAL_CALL_STATUSES = ['completed', 'busy', 'failed', 'no-answer', 'canceled'];

/** Which StatusCallbackEvent subscription covers a call status (every terminal status reports as `completed`). */
function callEventOf(status: string) {
  if (status === 'in-progress') return 'answered';
  return TERMINAL_CALL_STATUSES.includes(status) ? 'completed' : status;
}

export async function startTwilioEmulator(options: TwilioEmulatorOptions): Promise<TwilioEmulator> {
  const now = options.now ?? (() => new Date());
  const scripted: Array<{ path: string; status: number; times: number; code: number; message: string }> = [];
  const state: TwilioEmulatorState = {
    messages: [],
    calls: [],
    callbacks: [],
    requests: [],
    incomingNumbers: [...(options.incomingNumbers ?? [])],
    failNext(path, status, opts = {}) {
      scripted.push({
        path,
        status,
        times: opts.times ?? 1,
        code: opts.code ?? (status === 429 ? 20429 : status >= 500 ? 20500 : 21000 + status),
        message: opts.message ?? `Injected ${status}`,
      });
    },
    clearScripted() {
      scripted.length = 0;
    },
  };
  const base = `/${API_VERSION}/Accounts/${options.accountSid}`;
  const expectedAuth = `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString('base64')}`;

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, twilioError(500, 20500, String(err)));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://emulator');
    const method = req.method ?? 'GET';
    const reply = (status: number, body: unknown) => {
      state.requests.push({ method, path: url.pathname, status });
      json(res, status, body);
    };

    const rule = scripted.find(
      (s) =>
        s.times > 0 &&
        (s.path.endsWith('*') ? url.pathname.startsWith(s.path.slice(0, -1)) : s.path === url.pathname),
    );
    if (rule) {
      rule.times -= 1;
      return reply(rule.status, twilioError(rule.status, rule.code, rule.message));
    }
    if (req.headers.authorization !== expectedAuth) {
      return reply(401, twilioError(401, 20003, 'Authenticate'));
    }
    if (!url.pathname.startsWith(`${base}/`)) {
      return reply(404, twilioError(404, 20404, `The requested resource ${url.pathname} was not found`));
    }
    const rest = url.pathname.slice(base.length);

    if (method === 'POST' && (rest === '/Messages.json' || rest === '/Calls.json')) {
      if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
        return reply(400, twilioError(400, 20001, 'Content-Type must be application/x-www-form-urlencoded'));
      }
      const form = new URLSearchParams(await readBody(req));
      const out = rest === '/Messages.json' ? createMessage(form) : createCall(form);
      return reply(out.status, out.body);
    }
    if (method === 'GET' && rest === '/IncomingPhoneNumbers.json') {
      const out = listIncomingNumbers(url);
      return reply(out.status, out.body);
    }
    if (method === 'GET' && (rest === '/Messages.json' || rest === '/Calls.json')) {
      const out = rest === '/Messages.json' ? listMessages(url) : listCalls(url);
      return reply(out.status, out.body);
    }
    const fetchOne = /^\/(Messages|Calls)\/([A-Za-z0-9]+)\.json$/.exec(rest);
    if (method === 'GET' && fetchOne) {
      const [, kind, sid] = fetchOne;
      const found =
        kind === 'Messages'
          ? state.messages.find((m) => m.sid === sid)
          : state.calls.find((c) => c.sid === sid);
      if (!found)
        return reply(404, twilioError(404, 20404, `The requested resource ${url.pathname} was not found`));
      return reply(200, 'body' in found ? messageJson(found) : callJson(found));
    }
    return reply(404, twilioError(404, 20404, `The requested resource ${url.pathname} was not found`));
  }

  /** Messages.json as Twilio's ListMessage reads it: To, From, DateSent[<>], newest first, paged. */
  function listMessages(url: URL): { status: number; body: unknown } {
    const q = url.searchParams;
    const window = dateFilter(q, 'DateSent');
    if ('error' in window) return window.error;
    const items = state.messages
      .filter((m) => (!q.get('To') || m.to === q.get('To')) && (!q.get('From') || m.from === q.get('From')))
      .filter((m) => window.test(Date.parse(m.dateCreated)));
    return page(url, 'messages', items.reverse().map(messageJson));
  }

  /** Calls.json as Twilio's ListCall reads it: To, From, ParentCallSid, Status, StartTime[<>], EndTime[<>]. */
  function listCalls(url: URL): { status: number; body: unknown } {
    const q = url.searchParams;
    const start = dateFilter(q, 'StartTime');
    if ('error' in start) return start.error;
    const end = dateFilter(q, 'EndTime');
    if ('error' in end) return end.error;
    const items = state.calls
      .filter((c) => (!q.get('To') || c.to === q.get('To')) && (!q.get('From') || c.from === q.get('From')))
      .filter((c) => !q.get('Status') || c.status === q.get('Status'))
      // Every emulated call is a parent call: asking for the children of any call finds none.
      .filter(() => !q.get('ParentCallSid'))
      .filter((c) => start.test(Date.parse(c.dateCreated)))
      .filter((c) =>
        end.test(TERMINAL_CALL_STATUSES.includes(c.status) ? Date.parse(c.dateCreated) : Number.NaN),
      );
    return page(url, 'calls', items.reverse().map(callJson));
  }

  /**
   * ListIncomingPhoneNumber (twilio-oai): `PhoneNumber` matches partial numbers with `*` for any digit,
   * `FriendlyName` exactly; items in the IncomingPhoneNumber shape (test/contracts/vendor/twilio).
   */
  function listIncomingNumbers(url: URL): { status: number; body: unknown } {
    const q = url.searchParams;
    const wanted = q.get('PhoneNumber');
    const pattern = wanted
      ? new RegExp(wanted.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '\\d'))
      : undefined;
    const items = state.incomingNumbers
      .filter((n) => !pattern || pattern.test(n))
      .filter((n) => !q.get('FriendlyName') || friendlyName(n) === q.get('FriendlyName'))
      .map(incomingNumberJson);
    return page(url, 'incoming_phone_numbers', items);
  }

  function friendlyName(n: string) {
    const d = n.replace(/^\+1/, '');
    return d.length === 10 ? `(${d.slice(0, 3)}) ${d.slice(3, 6)}-${d.slice(6)}` : n;
  }

  function incomingNumberJson(n: string) {
    const sid = `PN${createHash('sha256').update(n).digest('hex').slice(0, 32)}`;
    const created = new Date(0).toUTCString();
    return {
      account_sid: options.accountSid,
      address_sid: null,
      address_requirements: 'none',
      api_version: API_VERSION,
      beta: false,
      capabilities: { voice: true, sms: true, mms: true, fax: false },
      date_created: created,
      date_updated: created,
      friendly_name: friendlyName(n),
      identity_sid: null,
      phone_number: n,
      origin: 'twilio',
      sid,
      sms_application_sid: '',
      sms_fallback_method: 'POST',
      sms_fallback_url: '',
      sms_method: 'POST',
      sms_url: '',
      status_callback: '',
      status_callback_method: 'POST',
      trunk_sid: null,
      uri: `${base}/IncomingPhoneNumbers/${sid}.json`,
      voice_receive_mode: 'voice',
      voice_application_sid: null,
      voice_caller_id_lookup: false,
      voice_fallback_method: 'POST',
      voice_fallback_url: null,
      voice_method: 'POST',
      voice_url: null,
      emergency_status: 'Inactive',
      emergency_address_sid: null,
      emergency_address_status: 'unregistered',
      bundle_sid: null,
      status: 'in-use',
      type: 'local',
    };
  }

  function page(url: URL, key: 'messages' | 'calls' | 'incoming_phone_numbers', all: unknown[]) {
    const q = url.searchParams;
    const size = Number(q.get('PageSize') ?? 50);
    if (!Number.isInteger(size) || size < 1 || size > 1000) {
      return { status: 400, body: twilioError(400, 20001, 'PageSize must be an integer from 1 to 1000') };
    }
    const token = q.get('PageToken');
    const offset = token
      ? Number(/^PA(\d+)$/.exec(token)?.[1] ?? Number.NaN)
      : Number(q.get('Page') ?? 0) * size;
    if (!Number.isInteger(offset) || offset < 0) {
      return { status: 400, body: twilioError(400, 20001, 'Invalid PageToken') };
    }
    const pageNo = Math.floor(offset / size);
    const items = all.slice(offset, offset + size);
    const uriWith = (params: Record<string, string>) => {
      const u = new URLSearchParams(q);
      for (const [k, v] of Object.entries(params)) u.set(k, v);
      return `${url.pathname}?${u.toString()}`;
    };
    const more = offset + size < all.length;
    return {
      status: 200,
      body: {
        [key]: items,
        end: offset + Math.max(items.length, 1) - 1,
        first_page_uri: uriWith({ Page: '0', PageSize: String(size) }),
        next_page_uri: more
          ? uriWith({ Page: String(pageNo + 1), PageSize: String(size), PageToken: `PA${offset + size}` })
          : null,
        page: pageNo,
        page_size: size,
        previous_page_uri:
          pageNo > 0
            ? uriWith({
                Page: String(pageNo - 1),
                PageSize: String(size),
                PageToken: `PA${Math.max(0, offset - size)}`,
              })
            : null,
        start: offset,
        uri: `${url.pathname}${url.search}`,
      },
    };
  }

  function createMessage(form: URLSearchParams) {
    const to = form.get('To');
    const from = form.get('From');
    const body = form.get('Body');
    if (!to) return { status: 400, body: twilioError(400, 21604, "A 'To' phone number is required.") };
    if (!E164.test(to))
      return { status: 400, body: twilioError(400, 21211, `Invalid 'To' Phone Number: ${to}`) };
    if (!from && !form.get('MessagingServiceSid')) {
      return { status: 400, body: twilioError(400, 21603, "A 'From' phone number is required.") };
    }
    if (!body && !form.get('MediaUrl'))
      return { status: 400, body: twilioError(400, 21602, 'Message body is required.') };
    if ((body ?? '').length > 1600) {
      return {
        status: 400,
        body: twilioError(400, 21617, 'The concatenated message body exceeds the 1600 character limit.'),
      };
    }
    const message: EmulatedTwilioMessage = {
      sid: `SM${randomBytes(16).toString('hex')}`,
      to,
      from: from ?? '',
      body: body ?? '',
      status: 'queued',
      statusCallback: form.get('StatusCallback'),
      dateCreated: rfc2822(now()),
    };
    state.messages.push(message);
    const response = messageJson(message);
    if (options.autoStatusCallbacks) void playSequence(message.sid, ['sent', 'delivered']);
    return { status: 201, body: response };
  }

  function createCall(form: URLSearchParams) {
    const to = form.get('To');
    const from = form.get('From');
    const twiml = form.get('Twiml');
    const url = form.get('Url');
    if (!to) return { status: 400, body: twilioError(400, 21201, "No 'To' number is specified") };
    if (!E164.test(to))
      return { status: 400, body: twilioError(400, 21211, `Invalid 'To' Phone Number: ${to}`) };
    if (!from) return { status: 400, body: twilioError(400, 21213, "No 'From' number is specified") };
    if (!twiml && !url && !form.get('ApplicationSid')) {
      return { status: 400, body: twilioError(400, 21205, 'Url parameter is required.') };
    }
    const events = form
      .getAll('StatusCallbackEvent')
      .flatMap((e) => e.split(/[\s,]+/))
      .filter(Boolean);
    const call: EmulatedTwilioCall = {
      sid: `CA${randomBytes(16).toString('hex')}`,
      to,
      from,
      status: 'queued',
      twiml,
      url,
      says: twiml ? saysOf(twiml) : [],
      statusCallback: form.get('StatusCallback'),
      // Twilio sends only `completed` unless other events are asked for.
      statusCallbackEvents: events.length ? events : ['completed'],
      sequence: 0,
      dateCreated: rfc2822(now()),
    };
    state.calls.push(call);
    const response = callJson(call);
    if (options.autoStatusCallbacks)
      void playSequence(call.sid, ['initiated', 'ringing', 'in-progress', 'completed']);
    return { status: 201, body: response };
  }

  async function playSequence(sid: string, statuses: string[]) {
    for (const status of statuses) {
      await new Promise((r) => setTimeout(r, 20));
      await sendStatusCallback(sid, status).catch(() => undefined);
    }
  }

  async function sendStatusCallback(sid: string, status: string, extra: Record<string, string> = {}) {
    const message = state.messages.find((m) => m.sid === sid);
    const call = state.calls.find((c) => c.sid === sid);
    if (!message && !call) throw new Error(`sendStatusCallback: no message or call ${sid}`);

    let params: Record<string, string>;
    let target: string | null;
    if (message) {
      message.status = status;
      target = message.statusCallback;
      params = {
        AccountSid: options.accountSid,
        ApiVersion: API_VERSION,
        From: message.from,
        MessageSid: message.sid,
        MessageStatus: status,
        SmsSid: message.sid,
        SmsStatus: status,
        To: message.to,
        ...extra,
      };
    } else {
      const c = call as EmulatedTwilioCall;
      c.status = status;
      target = c.statusCallback;
      if (!c.statusCallbackEvents.includes(callEventOf(status))) return null;
      c.sequence += 1;
      params = {
        AccountSid: options.accountSid,
        ApiVersion: API_VERSION,
        CallSid: c.sid,
        CallStatus: status,
        CallbackSource: 'call-progress-events',
        Called: c.to,
        Caller: c.from,
        Direction: 'outbound-api',
        From: c.from,
        SequenceNumber: String(c.sequence - 1),
        Timestamp: rfc2822(now()),
        To: c.to,
        ...(status === 'completed' ? { CallDuration: '12', Duration: '1' } : {}),
        ...extra,
      };
    }
    if (!target) return null;

    const signature = twilio.getExpectedTwilioSignature(options.authToken, target, params);
    const deliveredTo = options.statusCallbackBase ? rebase(target, options.statusCallbackBase) : target;
    let httpStatus = 0;
    let responseText = '';
    try {
      const res = await fetch(deliveredTo, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-twilio-signature': signature,
          'i-twilio-idempotency-token': randomBytes(16).toString('hex'),
        },
        body: new URLSearchParams(params).toString(),
      });
      httpStatus = res.status;
      responseText = await res.text();
    } catch (err) {
      responseText = String(err);
    }
    const delivery: StatusCallbackDelivery = {
      sid,
      url: target,
      deliveredTo,
      params,
      signature,
      status: httpStatus,
      responseText,
    };
    state.callbacks.push(delivery);
    return delivery;
  }

  function messageJson(m: EmulatedTwilioMessage) {
    return {
      account_sid: options.accountSid,
      api_version: API_VERSION,
      body: m.body,
      date_created: m.dateCreated,
      date_sent: null,
      date_updated: m.dateCreated,
      direction: 'outbound-api',
      error_code: null,
      error_message: null,
      from: m.from,
      messaging_service_sid: null,
      num_media: '0',
      num_segments: String(Math.max(1, Math.ceil(m.body.length / 153))),
      price: null,
      price_unit: 'USD',
      sid: m.sid,
      status: m.status,
      subresource_uris: { media: `${base}/Messages/${m.sid}/Media.json` },
      to: m.to,
      uri: `${base}/Messages/${m.sid}.json`,
    };
  }

  function callJson(c: EmulatedTwilioCall) {
    return {
      account_sid: options.accountSid,
      annotation: null,
      answered_by: null,
      api_version: API_VERSION,
      caller_name: null,
      date_created: c.dateCreated,
      date_updated: c.dateCreated,
      direction: 'outbound-api',
      duration: null,
      end_time: null,
      forwarded_from: null,
      from: c.from,
      from_formatted: c.from,
      group_sid: null,
      parent_call_sid: null,
      phone_number_sid: null,
      price: null,
      price_unit: 'USD',
      queue_time: '0',
      sid: c.sid,
      start_time: null,
      status: c.status,
      subresource_uris: { notifications: `${base}/Calls/${c.sid}/Notifications.json` },
      to: c.to,
      to_formatted: c.to,
      trunk_sid: null,
      uri: `${base}/Calls/${c.sid}.json`,
    };
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    state,
    sendStatusCallback,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function twilioError(status: number, code: number, message: string) {
  return { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status };
}

/** Enough of XML to read <Say> text back out of the TwiML the SDK built (assertions only). */
function saysOf(twiml: string): string[] {
  const entities: Record<string, string> = {
    '&lt;': '<',
    '&gt;': '>',
    '&quot;': '"',
    '&apos;': "'",
    '&amp;': '&',
  };
  return [...twiml.matchAll(/<Say\b[^>]*>([\s\S]*?)<\/Say>/g)].map((m) =>
    (m[1] ?? '').replace(/&(lt|gt|quot|apos|amp);/g, (e) => entities[e] ?? e),
  );
}

function rebase(target: string, origin: string) {
  const from = new URL(target);
  const to = new URL(origin);
  from.protocol = to.protocol;
  from.host = to.host;
  return from.toString();
}

function rfc2822(d: Date) {
  return d.toUTCString().replace('GMT', '+0000');
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * Twilio's date filters: `Name` (that GMT day, or that instant), `Name<` (before), `Name>` (on or after); each
 * `YYYY-MM-DD` or an ISO/RFC 2822 date-time (twilio-oai ListMessage / ListCall).
 */
function dateFilter(
  q: URLSearchParams,
  name: string,
): { error: { status: number; body: unknown } } | { test: (t: number) => boolean } {
  const bound = (v: string | null, isUpper: boolean) => {
    if (v === null) return null;
    const day = /^\d{4}-\d{2}-\d{2}$/.test(v);
    const t = Date.parse(day ? `${v}T00:00:00Z` : v);
    return Number.isNaN(t) ? Number.NaN : day && isUpper ? t + 86_400_000 : t;
  };
  const on = q.get(name);
  const exact = bound(on, false);
  const before = bound(q.get(`${name}<`), false);
  const after = bound(q.get(`${name}>`), false);
  if ([exact, before, after].some((b) => b !== null && Number.isNaN(b))) {
    return { error: { status: 400, body: twilioError(400, 20001, `Invalid ${name} filter`) } };
  }
  const dayLong = on !== null && /^\d{4}-\d{2}-\d{2}$/.test(on);
  return {
    test: (t: number) =>
      (exact === null || (dayLong ? t >= exact && t < exact + 86_400_000 : t === exact)) &&
      (before === null || t < before) &&
      (after === null || t >= after),
  };
}
