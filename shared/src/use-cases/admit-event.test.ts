import { describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../contracts/events';
import type { CooldownStore } from '../ports/cooldown-store';
import type { EventLedger, LedgerEntry } from '../ports/event-ledger';
import { silentLog } from '../ports/logger';
import { InMemoryEventQueue } from '../testing/in-memory-stores';
import { admitEvent } from './admit-event';

/** One window per key, parked events kept in order: the contract of the DynamoDB store, in memory. */
function memoryCooldowns(): CooldownStore {
  const until = new Map<string, Date>();
  const parked = new Map<string, EventEnvelope[]>();
  return {
    async tryStart(key, seconds, now) {
      const end = until.get(key);
      if (end && end > now) return { acquired: false, until: end };
      const next = new Date(now.getTime() + seconds * 1000);
      until.set(key, next);
      return { acquired: true, until: next };
    },
    async park(key, e) {
      parked.set(key, [...(parked.get(key) ?? []), e]);
    },
    async takeParked(key) {
      const out = parked.get(key) ?? [];
      parked.delete(key);
      return out;
    },
    async isParked(key, id) {
      return (parked.get(key) ?? []).some((e) => e.id === id);
    },
  };
}

function memoryLedger(): EventLedger {
  const entries = new Map<string, LedgerEntry>();
  return {
    async record(e) {
      entries.set(e.eventId, e);
    },
    async get(id) {
      return entries.get(id);
    },
    async listDay() {
      return [...entries.values()];
    },
  };
}

const sms = (id: string, text: string, urgent = false): EventEnvelope => ({
  id,
  type: 'sms.received',
  correlationId: id,
  key: 'sms:+14155550111',
  occurredAt: new Date(Date.UTC(2026, 10, 23, 15, 0, Number(id.slice(-1)))).toISOString(),
  payload: { messageId: id, from: '+14155550111', to: '+14155550100', text, receivedAt: '', urgent },
});

describe('cooldown and emergencies (issue 17: urgent never waits)', () => {
  const now = new Date(Date.UTC(2026, 10, 23, 15, 0, 10));
  const deps = (isUrgent?: (e: EventEnvelope) => Promise<boolean>) => ({
    ledger: memoryLedger(),
    cooldowns: memoryCooldowns(),
    queue: new InMemoryEventQueue(),
    log: silentLog,
    clock: () => now,
    cooldownSeconds: 60,
    ...(isUrgent ? { isUrgent } : {}),
  });

  it('parks a routine text inside the window, but runs an emergency at once with the parked ones', async () => {
    const d = deps(async (e) => e.type === 'sms.received' && e.payload.text.includes('ceiling'));
    expect((await admitEvent(d, sms('e1', 'the dishwasher is loud'))).decision).toBe('run');
    expect((await admitEvent(d, sms('e2', 'also the disposal'))).decision).toBe('deferred');
    const urgent = await admitEvent(d, sms('e3', "it's raining from the ceiling now"));
    expect(urgent.decision).toBe('run');
    expect(urgent.events.map((e) => e.id)).toEqual(['e2', 'e3']);
  });

  it('treats the webhook keyword flag as urgent, and a classifier failure as routine', async () => {
    const d = deps(async () => {
      throw new Error('model file missing');
    });
    await admitEvent(d, sms('e1', 'hello'));
    expect((await admitEvent(d, sms('e2', 'what time is the viewing'))).decision).toBe('deferred');
    expect((await admitEvent(d, sms('e3', 'FLOOD in the basement', true))).decision).toBe('run');
  });
});
