import * as z from 'zod/mini';
import { describeZodIssues, ValidationError } from '../errors';
import { boundedString } from '../zod-mini';

/**
 * Twilio status callbacks as data: the form body, its zod schemas and the update the page store records.
 * The signature check (Twilio's own validator) is the adapter's (adapters/twilio-webhooks.ts).
 */
/** Decodes a form-encoded body into the flat map Twilio signs (status callbacks carry no repeated keys). */
export function twilioFormParams(rawBody: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(rawBody));
}

// zod/mini: this is on the status webhook's cold-start path (issue 16).
const sid = (prefix: string) =>
  z.string().check(z.regex(new RegExp(`^${prefix}[0-9a-fA-F]{32}$`), `must be a ${prefix}… sid`));
const optionalCount = z.optional(
  z.coerce.number().check(z.refine(Number.isInteger, 'must be a whole number'), z.gte(0)),
);
const required = boundedString(1, 10_000);

/** Message status callback parameters (Twilio also sends the legacy SmsSid/SmsStatus twins, unused here). */
export const twilioMessageStatusCallback = z.object({
  AccountSid: sid('AC'),
  MessageSid: z.string().check(z.regex(/^(SM|MM)[0-9a-fA-F]{32}$/)),
  MessageStatus: boundedString(1, 40),
  To: required,
  From: required,
  ErrorCode: z.optional(boundedString(0, 10)),
});

/** Call status callback parameters (`call-progress-events`). */
export const twilioCallStatusCallback = z.object({
  AccountSid: sid('AC'),
  CallSid: sid('CA'),
  CallStatus: boundedString(1, 40),
  To: required,
  From: required,
  CallDuration: optionalCount,
  SequenceNumber: optionalCount,
  Timestamp: z.optional(z.string()),
});

export interface TwilioStatusUpdate {
  kind: 'message' | 'call';
  sid: string;
  accountSid: string;
  status: string;
  to: string;
  from: string;
  errorCode: string | null;
  durationSeconds: number | null;
  /** Orders a call's callbacks, which may arrive out of order. */
  sequence: number | null;
}

/** Validates a (signature-checked) status callback body; ValidationError names the offending field. */
export function parseTwilioStatusCallback(params: Record<string, string>): TwilioStatusUpdate {
  if ('CallSid' in params) {
    const r = twilioCallStatusCallback.safeParse(params);
    if (!r.success)
      throw new ValidationError(`Invalid Twilio call status callback: ${describeZodIssues(r.error.issues)}`);
    return {
      kind: 'call',
      sid: r.data.CallSid,
      accountSid: r.data.AccountSid,
      status: r.data.CallStatus,
      to: r.data.To,
      from: r.data.From,
      errorCode: null,
      durationSeconds: r.data.CallDuration ?? null,
      sequence: r.data.SequenceNumber ?? null,
    };
  }
  const r = twilioMessageStatusCallback.safeParse(params);
  if (!r.success)
    throw new ValidationError(`Invalid Twilio message status callback: ${describeZodIssues(r.error.issues)}`);
  return {
    kind: 'message',
    sid: r.data.MessageSid,
    accountSid: r.data.AccountSid,
    status: r.data.MessageStatus,
    to: r.data.To,
    from: r.data.From,
    errorCode: r.data.ErrorCode ?? null,
    durationSeconds: null,
    sequence: null,
  };
}
