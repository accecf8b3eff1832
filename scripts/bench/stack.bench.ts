import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { makeSqsClient } from '../../shared/src/adapters/sqs-event-queue';
import { getCore } from '../../shared/src/composition/core';
import { newId } from '../../shared/src/ids';
import { startLocalStack } from '../local/stack';
import { type BenchRow, percentile } from './types';

/**
 * Local stack start time (everything `npm start` starts, without the PWA build), and the enqueue →
 * processed round trip of an event through SQS, the worker and DynamoDB, against a bare SQS round trip
 * (send + receive on the same fauxqs) measured in the same run.
 */
export async function run(): Promise<BenchRow[]> {
  const starts: number[] = [];
  for (let i = 0; i < 2; i++) {
    const t0 = performance.now();
    const s = await startLocalStack({ port: 0, schedules: false });
    starts.push(performance.now() - t0);
    await s.stop();
  }
  const stack = await startLocalStack({ port: 0, schedules: false, emulators: false });
  try {
    const core = await getCore('bench-stack');
    const trips: number[] = [];
    for (let i = 0; i < 20; i++) {
      const id = newId('ev_');
      const t0 = performance.now();
      await core.queue.send({
        id,
        type: 'system.ping',
        correlationId: id,
        key: 'bench',
        occurredAt: new Date().toISOString(),
        payload: { note: 'bench' },
      });
      for (const deadline = Date.now() + 30_000; ; ) {
        if (Date.now() > deadline) throw new Error('event not processed within 30 s');
        const e = await core.ledger.get(id);
        if (e?.status === 'processed') break;
        await new Promise((r) => setTimeout(r, 5));
      }
      trips.push(performance.now() - t0);
    }
    const sqs = makeSqsClient({ region: 'us-east-1', endpoint: stack.env.SQS_ENDPOINT });
    const { CreateQueueCommand } = await import('@aws-sdk/client-sqs');
    const q = await sqs.send(new CreateQueueCommand({ QueueName: 'bench-bare' }));
    const bare: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      await sqs.send(new SendMessageCommand({ QueueUrl: q.QueueUrl, MessageBody: 'x' }));
      for (;;) {
        const r = await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.QueueUrl, WaitTimeSeconds: 1 }));
        if (r.Messages?.length) break;
      }
      bare.push(performance.now() - t0);
    }
    sqs.destroy();
    const p50 = percentile(trips, 50);
    const b50 = percentile(bare, 50);
    return [
      {
        name: 'local stack start (all emulators), median of 2',
        value: percentile(starts, 50) / 1000,
        unit: 's',
      },
      {
        name: 'enqueue → processed round trip p50',
        value: p50,
        unit: 'ms',
        baseline: b50,
        ratio: p50 / b50,
        target: 'baseline: bare SQS send+receive',
      },
      { name: 'enqueue → processed round trip p95', value: percentile(trips, 95), unit: 'ms' },
    ];
  } finally {
    await stack.stop();
  }
}

if (import.meta.url === pathToFileURL(resolve(process.argv[1] ?? '')).href) {
  console.table(await run());
  process.exit();
}
