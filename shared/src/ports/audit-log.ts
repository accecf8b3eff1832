import type { AuditEvent } from '../contracts/conversations';

/** Append-only per conversation; nothing updates or deletes an entry. */
export interface AuditLog {
  append(e: Omit<AuditEvent, 'id' | 'at'> & { at?: string }): Promise<void>;
  list(conversationId: string, opts?: { limit?: number }): Promise<AuditEvent[]>;
}
