import { z } from 'zod';

/** Every inbound event ends in exactly one of these, with a reason (SPEC §6.3: nothing silently dropped). */
export const ledgerStatus = z.enum([
  'received',
  'processed',
  'coalesced',
  'deferred',
  'duplicate',
  'ignored',
  'rejected',
  'dead_lettered',
]);
export type LedgerStatus = z.infer<typeof ledgerStatus>;

export interface LedgerEntry {
  eventId: string;
  type: string;
  key: string;
  status: LedgerStatus;
  reason: string;
  at: string;
  runId?: string;
  correlationId?: string;
}

export interface EventLedger {
  record(entry: LedgerEntry): Promise<void>;
  get(eventId: string): Promise<LedgerEntry | undefined>;
  /** Entries recorded on a UTC day (YYYY-MM-DD), oldest first. */
  listDay(day: string): Promise<LedgerEntry[]>;
}
