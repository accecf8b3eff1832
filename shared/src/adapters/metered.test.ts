import { describe, expect, test } from 'vitest';
import type { PendingAction } from '../contracts/conversations';
import type { Run } from '../contracts/runs';
import type { EventLedger, LedgerEntry } from '../ports/event-ledger';
import { InMemoryActionStore, InMemoryRunStore } from '../testing/in-memory-stores';
import {
  meteredActions,
  meteredLedger,
  meteredModel,
  meteredPush,
  meteredRuns,
  meteredTurns,
  runMeter,
} from './metered';
import { powertoolsMetrics, recordingMetrics } from './powertools-metrics';

const entry = (status: LedgerEntry['status']): LedgerEntry => ({
  eventId: `e-${status}`,
  type: 'sms.received',
  key: 'sms:+1',
  status,
  reason: 'r',
  at: '2026-11-23T15:00:00Z',
});

describe('metered ports count what they write', () => {
  test('ledger statuses become event counts (received and ignored are not outcomes of the worker)', async () => {
    const m = recordingMetrics();
    const written: LedgerEntry[] = [];
    const inner: EventLedger = {
      record: async (e) => void written.push(e),
      get: async () => undefined,
      listDay: async () => [],
    };
    const ledger = meteredLedger(inner, m);
    for (const s of ['processed', 'coalesced', 'dead_lettered', 'ignored', 'processed'] as const)
      await ledger.record(entry(s));
    expect(written).toHaveLength(5);
    expect([m.total('EventsProcessed'), m.total('EventsCoalesced'), m.total('EventsDeadLettered')]).toEqual([
      2, 1, 1,
    ]);
  });

  test('a card decision is counted once, by the writer that won the conditional transition', async () => {
    const m = recordingMetrics();
    const actions = meteredActions(new InMemoryActionStore(), m);
    const card = {
      id: 'a1',
      conversationId: 'c1',
      runId: 'r1',
      tool: 'send_message',
      args: {},
      argsHash: 'h',
      summary: 's',
      status: 'PENDING',
      proposedBy: 'planner',
      reason: 'r',
      review: {},
      createdAt: '2026-11-23T15:00:00Z',
      updatedAt: '2026-11-23T15:00:00Z',
      version: 1,
    } satisfies PendingAction;
    await actions.create(card);
    const both = await Promise.all([
      actions.transition('c1', 'a1', ['PENDING'], 'APPROVED'),
      actions.transition('c1', 'a1', ['PENDING'], 'APPROVED'),
    ]);
    expect(both.filter(Boolean)).toHaveLength(1);
    expect([m.total('CardsCreated'), m.total('CardsApproved')]).toEqual([1, 1]);
  });

  test('a run that ends reports its outcome, cost and (when it started here) duration', async () => {
    const m = recordingMetrics();
    let now = Date.parse('2026-11-23T15:00:00Z');
    const runs = meteredRuns(
      new InMemoryRunStore(),
      runMeter(m, () => new Date(now)),
    );
    const run: Run = {
      id: 'r1',
      conversationId: 'c1',
      status: 'running',
      mode: 'claude',
      trigger: { type: 'sms.received', key: 'k', eventIds: ['e'] },
      iteration: 0,
      nextSeq: 0,
      usage: {
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        costUsd: 0,
        modelCalls: 0,
      },
      createdAt: new Date(now).toISOString(),
      updatedAt: new Date(now).toISOString(),
    };
    await runs.create(run);
    now += 4200;
    await runs.update('c1', 'r1', { status: 'awaiting_approval' });
    expect(m.recorded).toEqual([]);
    await runs.update('c1', 'r1', { status: 'completed', usage: { ...run.usage, costUsd: 0.0123 } });
    expect(m.recorded).toEqual([
      { name: 'RunsCompleted', value: 1, unit: 'Count' },
      { name: 'RunCostMicroUsd', value: 12300, unit: 'Count' },
      { name: 'RunDuration', value: 4200, unit: 'Milliseconds' },
    ]);
  });

  test("a turn's one commit is counted like the stores' own writes (cards created, run ended)", async () => {
    const m = recordingMetrics();
    const committed: unknown[] = [];
    const turns = meteredTurns(
      {
        conversationIdFor: async () => undefined,
        load: async () => ({ runs: [], steps: [], actions: [] }),
        recentMessages: async () => [],
        commit: async (_c, w) => void committed.push(...w),
      },
      m,
      runMeter(m, () => new Date('2026-11-23T15:00:02Z')),
    );
    await turns.commit('c1', [
      { kind: 'run.create', run: { id: 'r9', createdAt: '2026-11-23T15:00:00Z' } as Run },
      { kind: 'action.create', action: {} as PendingAction },
      { kind: 'run.update', runId: 'r9', patch: { status: 'completed' } },
    ]);
    expect(committed).toHaveLength(3);
    expect([m.total('CardsCreated'), m.total('RunsCompleted'), m.total('RunDuration')]).toEqual([1, 1, 2000]);
  });

  test('model latency is measured on success and failure; tokens and errors counted', async () => {
    const m = recordingMetrics();
    let t = 0;
    let fail = false;
    const model = meteredModel(
      {
        name: 'claude-x',
        complete: async () => {
          t += 850;
          if (fail) throw new Error('overloaded');
          return {
            content: [],
            stopReason: 'end_turn',
            model: 'claude-x',
            usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 1000, cacheWriteTokens: 0 },
          };
        },
      },
      m,
      () => t,
    );
    await model.complete({} as never);
    fail = true;
    await expect(model.complete({} as never)).rejects.toThrow('overloaded');
    expect(model.name).toBe('claude-x');
    expect(m.recorded.filter((r) => r.name === 'ModelLatency').map((r) => r.value)).toEqual([850, 850]);
    expect([m.total('ModelInputTokens'), m.total('ModelOutputTokens'), m.total('ModelErrors')]).toEqual([
      1100, 20, 1,
    ]);
  });

  test('push failures are counted, deliveries and gone subscriptions are not', async () => {
    const m = recordingMetrics();
    const outcomes = [
      { kind: 'delivered', status: 201 },
      { kind: 'gone', status: 410 },
      { kind: 'failed', reason: 'bad key' },
      { kind: 'retryable', reason: '503' },
    ] as const;
    let i = 0;
    const push = meteredPush({ send: async () => outcomes[i++] as (typeof outcomes)[number] }, m);
    for (const _ of outcomes) await push.send({} as never, '', {} as never);
    expect(m.total('PushFailures')).toBe(2);
  });
});

test('on AWS the metrics are one EMF document in the stage namespace with the service dimension', () => {
  const m = powertoolsMetrics({ namespace: 'Switchboard/prod' });
  expect(m.pending()).toBeUndefined();
  m.count('EventsProcessed');
  m.count('EventsProcessed');
  m.milliseconds('ModelLatency', 812);
  const emf = m.pending() as {
    _aws: { CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: unknown[] }> };
    [k: string]: unknown;
  };
  const doc = emf._aws.CloudWatchMetrics[0];
  expect(doc?.Namespace).toBe('Switchboard/prod');
  expect(doc?.Dimensions).toEqual([['service']]);
  expect(doc?.Metrics).toEqual(
    expect.arrayContaining([
      { Name: 'EventsProcessed', Unit: 'Count' },
      { Name: 'ModelLatency', Unit: 'Milliseconds' },
    ]),
  );
  expect(emf.service).toBe('switchboard');
  expect(emf.EventsProcessed).toEqual([1, 1]);
  expect(emf.ModelLatency).toBe(812);
});
