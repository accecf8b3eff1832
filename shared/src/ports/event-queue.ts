import type { EventEnvelope } from '../contracts/events';

export interface EventQueue {
  /** Sends one event; `delaySeconds` (0–900) defers delivery, used to coalesce events after a cooldown. */
  send(event: EventEnvelope, opts?: { delaySeconds?: number }): Promise<void>;
  /**
   * Sends several events in as few requests as the queue allows (SQS: 10 per SendMessageBatch); throws when
   * any one was not accepted, having sent the others. Optional: callers fall back to `send` each.
   */
  sendBatch?(events: EventEnvelope[]): Promise<void>;
}
