import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js';
import twilio from 'twilio';
import { type AppError, isAppError, UpstreamError, ValidationError } from '../errors';

/**
 * Pages the on-call person through Twilio: an SMS and a voice call that reads the alert out with TwiML
 * `<Say>`. Uses the `twilio` SDK; for the local emulator (and tests) the SDK's own documented extension
 * point, a custom `httpClient`, swaps the origin of every request, so the SDK still builds the URLs,
 * form-encodes the parameters and authenticates exactly as it does against api.twilio.com.
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

export interface OnCallPage {
  /** The on-call person's number (any format libphonenumber-js reads). */
  to: string;
  /** SMS text, 1–1600 characters. */
  text: string;
  /** What the call says; defaults to `text`, shortened. */
  voiceText?: string;
  /** Default both. */
  channels?: Array<'sms' | 'voice'>;
}

export type PageChannelResult = { ok: true; sid: string; status: string } | { ok: false; error: AppError };

export interface PageResult {
  sms?: PageChannelResult;
  voice?: PageChannelResult;
}

/** What the escalation use case needs (kept beside its only adapter until a second one exists). */
export interface OnCallPager {
  page(input: OnCallPage): Promise<PageResult>;
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

type RequestOptions = Parameters<InstanceType<typeof twilio.RequestClient>['request']>[0];

/** The SDK's request client with the origin swapped; everything else (auth, encoding, parsing) is the SDK's. */
class OriginOverrideRequestClient extends twilio.RequestClient {
  private readonly origin: URL;

  constructor(origin: string, timeoutMs: number) {
    super({ timeout: timeoutMs, autoRetry: false });
    this.origin = new URL(origin);
  }

  override request<TData>(opts: RequestOptions & { data?: TData }) {
    const uri = new URL(opts.uri);
    uri.protocol = this.origin.protocol;
    uri.host = this.origin.host;
    return super.request({ ...opts, uri: uri.toString() });
  }
}

export function createTwilioPager(options: TwilioPagerOptions): OnCallPager {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const client = twilio(options.accountSid, options.authToken, {
    autoRetry: false,
    timeout: timeoutMs,
    ...(options.apiBase ? { httpClient: new OriginOverrideRequestClient(options.apiBase, timeoutMs) } : {}),
  });
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
              client.messages.create({
                to: to.number,
                from: options.fromNumber,
                body: text,
                ...(callback ? { statusCallback: callback } : {}),
              }),
            )
          : undefined,
        channels.has('voice')
          ? settle('place the page call', () =>
              client.calls.create({
                to: to.number,
                from: options.fromNumber,
                twiml: pageTwiml(input.voiceText ?? text),
                ...(callback
                  ? {
                      statusCallback: callback,
                      statusCallbackMethod: 'POST',
                      statusCallbackEvent: CALL_EVENTS,
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

/** The call's TwiML: the alert read twice with a pause, because the first words are often lost while answering. */
export function pageTwiml(text: string): string {
  const spoken = text.length > VOICE_MAX_CHARS ? `${text.slice(0, VOICE_MAX_CHARS - 1)}…` : text;
  const response = new twilio.twiml.VoiceResponse();
  response.say(`Urgent page from Switchboard. ${spoken}`);
  response.pause({ length: 1 });
  response.say(`Again: ${spoken}`);
  return response.toString();
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
  if (err instanceof twilio.RestException) {
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
  // Transport failures surface from the SDK's HTTP library; we cannot know whether Twilio acted on them.
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
