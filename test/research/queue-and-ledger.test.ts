import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureQueues } from '../../scripts/local/queues';
import { type RunningSqs, startSqs } from '../../scripts/local/sqs';
import { makeSqsClient, sqsEventQueue } from '../../shared/src/adapters/sqs-event-queue';
import type { EventEnvelope } from '../../shared/src/contracts/events';
import type { EventLedger } from '../../shared/src/ports/event-ledger';
import type { ResearchDeps } from '../../shared/src/research/engine-deps';
import { nodeEvent } from '../../shared/src/research/engine-deps';
import { type ProcessEventDeps, processEvent } from '../../shared/src/use-cases/process-event';
import { silentLog } from './harness';

/** A ledger that counts what it is asked, so a test can say which steps go through it. */
function countingLedger() {
  const calls: string[] = [];
  const ledger: EventLedger = {
    async get(id) {
      calls.push(`get ${id}`);
      return undefined;
    },
    async record(e) {
      calls.push(`record ${e.eventId} ${e.status}`);
    },
    async listDay() {
      return [];
    },
  };
  return { ledger, calls };
}

describe('research messages and the event ledger (issue 21)', () => {
  const now = new Date('2026-11-24T09:00:00Z');
  const deps = (ledger: EventLedger) =>
    ({
      ledger,
      log: silentLog,
      clock: () => now,
      cooldownSeconds: 60,
      // The task is gone: the engine answers at once, after its one partition query.
      research: { research: { load: async () => undefined } } as unknown as ResearchDeps,
    }) as unknown as ProcessEventDeps;

  it('runs a node’s run and aggregate steps without the ledger; a propose step still goes through it', async () => {
    const { ledger, calls } = countingLedger();
    for (const step of ['run', 'aggregate'] as const) {
      const out = await processEvent(deps(ledger), nodeEvent('rt_1', 'r.1', step, 0, now));
      expect(out.outcome).toBe('no research node rt_1/r.1');
    }
    expect(calls).toEqual([]);
    const propose = nodeEvent('rt_1', 'r.1', 'propose', 0, now);
    await processEvent(deps(ledger), propose).catch(() => undefined);
    expect(calls[0]).toBe(`get ${propose.id}`);
  });
});

describe('EventQueue.sendBatch on SQS (fauxqs)', () => {
  let sqs: RunningSqs;
  let client: ReturnType<typeof makeSqsClient>;
  let queueUrl: string;
  beforeAll(async () => {
    sqs = await startSqs();
    client = makeSqsClient({ region: 'us-east-1', endpoint: sqs.endpoint });
    ({ queueUrl } = await ensureQueues(client, {
      prefix: `batch-${Date.now()}`,
      visibilityTimeoutSeconds: 30,
      maxReceiveCount: 3,
    }));
  });
  afterAll(async () => {
    client.destroy();
    await sqs.stop();
  });

  it('sends 12 events in chunks of 10, each body and attribute as `send` would write it', async () => {
    const now = new Date('2026-11-24T09:00:00Z');
    const events: EventEnvelope[] = Array.from({ length: 12 }, (_, i) =>
      nodeEvent('rt_é', `r.${i + 1}`, 'run', 0, now),
    );
    await sqsEventQueue(client, queueUrl).sendBatch?.(events);
    const got: { body: EventEnvelope; type?: string }[] = [];
    while (got.length < 12) {
      const res = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
          MessageAttributeNames: ['All'],
        }),
      );
      for (const m of res.Messages ?? [])
        got.push({ body: JSON.parse(m.Body ?? ''), type: m.MessageAttributes?.type?.StringValue });
    }
    expect(got.map((g) => g.body).sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      [...events].sort((a, b) => a.id.localeCompare(b.id)),
    );
    expect(new Set(got.map((g) => g.type))).toEqual(new Set(['research.node']));
  });
});
