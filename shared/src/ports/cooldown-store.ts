import type { EventEnvelope } from '../contracts/events';

export type CooldownStart = { acquired: true; until: Date } | { acquired: false; until: Date };

/**
 * Per-key run windows (SPEC §4). `tryStart` is a conditional write, so at most one run per key per window
 * across every worker; events that arrive inside the window are parked with `park` and handed to the next
 * run by `takeParked` (atomic read-and-clear), so none is dropped.
 */
export interface CooldownStore {
  tryStart(key: string, windowSeconds: number, now: Date): Promise<CooldownStart>;
  park(key: string, event: EventEnvelope): Promise<void>;
  takeParked(key: string): Promise<EventEnvelope[]>;
  /** Whether the event still waits on the key (false once a run has taken it). */
  isParked(key: string, eventId: string): Promise<boolean>;
}
