// zod/mini, not classic: the ingress adapters import this port's values (ERASED_LEDGER_KEY, erasedEntry), and
// classic zod in the core every function builds took the webhook's init to 354 KB (budget 300 KB, issue 16).
import * as z from 'zod/mini';

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

/**
 * An event of a deleted conversation (issue 19: "the ledger keeps event ids only") keeps its id, type, status
 * and time; its key (a phone number, an address) and its reason become these. Once an event is marked so, the
 * ledger writes every later entry of it the same way (a turn that ends after the delete records it too).
 */
export const ERASED_LEDGER_KEY = 'erased';
export const ERASED_LEDGER_REASON = 'erased with its conversation (admin delete)';

/** The entry as a deleted conversation's ledger keeps it. */
export function erasedEntry(entry: LedgerEntry): LedgerEntry {
  const { correlationId: _c, ...rest } = entry;
  return { ...rest, key: ERASED_LEDGER_KEY, reason: ERASED_LEDGER_REASON };
}

export interface EventLedger {
  record(entry: LedgerEntry): Promise<void>;
  get(eventId: string): Promise<LedgerEntry | undefined>;
  /** Entries recorded on a UTC day (YYYY-MM-DD), oldest first. */
  listDay(day: string): Promise<LedgerEntry[]>;
}
