import type { EventEnvelope } from '../contracts/events';

export interface EventQueue {
  /** Sends one event; `delaySeconds` (0–900) defers delivery, used to coalesce events after a cooldown. */
  send(event: EventEnvelope, opts?: { delaySeconds?: number }): Promise<void>;
}
