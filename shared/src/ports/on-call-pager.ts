import type { AppError } from '../errors';

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

/** What the escalation tool needs to page on-call (Twilio: adapters/twilio-pager.ts). */
export interface OnCallPager {
  page(input: OnCallPage): Promise<PageResult>;
}
