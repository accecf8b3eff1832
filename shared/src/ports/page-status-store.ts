import type { TwilioStatusUpdate } from '../contracts/twilio';

/** Delivery status of on-call pages (Twilio status callbacks), kept per message/call sid. */
export interface PageStatusStore {
  record(update: TwilioStatusUpdate, at: string): Promise<void>;
  get(sid: string): Promise<Array<TwilioStatusUpdate & { at: string }>>;
}
