import { describe, expect, test } from 'vitest';
import { expiryTimerName, renotifyTimerName } from '../agent/card-timers';
import type { PendingAction } from '../contracts/conversations';
import type { EventOf } from '../contracts/events';
import type { Run } from '../contracts/runs';
import type { Timers } from '../ports/timers';
import { inMemoryStores } from '../testing/in-memory-stores';
import { endDeadLettered } from './end-dead-lettered';
import { handleTimerFired } from './expire-card';
import { redraftCard } from './redraft-card';
import { retryAction } from './retry-action';
import { supersedePending } from './supersede-drafts';

const now = new Date('2026-11-24T10:00:00Z');
const log = { debug() {}, info() {}, warn() {}, error() {} };

async function world(status: PendingAction['status'] = 'PENDING') {
  const s = inMemoryStores(() => now);
  const deps = { ...s, log, clock: () => now };
  await s.conversations.create({
    id: 'c1',
    title: 'Maria',
    source: 'sms',
    preview: '',
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    lastMessageAt: now.toISOString(),
    createdBy: 'system',
    pendingCount: status === 'PENDING' ? 1 : 0,
    readBy: {},
  });
  const run: Run = {
    id: 'run_1',
    conversationId: 'c1',
    status: 'awaiting_approval',
    mode: 'rules',
    trigger: { type: 'sms.received', key: 'sms:+1', eventIds: ['e1'] },
    iteration: 0,
    nextSeq: 3,
    awaitingActionId: 'act_1',
    usage: {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0,
      modelCalls: 0,
    },
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  await s.runs.create(run);
  const card: PendingAction = {
    id: 'act_1',
    conversationId: 'c1',
    runId: 'run_1',
    tool: 'send_message',
    args: { to: '+14155550111', text: 'Hi' },
    argsHash: 'h',
    summary: 'Text Maria: Hi',
    status,
    proposedBy: 'planner',
    reason: 'ack',
    review: {},
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    version: 0,
  };
  await s.actions.create(card);
  return { s, deps, card };
}

const timer = (kind: 'card.expire' | 'card.renotify'): EventOf<'timer.fired'> => ({
  id: `timer_${kind}`,
  type: 'timer.fired',
  correlationId: 'conv:c1',
  key: 'conv:c1',
  occurredAt: now.toISOString(),
  payload: { kind, conversationId: 'c1', actionId: 'act_1', runId: 'run_1', dueAt: now.toISOString() },
});

describe('card expiry', () => {
  test('expires a waiting card once: repeated delivery adds no second message, count or alert', async () => {
    const { s, deps } = await world();
    await handleTimerFired(deps, timer('card.expire'));
    await handleTimerFired(deps, timer('card.expire'));
    expect((await s.actions.get('c1', 'act_1'))?.status).toBe('EXPIRED');
    expect((await s.runs.get('c1', 'run_1'))?.status).toBe('completed');
    expect((await s.conversations.get('c1'))?.pendingCount).toBe(0);
    expect((await s.conversations.listMessages('c1')).filter((m) => /expired/.test(m.text))).toHaveLength(1);
    expect(new Set(s.queue.ofType('notify').map((e) => e.id)).size).toBe(1);
  });

  test('a card decided before the timer is left alone, and re-notify skips it', async () => {
    const { s, deps } = await world('APPROVED');
    expect((await handleTimerFired(deps, timer('card.renotify'))).outcome).toMatch(/already APPROVED/);
    expect((await handleTimerFired(deps, timer('card.expire'))).outcome).toMatch(/already APPROVED/);
    expect((await s.actions.get('c1', 'act_1'))?.status).toBe('APPROVED');
    expect(s.queue.sent).toHaveLength(0);
  });
});

describe('dead letters and retry', () => {
  const decided: EventOf<'approval.decided'> = {
    id: 'ev_dec',
    type: 'approval.decided',
    correlationId: 'conv:c1',
    key: 'conv:c1',
    occurredAt: now.toISOString(),
    payload: { conversationId: 'c1', actionId: 'act_1', runId: 'run_1' },
  };

  test('an interrupted send ends FAILED saying its outcome is unknown; the run fails; repeat-safe', async () => {
    const { s, deps } = await world('EXECUTING');
    await endDeadLettered(deps, decided, 'gave up after 5 attempts: 500');
    await endDeadLettered(deps, decided, 'gave up after 5 attempts: 500');
    const card = await s.actions.get('c1', 'act_1');
    expect(card?.status).toBe('FAILED');
    expect(card?.error).toMatch(/may or may not have gone out/);
    expect((await s.runs.get('c1', 'run_1'))?.status).toBe('failed');
    expect((await s.conversations.listMessages('c1')).filter((m) => /Retry/.test(m.text))).toHaveLength(1);
  });

  test('Retry: one new PENDING card per failed card, however many presses; a card that did not fail is 409', async () => {
    const { s, deps } = await world('FAILED');
    const user = { id: 'u1', email: 'sam@oakproperties.example' };
    const [a, b] = await Promise.all([
      retryAction(deps, { conversationId: 'c1', actionId: 'act_1', user }),
      retryAction(deps, { conversationId: 'c1', actionId: 'act_1', user }),
    ]);
    expect(a.id).toBe(b.id);
    expect(a).toMatchObject({ status: 'PENDING', retryOf: 'act_1', tool: 'send_message' });
    expect(a.runId).toMatch(/^retry_/);
    expect((await s.actions.listByConversation('c1')).filter((x) => x.retryOf === 'act_1')).toHaveLength(1);
    expect((await s.conversations.get('c1'))?.pendingCount).toBe(1);
    expect((await s.runs.get('c1', a.runId))?.awaitingActionId).toBe(a.id);
    await expect(retryAction(deps, { conversationId: 'c1', actionId: a.id, user })).rejects.toMatchObject({
      status: 409,
    });
  });
});

/** A scheduler that only remembers which schedules exist: enough to see what a use case leaves behind. */
function fakeTimers(): Timers & { names: Set<string> } {
  const names = new Set<string>();
  return {
    names,
    async scheduleAt(name) {
      names.add(name);
    },
    async cancel(name) {
      names.delete(name);
    },
  };
}

describe('a withdrawn card leaves no timer behind (as a decision)', () => {
  const armed = async () => {
    const w = await world();
    const timers = fakeTimers();
    timers.names.add(expiryTimerName('act_1')).add(renotifyTimerName('act_1'));
    return { ...w, timers, cardTimers: { timers, expiryMinutes: 1440, renotifyMinutes: 10 } };
  };

  test('superseded by a newer inbound: SUPERSEDED and both schedules deleted', async () => {
    const { s, deps, timers, cardTimers } = await armed();
    const out = await supersedePending({ ...deps, cardTimers }, 'c1', 'Maria wrote again');
    expect(out.map((a) => a.id)).toEqual(['act_1']);
    expect((await s.actions.get('c1', 'act_1'))?.status).toBe('SUPERSEDED');
    expect([...timers.names]).toEqual([]);
  });

  test('a card a decision won first keeps nothing to cancel and is not touched', async () => {
    const { s, deps, timers, cardTimers } = await armed();
    await s.actions.transition('c1', 'act_1', ['PENDING'], 'APPROVED', {});
    timers.names.add('unrelated');
    expect(await supersedePending({ ...deps, cardTimers }, 'c1', 'late')).toEqual([]);
    expect([...timers.names]).toContain('unrelated');
  });

  test('replaced by "Redraft…" through the API use case: both schedules deleted', async () => {
    const { deps, timers, cardTimers } = await armed();
    await redraftCard(
      { ...deps, cardTimers },
      {
        conversationId: 'c1',
        actionId: 'act_1',
        kind: 'redraft',
        instruction: 'shorter',
        user: { id: 'u1', email: 'sam@oakproperties.example' },
      },
    );
    expect([...timers.names]).toEqual([]);
  });
});
