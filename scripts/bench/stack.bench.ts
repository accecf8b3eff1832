import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { makeSqsClient } from '../../shared/src/adapters/sqs-event-queue';
import { getCore } from '../../shared/src/composition/core';
import { newId } from '../../shared/src/ids';
import { TEAM_DOMAIN } from '../emulators/seed/demo-team';
import { type LocalStack, startLocalStack } from '../local/stack';
import { type BenchRow, percentile } from './types';

/**
 * Local stack start time (everything `npm start` starts, without the PWA build), the enqueue → processed
 * round trip of an event through SQS, the worker and DynamoDB, and what a person feels end to end (issue 14):
 * a signed inbound text → the approval push at the push service, and an approve request → the text at the
 * OpenPhone emulator. All against a bare SQS round trip (send + receive on the same fauxqs) measured in the
 * same run. The stack runs in rules mode (the local default: no model call, so "the model answering
 * instantly"); every hop is the real one — the signed webhook through the gateway, the queue, the worker's
 * cooldown and turn, the notify event, Web Push encryption, the API's approve route with a session token,
 * the exactly-once execution.
 */
export async function run(): Promise<BenchRow[]> {
  const starts: number[] = [];
  for (let i = 0; i < 2; i++) {
    const t0 = performance.now();
    const s = await startLocalStack({ port: 0, schedules: false });
    starts.push(performance.now() - t0);
    await s.stop();
  }
  // A 1 s cooldown so each sample's text runs at once (the samples are spaced past it, untimed).
  const stack = await startLocalStack({ port: 0, schedules: false, env: { COOLDOWN_SECONDS: '1' } });
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
    const e2e = await endToEnd(stack);
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
      ...e2eRows('signed inbound text → approval push at the push service', e2e.toPush, b50),
      ...e2eRows('approve request → text at the OpenPhone emulator', e2e.toSend, b50),
    ];
  } finally {
    await stack.stop();
  }
}

const E2E_SAMPLES = Number(process.env.BENCH_E2E_SAMPLES ?? 12);
const E2E_WARMUP = 2;
const TENANT = '+14155550111'; // Maria, a known tenant in the emulators' seed

function e2eRows(name: string, samples: number[], bare: number): BenchRow[] {
  const p50 = percentile(samples, 50);
  return [
    { name: `${name} p50`, value: p50, unit: 'ms', baseline: bare, ratio: p50 / bare, target: '≤ 1000 ms' },
    { name: `${name} p95`, value: percentile(samples, 95), unit: 'ms' },
  ];
}

/** The two latencies a person feels, sample by sample on the running stack. */
async function endToEnd(stack: LocalStack): Promise<{ toPush: number[]; toSend: number[] }> {
  const em = stack.emulators;
  const device = stack.demoDevice?.endpoint;
  if (!em || !device) throw new Error('the end-to-end figures need the emulators and the demo device');
  const token = await sessionToken(stack.url, `sam@${TEAM_DOMAIN}`);
  const toPush: number[] = [];
  const toSend: number[] = [];
  for (let i = 0; i < E2E_WARMUP + E2E_SAMPLES; i++) {
    // Past the previous sample's cooldown window, so this text runs at once instead of being parked.
    await new Promise((r) => setTimeout(r, 1_100));
    const pushes = em.push.deliveries(device).length;
    const t0 = performance.now();
    await em.openphone.fireIncomingMessage({
      from: TENANT,
      text: `The sink is leaking (${i})`,
      scheme: 'standard',
    });
    const [push] = (
      await em.push.waitForDeliveries(pushes + 1, { endpoint: device, timeoutMs: 30_000 })
    ).slice(-1);
    const pushed = performance.now() - t0;
    const { conversationId, actionId } = approvalOf(push?.payload);
    const sends = em.openphone.state.sent.length;
    const t1 = performance.now();
    const res = await fetch(`${stack.url}/api/conversations/${conversationId}/actions/${actionId}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    if (!res.ok) throw new Error(`approve answered ${res.status}: ${await res.text()}`);
    await until(() => em.openphone.state.sent.length > sends);
    const sent = performance.now() - t1;
    if (i >= E2E_WARMUP) {
      toPush.push(pushed);
      toSend.push(sent);
    }
  }
  return { toPush, toSend };
}

/** The card an approval push is about (the notify payload names it). */
function approvalOf(payload: unknown): { conversationId: string; actionId: string } {
  const p = payload as { data?: Record<string, unknown> } & Record<string, unknown>;
  const d = { ...p, ...(p?.data ?? {}) } as Record<string, unknown>;
  if (typeof d.conversationId !== 'string' || typeof d.actionId !== 'string')
    throw new Error(`the push is not an approval: ${JSON.stringify(payload).slice(0, 300)}`);
  return { conversationId: d.conversationId, actionId: d.actionId };
}

async function sessionToken(url: string, email: string): Promise<string> {
  const res = await fetch(`${url}/api/dev/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  });
  if (!res.ok) throw new Error(`dev sign-in answered ${res.status}`);
  return ((await res.json()) as { token: string }).token;
}

/** Polls a condition every 2 ms (the send lands in the emulator's memory; there is nothing to wait on). */
async function until(ok: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error('not within 30 s');
    await new Promise((r) => setTimeout(r, 2));
  }
}

if (import.meta.url === pathToFileURL(resolve(process.argv[1] ?? '')).href) {
  console.table(await run());
  process.exit();
}
