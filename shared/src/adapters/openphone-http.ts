import type { CountryCode } from 'libphonenumber-js';
import pRetry from 'p-retry';
import type { z } from 'zod';
import {
  type OpenPhoneCall,
  type OpenPhoneContact,
  type OpenPhoneContactBody,
  type OpenPhoneContactPatchBody,
  type OpenPhoneMessage,
  type OpenPhonePhoneNumber,
  openPhoneCall,
  openPhoneCallSummary,
  openPhoneCallTranscript,
  openPhoneContact,
  openPhoneData,
  openPhoneErrorBody,
  openPhoneList,
  openPhoneMessage,
  openPhonePhoneNumber,
  openPhoneSendMessageBody,
} from '../contracts/openphone-api';
import { toE164 } from '../domain/phone';
import {
  type AppError,
  describeZodIssues,
  ForbiddenError,
  isAppError,
  NotFoundError,
  UpstreamError,
  ValidationError,
} from '../errors';
import type {
  CallRecord,
  Contact,
  ContactInput,
  ContactPatch,
  FindSentMessageInput,
  ListCallsInput,
  ListMessagesInput,
  Page,
  PhoneLine,
  SendMessageInput,
  SmsGateway,
  SmsMessage,
} from '../ports/sms-gateway';
import { type RateLimiter, rollingWindowLimiter, sharedRateLimiter } from './rate-limiter';

/** Kept exported here for the adapter's callers; the function lives in domain/phone.ts. */
export { toE164 };

/**
 * SmsGateway over the OpenPhone (Quo) public REST API v1, with `fetch`. The same code talks to
 * https://api.openphone.com and to the local emulator (scripts/emulators/openphone.ts); only `baseUrl` and
 * `apiKey` differ. Auth is the raw key in `Authorization` (no "Bearer"), as the API docs show.
 *
 * Rate: every request first takes a turn from a limiter under Quo's 10 requests/second per key, shared by every
 * gateway on the same base URL and key in this container (rate-limiter.ts says why per container).
 *
 * Retries: GETs are retried with bounded exponential backoff (p-retry) on 429, 5xx, timeouts and network
 * errors, honouring Retry-After when the server sends one (not documented by Quo; harmless if absent).
 * Writes are not retried blindly. A send answered 429 is retried only after `findSentMessage` shows it did not
 * go out; a POST whose answer we did not get may still have gone out, so we surface `outcomeUnknown` and let
 * the executor reconcile with `findSentMessage`.
 */
export interface OpenPhoneHttpOptions {
  /** OPENPHONE_API_BASE, e.g. https://api.openphone.com (no /v1). */
  baseUrl: string;
  /** OPENPHONE_API_KEY. */
  apiKey: string;
  /** Region for numbers written without a country code. Default US. */
  defaultCountry?: CountryCode;
  /** Per-request timeout. Default 10 s. */
  timeoutMs?: number;
  retry?: {
    /** Extra attempts for a read. Default 3. */
    retries?: number;
    minTimeoutMs?: number;
    maxTimeoutMs?: number;
    /** Longest Retry-After we are willing to wait inside one call. Default 5 s. */
    maxRetryAfterMs?: number;
  };
  /** Bound on contact pages (50 each). Default 40; beyond it listContacts fails loudly rather than truncate. */
  maxContactPages?: number;
  /**
   * Allowance for clock skew between us and Quo when reconciling a send: a message created up to this long
   * before `since` still matches. Default 60 s.
   */
  reconcileSkewMs?: number;
  /** Client-side rate limit. Default: 10 requests per rolling 1.1 s, shared per container (base URL + key). */
  limiter?: RateLimiter;
  /** How many times a send answered 429 is reconciled and tried again. Default 3. */
  sendRetries?: number;
  /** Injected by tests so backoff does not wait in real time. */
  sleep?: (ms: number) => Promise<void>;
}

/** An OpenPhone failure that is not simply "not found" or "forbidden". */
export class OpenPhoneApiError extends UpstreamError {
  /** HTTP status, when the server answered. */
  readonly httpStatus: number | undefined;
  /** Quo's own error code (e.g. "0206400" for A2P registration not approved). */
  readonly vendorCode: string | undefined;
  readonly retryAfterMs: number | undefined;
  /**
   * True when a write may or may not have taken effect (timeout, network failure, 5xx on a POST). The
   * executor must reconcile (findSentMessage) before trying again.
   */
  readonly outcomeUnknown: boolean;

  constructor(
    message: string,
    opts: {
      code: string;
      retryable: boolean;
      httpStatus?: number;
      vendorCode?: string;
      retryAfterMs?: number;
      outcomeUnknown?: boolean;
      cause?: unknown;
    },
  ) {
    super(message, { code: opts.code, retryable: opts.retryable, cause: opts.cause });
    this.httpStatus = opts.httpStatus;
    this.vendorCode = opts.vendorCode;
    this.retryAfterMs = opts.retryAfterMs;
    this.outcomeUnknown = opts.outcomeUnknown ?? false;
  }
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
type Query = Record<string, string | number | string[] | undefined>;

const PAGE_OF_CONTACTS = 50;
const LINE_CACHE_MS = 5 * 60_000;

/**
 * The container's one limiter for a Quo key (10 requests/second per key): the tools, the executor and
 * `npm run doctor` take their turns from the same one.
 */
export function quoRateLimiter(baseUrl: string, apiKey: string): RateLimiter {
  return sharedRateLimiter(`openphone|${baseUrl.replace(/\/+$/, '')}|${apiKey}`, () =>
    rollingWindowLimiter({ requests: 10, windowMs: 1100 }),
  );
}

export function createOpenPhoneHttpGateway(options: OpenPhoneHttpOptions): SmsGateway {
  const base = options.baseUrl.replace(/\/+$/, '');
  const country = options.defaultCountry ?? 'US';
  const timeoutMs = options.timeoutMs ?? 10_000;
  const retries = options.retry?.retries ?? 3;
  const minTimeout = options.retry?.minTimeoutMs ?? 250;
  const maxTimeout = options.retry?.maxTimeoutMs ?? 2_000;
  const maxRetryAfterMs = options.retry?.maxRetryAfterMs ?? 5_000;
  const maxContactPages = options.maxContactPages ?? 40;
  const skewMs = options.reconcileSkewMs ?? 60_000;
  const wait = options.sleep ?? sleep;
  const sendRetries = options.sendRetries ?? 3;
  const limiter = options.limiter ?? quoRateLimiter(base, options.apiKey);

  async function once<S extends z.ZodType>(
    method: Method,
    path: string,
    schema: S | null,
    init: { query?: Query; body?: unknown; what: string },
  ): Promise<z.output<S>> {
    const url = new URL(`${base}${path}`);
    for (const [k, v] of Object.entries(init.query ?? {})) {
      if (v === undefined) continue;
      for (const item of Array.isArray(v) ? v : [v]) url.searchParams.append(k, String(item));
    }
    const isWrite = method !== 'GET';
    await limiter.acquire();
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: {
          Authorization: options.apiKey,
          Accept: 'application/json',
          ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (cause) {
      const timedOut = cause instanceof Error && cause.name === 'TimeoutError';
      throw new OpenPhoneApiError(
        `OpenPhone ${timedOut ? 'did not answer in time' : 'could not be reached'} (${init.what})`,
        { code: 'openphone_unreachable', retryable: true, outcomeUnknown: isWrite, cause },
      );
    }

    const text = await res.text().catch(() => '');
    if (!res.ok) throw errorFor(res, text, init.what, isWrite);
    if (schema === null) return undefined as z.output<S>;

    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new OpenPhoneApiError(`OpenPhone answered ${init.what} with a body that is not JSON`, {
        code: 'openphone_bad_response',
        retryable: false,
        httpStatus: res.status,
      });
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new OpenPhoneApiError(
        `OpenPhone answered ${init.what} in an unexpected shape: ${describeZodIssues(parsed.error.issues)}`,
        { code: 'openphone_bad_response', retryable: false, httpStatus: res.status },
      );
    }
    return parsed.data;
  }

  function read<S extends z.ZodType>(path: string, schema: S, init: { query?: Query; what: string }) {
    return pRetry(() => once('GET', path, schema, init), {
      retries,
      minTimeout: minTimeout,
      maxTimeout: maxTimeout,
      factor: 2,
      randomize: true,
      shouldRetry: ({ error }) => isAppError(error) && error.retryable,
      onFailedAttempt: async ({ error, retryDelay, retriesLeft }) => {
        // p-retry's own delay follows; top it up to what the server asked for, within our bound.
        const asked = error instanceof OpenPhoneApiError ? error.retryAfterMs : undefined;
        if (asked !== undefined && retriesLeft > 0 && asked > retryDelay) {
          await wait(Math.min(asked, maxRetryAfterMs) - retryDelay);
        }
      },
    });
  }

  function write<S extends z.ZodType>(
    method: Exclude<Method, 'GET'>,
    path: string,
    schema: S | null,
    init: { body?: unknown; what: string },
  ) {
    return once(method, path, schema, init);
  }

  let lineCache: { at: number; lines: PhoneLine[] } | undefined;

  async function listPhoneNumbers(): Promise<PhoneLine[]> {
    const body = await read('/v1/phone-numbers', openPhoneList(openPhonePhoneNumber), {
      what: 'list phone numbers',
    });
    const lines = body.data.map(toLine);
    lineCache = { at: Date.now(), lines };
    return lines;
  }

  /** List endpoints take the line's id; callers may know only its number. */
  async function lineId(line: string): Promise<string> {
    if (/^PN/.test(line)) return line;
    const number = requireE164(line, 'line', country);
    const cached =
      lineCache && Date.now() - lineCache.at < LINE_CACHE_MS ? lineCache.lines : await listPhoneNumbers();
    const found = cached.find((l) => l.number === number);
    if (!found) throw new NotFoundError(`No OpenPhone line with number ${number}`);
    return found.id;
  }

  async function listMessages(input: ListMessagesInput): Promise<Page<SmsMessage>> {
    if (input.participants.length === 0)
      throw new ValidationError('participants: at least one number is required');
    const body = await read('/v1/messages', openPhoneList(openPhoneMessage), {
      what: 'list messages',
      query: {
        phoneNumberId: await lineId(input.line),
        // Quo's docs show `participants[]=`; their OpenAPI leaves the array style implicit.
        'participants[]': input.participants.map((p) => requireE164(p, 'participants', country)),
        maxResults: clamp(input.maxResults ?? 20, 1, 100),
        createdAfter: iso(input.createdAfter),
        createdBefore: iso(input.createdBefore),
        pageToken: input.pageToken,
      },
    });
    return { items: body.data.map(toSms), nextPageToken: body.nextPageToken ?? null };
  }

  const gateway: SmsGateway = {
    listPhoneNumbers,

    async listContacts() {
      const contacts: Contact[] = [];
      let pageToken: string | undefined;
      for (let page = 0; page < maxContactPages; page++) {
        const body = await read('/v1/contacts', openPhoneList(openPhoneContact), {
          what: 'list contacts',
          query: { maxResults: PAGE_OF_CONTACTS, pageToken },
        });
        contacts.push(...body.data.map((c) => toContact(c, country)));
        if (!body.nextPageToken) return contacts;
        pageToken = body.nextPageToken;
      }
      throw new OpenPhoneApiError(
        `More than ${maxContactPages * PAGE_OF_CONTACTS} OpenPhone contacts; raise maxContactPages`,
        { code: 'openphone_too_many_contacts', retryable: false },
      );
    },

    async getContact(id) {
      const body = await read(`/v1/contacts/${enc(id)}`, openPhoneData(openPhoneContact), {
        what: `contact ${id}`,
      });
      return toContact(body.data, country);
    },

    async createContact(input) {
      const body = await write('POST', '/v1/contacts', openPhoneData(openPhoneContact), {
        what: 'create contact',
        body: contactBody(input, country),
      });
      return toContact(body.data, country);
    },

    async updateContact(id, patch) {
      const body = await write('PATCH', `/v1/contacts/${enc(id)}`, openPhoneData(openPhoneContact), {
        what: `contact ${id}`,
        body: contactPatchBody(patch, country),
      });
      return toContact(body.data, country);
    },

    async deleteContact(id) {
      await write('DELETE', `/v1/contacts/${enc(id)}`, null, { what: `contact ${id}` });
    },

    async sendMessage(input: SendMessageInput) {
      const request = openPhoneSendMessageBody.safeParse({
        content: input.text,
        from: /^PN/.test(input.from) ? input.from : requireE164(input.from, 'from', country),
        to: [requireE164(input.to, 'to', country)],
        userId: input.userId,
      });
      if (!request.success) {
        throw new ValidationError(`Cannot send this text: ${describeZodIssues(request.error.issues)}`);
      }
      const since = new Date();
      for (let attempt = 0; ; attempt++) {
        try {
          const body = await write('POST', '/v1/messages', openPhoneData(openPhoneMessage), {
            what: 'send message',
            body: request.data,
          });
          return toSms(body.data);
        } catch (e) {
          if (!(e instanceof OpenPhoneApiError) || e.httpStatus !== 429) throw e;
          if (attempt >= sendRetries) {
            // Still limited: leave it to the executor, which reconciles before any later attempt.
            throw new OpenPhoneApiError(`${e.message}; not sent after ${attempt + 1} attempts`, {
              code: 'openphone_rate_limited',
              retryable: true,
              httpStatus: 429,
              outcomeUnknown: true,
              cause: e,
            });
          }
          await wait(Math.max(e.retryAfterMs ?? 0, minTimeout * 2 ** attempt));
          // A 429 is refused before processing, but a send is retried only once the provider shows no trace of it.
          const found = await gateway.findSentMessage({
            from: input.from,
            to: input.to,
            text: input.text,
            since,
          });
          if (found) return found;
        }
      }
    },

    async findSentMessage(input: FindSentMessageInput) {
      const to = requireE164(input.to, 'to', country);
      const text = input.text.trim();
      const after = new Date(new Date(input.since).getTime() - skewMs);
      if (Number.isNaN(after.getTime())) throw new ValidationError('since: not a date');
      let pageToken: string | undefined;
      // Bounded: the window is minutes wide, a handful of pages is more than a small team sends in it.
      for (let page = 0; page < 5; page++) {
        const result = await listMessages({
          line: input.from,
          participants: [to],
          createdAfter: after,
          maxResults: 100,
          pageToken,
        });
        const match = result.items.find(
          (m) =>
            m.direction === 'outgoing' &&
            m.to.includes(to) &&
            m.text.trim() === text &&
            Date.parse(m.createdAt) >= after.getTime(),
        );
        if (match) return match;
        if (!result.nextPageToken) return null;
        pageToken = result.nextPageToken;
      }
      return null;
    },

    listMessages,

    async getMessage(id) {
      const body = await read(`/v1/messages/${enc(id)}`, openPhoneData(openPhoneMessage), {
        what: `message ${id}`,
      });
      return toSms(body.data);
    },

    async listCalls(input: ListCallsInput) {
      const body = await read('/v1/calls', openPhoneList(openPhoneCall), {
        what: 'list calls',
        query: {
          phoneNumberId: await lineId(input.line),
          'participants[]': [requireE164(input.participant, 'participant', country)],
          maxResults: clamp(input.maxResults ?? 20, 1, 100),
          createdAfter: iso(input.createdAfter),
          createdBefore: iso(input.createdBefore),
          pageToken: input.pageToken,
        },
      });
      return { items: body.data.map(toCall), nextPageToken: body.nextPageToken ?? null };
    },

    async getCall(id) {
      const body = await read(`/v1/calls/${enc(id)}`, openPhoneData(openPhoneCall), { what: `call ${id}` });
      return toCall(body.data);
    },

    async getCallSummary(callId) {
      const body = await read(`/v1/call-summaries/${enc(callId)}`, openPhoneData(openPhoneCallSummary), {
        what: `summary of call ${callId}`,
      });
      const s = body.data;
      return { callId: s.callId, status: s.status, summary: s.summary ?? [], nextSteps: s.nextSteps ?? [] };
    },

    async getCallTranscript(callId) {
      const body = await read(`/v1/call-transcripts/${enc(callId)}`, openPhoneData(openPhoneCallTranscript), {
        what: `transcript of call ${callId}`,
      });
      const t = body.data;
      return {
        callId: t.callId,
        status: t.status,
        durationSeconds: t.duration,
        createdAt: t.createdAt,
        dialogue: (t.dialogue ?? []).map((d) => ({
          speaker: d.identifier,
          userId: d.userId,
          text: d.content,
          startSeconds: d.start,
          endSeconds: d.end,
        })),
      };
    },
  };
  return gateway;
}

function errorFor(res: Response, text: string, what: string, isWrite: boolean): AppError {
  let vendor: z.output<typeof openPhoneErrorBody> = {};
  try {
    const parsed = openPhoneErrorBody.safeParse(JSON.parse(text));
    if (parsed.success) vendor = parsed.data;
  } catch {
    // Proxies and load balancers answer with HTML; the status alone decides.
  }
  const reason = vendor.message || vendor.description || vendor.title || res.statusText || 'no reason given';
  const vendorCode = vendor.code === undefined ? undefined : String(vendor.code);
  const base = { httpStatus: res.status, vendorCode };
  const status = res.status;

  if (status === 404) return new NotFoundError(`OpenPhone: ${what} not found`);
  if (status === 403) return new ForbiddenError(`OpenPhone refused ${what}: ${reason}`);
  if (status === 401) {
    return new OpenPhoneApiError(`OpenPhone rejected the API key (${what})`, {
      ...base,
      code: 'openphone_unauthorized',
      retryable: false,
    });
  }
  if (status === 429) {
    // Rate limiting happens before the request is processed, so even a send did not go out.
    return new OpenPhoneApiError(`OpenPhone rate limit hit (${what})`, {
      ...base,
      code: 'openphone_rate_limited',
      retryable: true,
      retryAfterMs: retryAfterMs(res.headers.get('retry-after')),
    });
  }
  if (status >= 500) {
    return new OpenPhoneApiError(`OpenPhone failed (${status}) on ${what}: ${reason}`, {
      ...base,
      code: 'openphone_unavailable',
      retryable: true,
      outcomeUnknown: isWrite,
    });
  }
  return new OpenPhoneApiError(`OpenPhone rejected ${what} (${status}): ${reason}`, {
    ...base,
    code: 'openphone_rejected',
    retryable: false,
  });
}

function toLine(p: OpenPhonePhoneNumber): PhoneLine {
  return {
    id: p.id,
    number: p.number,
    name: p.name ?? p.formattedNumber ?? p.number,
    users: p.users.map((u) => ({
      id: u.id,
      email: u.email ?? null,
      name: [u.firstName, u.lastName].filter(Boolean).join(' ') || (u.email ?? u.id),
      role: u.role ?? null,
    })),
  };
}

function toContact(c: OpenPhoneContact, country: CountryCode): Contact {
  const f = c.defaultFields;
  const phones = (f.phoneNumbers ?? [])
    .filter((p): p is typeof p & { value: string } => typeof p.value === 'string' && p.value.length > 0)
    .map((p) => ({ label: p.name ?? '', value: p.value, e164: toE164(p.value, country) }));
  const emails = (f.emails ?? [])
    .filter((e): e is typeof e & { value: string } => typeof e.value === 'string' && e.value.length > 0)
    .map((e) => ({ label: e.name ?? '', value: e.value }));
  const firstName = f.firstName ?? '';
  const lastName = f.lastName ?? '';
  return {
    id: c.id,
    firstName,
    lastName,
    displayName: `${firstName} ${lastName}`.trim() || f.company || phones[0]?.value || c.id,
    company: f.company ?? null,
    role: f.role ?? null,
    phones,
    emails,
    externalId: c.externalId ?? null,
    createdAt: c.createdAt ?? null,
    updatedAt: c.updatedAt ?? null,
  };
}

function toSms(m: OpenPhoneMessage): SmsMessage {
  return {
    id: m.id,
    direction: m.direction,
    from: m.from,
    to: m.to,
    text: m.text,
    status: m.status,
    lineId: m.phoneNumberId ?? null,
    userId: m.userId ?? null,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt ?? null,
  };
}

function toCall(c: OpenPhoneCall): CallRecord {
  return {
    id: c.id,
    lineId: c.phoneNumberId,
    direction: c.direction,
    status: c.status,
    participants: c.participants,
    durationSeconds: c.duration,
    userId: c.userId ?? null,
    createdAt: c.createdAt,
    answeredAt: c.answeredAt ?? null,
    completedAt: c.completedAt ?? null,
  };
}

function contactBody(input: ContactInput, country: CountryCode): OpenPhoneContactBody {
  const firstName = input.firstName?.trim();
  if (!firstName) throw new ValidationError('firstName: required');
  return {
    defaultFields: {
      firstName,
      lastName: input.lastName ?? null,
      company: input.company ?? null,
      role: input.role ?? null,
      phoneNumbers: phoneFields(input.phones, country) ?? [],
      emails: input.emails?.map((e) => ({ name: e.label, value: e.value })) ?? [],
    },
    ...(input.externalId === undefined ? {} : { externalId: input.externalId }),
  };
}

/**
 * Only the fields present are sent. Whether a PATCH that carries `phoneNumbers` replaces the list or merges
 * into it is not stated in Quo's docs; we send the full intended list so either reading ends the same.
 */
function contactPatchBody(patch: ContactPatch, country: CountryCode): OpenPhoneContactPatchBody {
  const fields: NonNullable<OpenPhoneContactPatchBody['defaultFields']> = {};
  if (patch.firstName !== undefined) {
    if (!patch.firstName.trim()) throw new ValidationError('firstName: must not be blank');
    fields.firstName = patch.firstName.trim();
  }
  if (patch.lastName !== undefined) fields.lastName = patch.lastName;
  if (patch.company !== undefined) fields.company = patch.company;
  if (patch.role !== undefined) fields.role = patch.role;
  if (patch.phones !== undefined) fields.phoneNumbers = phoneFields(patch.phones, country);
  if (patch.emails !== undefined)
    fields.emails = patch.emails.map((e) => ({ name: e.label, value: e.value }));
  if (Object.keys(fields).length === 0 && patch.externalId === undefined) {
    throw new ValidationError('Nothing to update');
  }
  return {
    ...(Object.keys(fields).length ? { defaultFields: fields } : {}),
    ...(patch.externalId === undefined ? {} : { externalId: patch.externalId }),
  };
}

function phoneFields(phones: ContactInput['phones'], country: CountryCode) {
  return phones?.map((p) => ({ name: p.label || 'mobile', value: requireE164(p.number, 'phones', country) }));
}

function requireE164(value: string, field: string, country: CountryCode): string {
  const e164 = toE164(value, country);
  if (!e164) throw new ValidationError(`${field}: "${value}" is not a valid phone number`);
  return e164;
}

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function iso(value: Date | string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new ValidationError(`"${String(value)}" is not a date`);
  return d.toISOString();
}

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Math.trunc(n)));
const enc = (id: string) => encodeURIComponent(id);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
