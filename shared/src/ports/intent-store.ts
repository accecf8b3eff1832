import type { PendingIntent } from '../contracts/conversations';

export interface IntentStore {
  /** The conversation's unexpired pending intent (expiry is checked on read: TTL deletion is lazy). */
  get(conversationId: string, now: Date): Promise<PendingIntent | undefined>;
  put(intent: PendingIntent): Promise<void>;
  clear(conversationId: string): Promise<void>;
}
