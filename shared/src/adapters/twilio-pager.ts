import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js';
import { type AppError, isAppError, UpstreamError, ValidationError } from '../errors';
import type { OnCallPage, OnCallPager, PageChannelResult, PageResult } from '../ports/on-call-pager';

export type { OnCallPage, OnCallPager, PageChannelResult, PageResult };

/**
 * Pages the on-call person through Twilio: an SMS and a voice call that reads the alert out with TwiML
 * `<Say>`. Speaks Twilio's REST API with fetch, sending what the `twilio` SDK sends for the same two creates
 * (see `twilioRest`); the local emulator (and tests) replace only the origin (`apiBase`).
 *
 * Nothing here is retried: paging is a write, and the caller de-duplicates per event. Both channels are
 * attempted independently and each reports its own outcome, so one failing never hides that the other
 * went out (which a thrown error would, inviting a retry that pages twice).
 */
export interface TwilioPagerOptions {
  /** TWILIO_ACCOUNT_SID (AC…). */
  accountSid: string;
  /** TWILIO_AUTH_TOKEN. */
  authToken: string;
  /** TWILIO_FROM_NUMBER: a Twilio number able to send SMS and place calls. */
  fromNumber: string;
  /** TWILIO_API_BASE: replaces the origin of https://api.twilio.com (the emulator's URL). Unset in production. */
  apiBase?: string;
  /** Where Twilio posts delivery status (PUBLIC_BASE_URL + the status route); omitted → no callbacks. */
  statusCallbackUrl?: string;
  defaultCountry?: CountryCode;
  /** Per-request timeout. Default 10 s. */
  timeoutMs?: number;
}

/** A Twilio failure; `twilioCode` is Twilio's numeric error code (e.g. 21211 invalid 'To'). */
export class TwilioApiError extends UpstreamError {
  readonly httpStatus: number | undefined;
  readonly twilioCode: number | undefined;
  /** True when the request may have been carried out (no answer, or a 5xx). */
  readonly outcomeUnknown: boolean;

  constructor(
    message: string,
    opts: {
      code: string;
      retryable: boolean;
      httpStatus?: number;
      twilioCode?: number;
      outcomeUnknown?: boolean;
      cause?: unknown;
    },
  ) {
    super(message, { code: opts.code, retryable: opts.retryable, cause: opts.cause });
    this.httpStatus = opts.httpStatus;
    this.twilioCode = opts.twilioCode;
    this.outcomeUnknown = opts.outcomeUnknown ?? false;
  }
}

const VOICE_MAX_CHARS = 500;
const CALL_EVENTS = ['initiated', 'ringing', 'answered', 'completed'];

const API_VERSION = '2010-04-01';

/** Twilio's error body (`{ code, message, more_info, status }`), as the SDK's RestException reads it. */
interface TwilioErrorBody {
  code?: number;
  message?: string;
}

/** A refusal Twilio answered with an HTTP status (what the SDK raises as RestException). */
class TwilioHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | undefined,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Twilio's REST API 2010-04-01 directly: the two creates the pager needs are form-encoded POSTs with HTTP
 * Basic auth (Account SID : Auth Token), exactly what the `twilio` SDK sends for `messages.create` and
 * `calls.create` (lib/rest/api/v2010/account/{message,call}.js; arrays repeated, as its `qs` encoding does).
 * The SDK itself is 3.2 MB of generated API surface in the worker's bundle for these two calls (issue 16).
 */
function twilioRest(options: TwilioPagerOptions, timeoutMs: number) {
  const origin = (options.apiBase ?? 'https://api.twilio.com').replace(/\/$/, '');
  const auth = `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString('base64')}`;
  return async (resource: 'Messages' | 'Calls', params: Record<string, string | string[]>) => {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) for (const one of [v].flat()) form.append(k, one);
    const url = `${origin}/${API_VERSION}/Accounts/${encodeURIComponent(options.accountSid)}/${resource}.json`;
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: auth,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: form,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await res.json().catch(() => ({}))) as TwilioErrorBody & { sid?: string; status?: string };
    if (!res.ok) {
      throw new TwilioHttpError(res.status, body.code, body.message ?? `HTTP ${res.status}`);
    }
    if (!body.sid) throw new Error(`Twilio answered ${res.status} without a resource`);
    return { sid: body.sid, status: String(body.status ?? 'queued') };
  };
}

export function createTwilioPager(options: TwilioPagerOptions): OnCallPager {
  const post = twilioRest(options, options.timeoutMs ?? 10_000);
  const country = options.defaultCountry ?? 'US';

  return {
    async page(input) {
      const to = parsePhoneNumberFromString(input.to, country);
      if (!to?.isValid()) throw new ValidationError(`to: "${input.to}" is not a valid phone number`);
      const text = input.text.trim();
      if (!text || text.length > 1600) throw new ValidationError('text: 1 to 1600 characters required');
      const channels = new Set(input.channels ?? ['sms', 'voice']);
      const callback = options.statusCallbackUrl;

      const [sms, voice] = await Promise.all([
        channels.has('sms')
          ? settle('send the page SMS', () =>
              post('Messages', {
                To: to.number,
                From: options.fromNumber,
                Body: text,
                ...(callback ? { StatusCallback: callback } : {}),
              }),
            )
          : undefined,
        channels.has('voice')
          ? settle('place the page call', () =>
              post('Calls', {
                To: to.number,
                From: options.fromNumber,
                Twiml: pageTwiml(input.voiceText ?? text),
                ...(callback
                  ? {
                      StatusCallback: callback,
                      StatusCallbackMethod: 'POST',
                      StatusCallbackEvent: CALL_EVENTS,
                    }
                  : {}),
              }),
            )
          : undefined,
      ]);
      return { ...(sms ? { sms } : {}), ...(voice ? { voice } : {}) };
    },
  };
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
const xmlText = (s: string) => s.replace(/[&<>]/g, (c) => XML_ESCAPES[c] ?? c);

/**
 * The call's TwiML: the alert read twice with a pause, because the first words are often lost while answering.
 * Written out as the SDK's VoiceResponse prints it (text content escapes &, < and >).
 */
export function pageTwiml(text: string): string {
  const spoken = text.length > VOICE_MAX_CHARS ? `${text.slice(0, VOICE_MAX_CHARS - 1)}…` : text;
  return [
    '<?xml version="1.0" encoding="UTF-8"?><Response>',
    `<Say>${xmlText(`Urgent page from Switchboard. ${spoken}`)}</Say>`,
    '<Pause length="1"/>',
    `<Say>${xmlText(`Again: ${spoken}`)}</Say>`,
    '</Response>',
  ].join('');
}

async function settle(
  what: string,
  run: () => Promise<{ sid: string; status: string }>,
): Promise<PageChannelResult> {
  try {
    const created = await run();
    return { ok: true, sid: created.sid, status: created.status };
  } catch (err) {
    return { ok: false, error: toAppError(err, what) };
  }
}

function toAppError(err: unknown, what: string): AppError {
  if (isAppError(err)) return err;
  if (err instanceof TwilioHttpError) {
    const base = { httpStatus: err.status, twilioCode: err.code, cause: err };
    const detail = `Twilio ${err.code ?? err.status}: ${err.message}`;
    if (err.status === 401 || err.status === 403) {
      return new TwilioApiError(`Twilio rejected our credentials trying to ${what} (${detail})`, {
        ...base,
        code: 'twilio_unauthorized',
        retryable: false,
      });
    }
    if (err.status === 429) {
      return new TwilioApiError(`Twilio rate limit hit trying to ${what}`, {
        ...base,
        code: 'twilio_rate_limited',
        retryable: true,
      });
    }
    if (err.status >= 500) {
      return new TwilioApiError(`Twilio failed trying to ${what} (${detail})`, {
        ...base,
        code: 'twilio_unavailable',
        retryable: true,
        outcomeUnknown: true,
      });
    }
    return new TwilioApiError(`Twilio refused to ${what} (${detail})`, {
      ...base,
      code: 'twilio_rejected',
      retryable: false,
    });
  }
  // Transport failures (refused, reset, timed out): we cannot know whether Twilio acted on them.
  return new TwilioApiError(`Twilio could not be reached to ${what}`, {
    code: 'twilio_unreachable',
    retryable: true,
    outcomeUnknown: true,
    cause: err,
  });
}

// Status-callback verification lives apart so the status webhook does not bundle the whole REST client.
export {
  parseTwilioStatusCallback,
  type TwilioStatusUpdate,
  twilioCallStatusCallback,
  twilioFormParams,
  twilioMessageStatusCallback,
  verifyTwilioStatusCallback,
} from './twilio-webhooks';
