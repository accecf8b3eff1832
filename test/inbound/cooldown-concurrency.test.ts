import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeDynamoClients } from '../../shared/src/adapters/dynamo/client';
import { dynamoCooldownStore } from '../../shared/src/adapters/dynamo/cooldown-store';
import { dynamoEventLedger } from '../../shared/src/adapters/dynamo/event-ledger';
import { sqsEventQueue } from '../../shared/src/adapters/sqs-event-queue';
import { defaultGuard } from '../../shared/src/agent/default-guard';
import type { EventEnvelope } from '../../shared/src/contracts/events';
import type { CooldownStore } from '../../shared/src/ports/cooldown-store';
import { silentLog } from '../../shared/src/ports/logger';
import { inMemoryStores } from '../../shared/src/testing/in-memory-stores';
import { ToolRegistry } from '../../shared/src/tools/registry';
import { type ConsumeDeps, consumeRecord } from '../../shared/src/use-cases/consume-record';
import { type InboundBackends, startInboundBackends } from './fixtures';

/**
 * The per-key cooldown under concurrent workers (SPEC §4, §6.3), with the real adapters: DynamoDB Local for
 * the window and the parked events, fauxqs for the delayed re-sends. Several worker loops pull the queue at
 * once, the way Lambda runs several batches of the same queue, and a failed record is redelivered as SQS
 * would. Bursts of texts from one sender must give exactly one run per window, and every text must reach a
 * run — none dropped.
 */
const WINDOW_SECONDS = 2;
const WORKERS = 6;
const KEY = 'sms:+14155550177';

let be: InboundBackends;
let deps: ConsumeDeps;
const acquisitions: number[] = [];
const runs: Array<{ at: number; ids: string[] }> = [];

beforeAll(async () => {
  be = await startInboundBackends();
  const { doc } = makeDynamoClients({ region: 'us-east-1', endpoint: be.dynamoEndpoint });
  const table = { doc, tableName: be.tableName };
  const real = dynamoCooldownStore(table);
  // Observes the real store: when a window was won is what "one run per window" is measured on.
  const cooldowns: CooldownStore = {
    ...real,
    async tryStart(key, windowSeconds, now) {
      const res = await real.tryStart(key, windowSeconds, now);
      if (res.acquired) acquisitions.push(now.getTime());
      return res;
    },
  };
  // The agent runs over in-memory stores in rules mode with no tools; the run store observes each run.
  const stores = inMemoryStores();
  const createRun = stores.runs.create.bind(stores.runs);
  stores.runs.create = async (run) => {
    runs.push({ at: Date.now(), ids: run.trigger.eventIds });
    // A run takes a while, as the agent does; parked events keep arriving meanwhile.
    await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    return createRun(run);
  };
  deps = {
    ...stores,
    ledger: dynamoEventLedger(table),
    cooldowns,
    queue: sqsEventQueue(be.sqs, be.queueUrl),
    log: silentLog,
    clock: () => new Date(),
    cooldownSeconds: WINDOW_SECONDS,
    registry: new ToolRegistry([]),
    guard: defaultGuard({ escalationNeedsApproval: true }),
    settings: {
      teamName: 'Oak Properties',
      timezone: 'America/New_York',
      maxIterations: 4,
      intentTtlMinutes: 30,
      tokenBudget: 20_000,
      staleExecutingMs: 60_000,
    },
  };
});
afterAll(async () => {
  await be?.stop();
});

let seq = 0;
function smsEvent(text: string): EventEnvelope {
  seq += 1;
  const id = `sms_EVcool${String(seq).padStart(4, '0')}`;
  return {
    id,
    type: 'sms.received',
    correlationId: `openphone:${id}`,
    key: KEY,
    occurredAt: new Date().toISOString(),
    payload: {
      messageId: `AC${seq}`,
      from: '+14155550177',
      to: '+14155550100',
      text,
      receivedAt: new Date().toISOString(),
      urgent: false,
    },
  };
}

/** Worker loops like Lambda's SQS event source: a failed record stays on the queue and comes back. */
function startWorkers(stopWhen: () => Promise<boolean>, deadlineMs: number) {
  let done = false;
  const errors: string[] = [];
  const loop = async () => {
    while (!done && Date.now() < deadlineMs) {
      const res = await be.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: be.queueUrl, MaxNumberOfMessages: 3, WaitTimeSeconds: 1 }),
      );
      await Promise.all(
        (res.Messages ?? []).map(async (m) => {
          try {
            await consumeRecord(deps, { body: m.Body ?? '', messageId: m.MessageId ?? '' });
            await be.sqs.send(
              new DeleteMessageCommand({ QueueUrl: be.queueUrl, ReceiptHandle: m.ReceiptHandle }),
            );
          } catch (e) {
            errors.push(String(e));
            await be.sqs.send(
              new ChangeMessageVisibilityCommand({
                QueueUrl: be.queueUrl,
                ReceiptHandle: m.ReceiptHandle,
                VisibilityTimeout: 0,
              }),
            );
          }
        }),
      );
    }
  };
  const loops = Array.from({ length: WORKERS }, loop);
  const watcher = (async () => {
    while (Date.now() < deadlineMs && !(await stopWhen())) await new Promise((r) => setTimeout(r, 200));
    done = true;
  })();
  return Promise.all([...loops, watcher]).then(() => errors);
}

it('bursts for one key: one run per window, every event reaches a run, none dropped', async () => {
  const first = Array.from({ length: 25 }, (_, i) => smsEvent(`first burst ${i}`));
  const second = Array.from({ length: 15 }, (_, i) => smsEvent(`second burst ${i}`));
  const all = [...first, ...second];
  // Settled: every event final in the ledger and no message left on the queue, delayed or in flight (a
  // parked event always has a delayed re-send, so an empty queue also means nothing is left parked).
  const settled = async () => {
    const entries = await Promise.all(all.map((e) => deps.ledger.get(e.id)));
    if (!entries.every((x) => x && (x.status === 'processed' || x.status === 'coalesced'))) return false;
    const { Attributes: a = {} } = await be.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: be.queueUrl, AttributeNames: ['All'] }),
    );
    return (
      Number(a.ApproximateNumberOfMessages ?? 1) +
        Number(a.ApproximateNumberOfMessagesNotVisible ?? 1) +
        Number(a.ApproximateNumberOfMessagesDelayed ?? 1) ===
      0
    );
  };
  const started = Date.now();
  const workers = startWorkers(settled, started + 45_000);
  // Deliveries land on the queue as the webhook enqueues them: all at once, then more mid-window.
  await Promise.all(first.map((e) => deps.queue.send(e)));
  await new Promise((r) => setTimeout(r, (WINDOW_SECONDS * 1000) / 2));
  await Promise.all(second.map((e) => deps.queue.send(e)));
  const errors = await workers;

  const ledger = await Promise.all(all.map((e) => deps.ledger.get(e.id)));
  const unsettled = ledger.filter((x) => !x || !['processed', 'coalesced'].includes(x.status));
  expect(unsettled, 'events not yet processed or coalesced').toEqual([]);

  // At most one run per window: each run won its window, and windows never overlap. (A window can start
  // no new run: a redelivered group whose run already finished is answered from the stored run.)
  expect(runs.length).toBeLessThanOrEqual(acquisitions.length);
  const sorted = [...acquisitions].sort((a, b) => a - b);
  for (let i = 1; i < sorted.length; i++) {
    expect(sorted[i]! - sorted[i - 1]!, `gap between runs ${i} and ${i + 1}`).toBeGreaterThanOrEqual(
      WINDOW_SECONDS * 1000,
    );
  }

  // Every event reached a run (the ledger could say "coalesced" for an event no run was handed).
  const handed = new Set(runs.flatMap((r) => r.ids));
  expect(
    all.filter((e) => !handed.has(e.id)).map((e) => e.id),
    'events that reached no run',
  ).toEqual([]);
  expect(Date.now() - started).toBeLessThan(45_000);
  // The only tolerated worker errors are the retried park/take race, never a dropped event.
  expect(errors.filter((e) => !/document path|ConditionalCheckFailed/i.test(e))).toEqual([]);
}, 60_000);
