import type { EventEnvelope } from '../contracts/events';

/**
 * One-time timers (card expiry, re-notification, later issues' reminders). A timer puts its event on the
 * events queue at `at`, where the worker handles it like any other event (ledger, idempotency). The one
 * production implementation is EventBridge Scheduler; locally the same SDK client talks to our emulator.
 */
export interface Timers {
  /**
   * Creates the one-time schedule `name` (unique per purpose, e.g. `expire-<hash>`). Idempotent: if a
   * schedule of that name already exists (a replayed step) it is kept and this resolves.
   */
  scheduleAt(name: string, at: Date, event: EventEnvelope): Promise<void>;
  /** Deletes it; a schedule that already fired (deleted after completion) or never existed is not an error. */
  cancel(name: string): Promise<void>;
}
