import type { EventEnvelope } from '../contracts/events';
import type { CooldownStore } from '../ports/cooldown-store';
import type { EventLedger } from '../ports/event-ledger';
import type { EventQueue } from '../ports/event-queue';
import type { Log } from '../ports/logger';

export interface AdmitDeps {
  ledger: EventLedger;
  cooldowns: CooldownStore;
  queue: EventQueue;
  log: Log;
  clock: () => Date;
  cooldownSeconds: number;
  /**
   * Whether an event is an emergency (issue 17: the webhook's keyword flag, or the worker's classifier).
   * Urgent never waits: inside a taken window it runs at once and takes the parked events with it.
   */
  isUrgent?: (event: EventEnvelope) => Promise<boolean>;
}

export type Admission =
  | { decision: 'run'; events: EventEnvelope[] }
  | { decision: 'duplicate' | 'deferred'; events: [] };

/** Triggers from outside are rate-limited per key; people's own actions (chat, approvals) never wait. */
const COOLED_TYPES = new Set<EventEnvelope['type']>(['sms.received', 'email.received']);
const FINAL = new Set(['processed', 'coalesced', 'duplicate', 'ignored', 'rejected']);

async function urgent(deps: AdmitDeps, event: EventEnvelope): Promise<boolean> {
  if (event.type === 'sms.received' && event.payload.urgent) return true;
  if (!deps.isUrgent) return false;
  try {
    return await deps.isUrgent(event);
  } catch (e) {
    // A classifier failure must not lose or delay the event beyond what the cooldown already does.
    deps.log.warn('cooldown.urgency_unknown', { eventId: event.id, error: String(e) });
    return false;
  }
}

/**
 * Decides whether an event starts a run now. Primary course:
 * 1. an event already handled (redelivery) is a duplicate;
 * 2. an event of a cooled type claims the key's window with a conditional write; if it wins, it takes
 *    every event parked on the key and they run together;
 * 3. if the window is taken and the event is an emergency, it runs now with every parked event (urgent
 *    never waits for the window's end);
 * 4. otherwise the event is parked on the key and re-sent with a delay to the window's end,
 *    so it is either coalesced into the next run or starts it — never dropped (SPEC §4).
 */
export async function admitEvent(deps: AdmitDeps, event: EventEnvelope): Promise<Admission> {
  const prior = await deps.ledger.get(event.id);
  if (prior && FINAL.has(prior.status)) {
    deps.log.info('event.duplicate', { eventId: event.id, key: event.key, prior: prior.status });
    return { decision: 'duplicate', events: [] };
  }
  if (!COOLED_TYPES.has(event.type)) return { decision: 'run', events: [event] };

  // A re-sent copy of a parked event: if a run already took it off the key, that run owns it (and its
  // stored input keeps it even if the run has to be redelivered), so this copy has nothing left to do.
  const returning = prior?.status === 'deferred';
  if (returning && !(await deps.cooldowns.isParked(event.key, event.id))) {
    deps.log.info('cooldown.taken_by_run', { key: event.key, eventId: event.id });
    return { decision: 'duplicate', events: [] };
  }

  const now = deps.clock();
  const start = await deps.cooldowns.tryStart(event.key, deps.cooldownSeconds, now);
  if (start.acquired) {
    const parked = await deps.cooldowns.takeParked(event.key);
    const byId = new Map<string, EventEnvelope>();
    for (const e of [...parked, event]) byId.set(e.id, e);
    const events = [...byId.values()].sort((a, b) => a.occurredAt.localeCompare(b.occurredAt));
    deps.log.info('cooldown.run', { key: event.key, count: events.length });
    return { decision: 'run', events };
  }

  if (await urgent(deps, event)) {
    const parked = await deps.cooldowns.takeParked(event.key);
    const byId = new Map<string, EventEnvelope>();
    for (const e of [...parked, event]) byId.set(e.id, e);
    const events = [...byId.values()].sort((a, b) => a.occurredAt.localeCompare(b.occurredAt));
    deps.log.info('cooldown.urgent_now', { key: event.key, count: events.length });
    return { decision: 'run', events };
  }
  if (!returning) await deps.cooldowns.park(event.key, event);
  const delaySeconds = Math.max(1, Math.ceil((start.until.getTime() - now.getTime()) / 1000) + 1);
  await deps.queue.send(event, { delaySeconds });
  if (!returning) {
    await deps.ledger.record({
      eventId: event.id,
      type: event.type,
      key: event.key,
      status: 'deferred',
      reason: `cooldown active until ${start.until.toISOString()}`,
      at: now.toISOString(),
      correlationId: event.correlationId,
    });
  }
  deps.log.info('cooldown.coalesced', { key: event.key, eventId: event.id, delaySeconds });
  return { decision: 'deferred', events: [] };
}
