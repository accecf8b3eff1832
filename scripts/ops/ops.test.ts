import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeSqsClient } from '../../shared/src/adapters/sqs-event-queue';
import { expiryTimerName, scheduleCardTimers } from '../../shared/src/agent/card-timers';
import { conversationExport } from '../../shared/src/use-cases/export-conversation';
import { freshTable } from '../../test/helpers';
import { ensureQueues } from '../local/queues';
import { type RunningSqs, startSqs } from '../local/sqs';
import { startLocalTimers } from '../local/timers';
import { runOps } from './cli';
import { buildOpsContext, resolveOpsEnv } from './context';

/**
 * The operator commands against real parts: DynamoDB Local and fauxqs (which has no SQS message move, so
 * dlq:replay takes the receive → send → delete path here).
 */
const NOW = new Date('2026-11-23T15:00:00Z');
let sqs: RunningSqs;
let env: Record<string, string>;
let timers: Awaited<ReturnType<typeof startLocalTimers>>;
const client = () => makeSqsClient({ region: 'us-east-1', endpoint: sqs.endpoint });

beforeAll(async () => {
  const t = await freshTable('ops');
  sqs = await startSqs();
  const c = client();
  const q = await ensureQueues(c, {
    prefix: `ops-${Date.now()}`,
    visibilityTimeoutSeconds: 30,
    maxReceiveCount: 3,
  });
  // The Scheduler emulator, as `npm start` runs it: conversation:delete cancels the card's schedules.
  timers = await startLocalTimers({ sqs: c, queues: q, now: () => NOW, tickMs: 0 });
  env = {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    TABLE_NAME: t.tableName,
    DYNAMODB_ENDPOINT: t.endpoint,
    SQS_ENDPOINT: sqs.endpoint,
    EVENTS_QUEUE_URL: q.queueUrl,
    DLQ_URL: q.dlqUrl,
    ...timers.env,
  };
  await seed();
}, 60_000);
afterAll(async () => {
  await timers?.emulator.stop();
  await sqs?.stop();
});

async function ops(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runOps(argv, {
    env,
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    clock: () => NOW,
    runtimePath: '/nonexistent/runtime.json',
    operator: 'tester',
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const event = (id: string) => ({
  id,
  type: 'sms.received',
  correlationId: 'openphone:del_1',
  key: 'sms:+14155550111',
  occurredAt: NOW.toISOString(),
  payload: { text: 'leak' },
});

async function seed() {
  const ctx = buildOpsContext(resolveOpsEnv(env), () => NOW);
  const iso = (min: number) => new Date(NOW.getTime() + min * 60_000).toISOString();
  await ctx.conversations.create({
    id: 'c_ops',
    title: 'Maria Lopez',
    source: 'sms',
    preview: '',
    createdAt: iso(-30),
    updatedAt: iso(-30),
    lastMessageAt: iso(-30),
    createdBy: 'system',
    triggerKey: 'sms:+14155550111',
    pendingCount: 1,
    readBy: {},
  });
  await ctx.conversations.appendMessage({
    id: 'm_in',
    conversationId: 'c_ops',
    role: 'inbound',
    text: 'The sink is leaking',
    createdAt: iso(-31),
    author: { kind: 'contact', name: 'Maria Lopez' },
  });
  await ctx.runs.create({
    id: 'r_ops',
    conversationId: 'c_ops',
    status: 'awaiting_approval',
    mode: 'rules',
    trigger: { type: 'sms.received', key: 'sms:+14155550111', eventIds: ['evt_1'] },
    iteration: 1,
    nextSeq: 1,
    awaitingActionId: 'a_ops',
    usage: {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0,
      modelCalls: 0,
    },
    createdAt: iso(-30),
    updatedAt: iso(-29),
  });
  await ctx.actions.create({
    id: 'a_ops',
    conversationId: 'c_ops',
    runId: 'r_ops',
    tool: 'send_message',
    args: { to: '+14155550111', text: 'Hi Maria' },
    argsHash: 'h',
    summary: 'Text Maria about the plumber',
    status: 'PENDING',
    proposedBy: 'planner',
    reason: 'reply',
    review: {},
    createdAt: iso(-29),
    updatedAt: iso(-29),
    version: 1,
  });
  for (const [status, min] of [
    ['received', -31],
    ['processed', -30],
  ] as const) {
    await ctx.ledger.record({
      eventId: 'evt_1',
      type: 'sms.received',
      key: 'sms:+14155550111',
      status,
      reason: status === 'received' ? 'admitted' : 'drafted a reply',
      at: iso(min),
      correlationId: 'openphone:del_1',
      ...(status === 'processed' ? { runId: 'r_ops' } : {}),
    });
  }
  await ctx.ledger.record({
    eventId: 'evt_2',
    type: 'sms.received',
    key: 'sms:+14155550111',
    status: 'coalesced',
    reason: 'coalesced into the run for evt_1',
    at: iso(-30),
    correlationId: 'openphone:del_1',
  });
  const card = await ctx.actions.get('c_ops', 'a_ops');
  if (card && ctx.cardTimers)
    await scheduleCardTimers(
      { cardTimers: { ...ctx.cardTimers, expiryMinutes: 24 * 60, renotifyMinutes: 10 } },
      card,
      { urgent: false },
    );
  ctx.close();
}

describe('npm run ops (DynamoDB Local + fauxqs)', () => {
  test('approvals:pending lists the waiting card with its age', async () => {
    const r = await ops('approvals:pending');
    expect(r.code).toBe(0);
    expect(r.out).toContain('1 card(s) waiting');
    expect(r.out).toContain('29 min  send_message  “Text Maria about the plumber”');
    const j = JSON.parse((await ops('approvals:pending', '--json')).out);
    expect(j).toEqual([
      expect.objectContaining({ actionId: 'a_ops', conversationId: 'c_ops', ageMinutes: 29 }),
    ]);
  });

  test('event:trace tells the story: ledger history, the coalesced sibling, the run, the card', async () => {
    const r = await ops('event:trace', 'evt_1');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('Event evt_1 (sms.received, key sms:+14155550111, correlation openphone:del_1)');
    expect(r.out).toMatch(/received: admitted[\s\S]*processed: drafted a reply/);
    expect(r.out).toContain('evt_2 sms.received: coalesced');
    expect(r.out).toContain('Conversation c_ops “Maria Lopez”');
    expect(r.out).toContain('inbound (Maria Lopez): The sink is leaking');
    expect(r.out).toContain('Run r_ops (rules) awaiting_approval');
    expect(r.out).toContain('Card a_ops send_message “Text Maria about the plumber”: PENDING');
    expect(r.out).toContain('Nothing was sent.');
  });

  test('conversation:export writes one file that parses with the export schema', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ops-export-')), 'c_ops.json');
    const r = await ops('conversation:export', 'c_ops', '--out', file);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('1 messages, 1 cards, 1 runs');
    const parsed = conversationExport.parse(JSON.parse(readFileSync(file, 'utf8')));
    expect(parsed.exportedBy).toBe('ops:tester');
    expect(parsed.runs[0]?.id).toBe('r_ops');
  });

  test('dlq:list peeks without consuming; dlq:replay falls back to receive → send → delete on fauxqs', async () => {
    const c = client();
    await c.send(
      new SendMessageCommand({
        QueueUrl: env.DLQ_URL,
        MessageBody: JSON.stringify(event('evt_1')),
        MessageAttributes: { reason: { DataType: 'String', StringValue: 'ClickUp answered 500 five times' } },
      }),
    );
    await c.send(new SendMessageCommand({ QueueUrl: env.DLQ_URL, MessageBody: 'not json' }));
    const listed = await ops('dlq:list');
    expect(listed.code, listed.err).toBe(0);
    expect(listed.out).toContain('2 dead letter(s) shown');
    expect(listed.out).toContain('reason: ClickUp answered 500 five times');
    expect(listed.out).toContain('ledger: processed');
    expect(listed.out).toContain('(not an event)');
    // Peeking twice shows the same two: nothing was consumed or hidden.
    expect(JSON.parse((await ops('dlq:list', '--json')).out).letters).toHaveLength(2);

    const replay = await ops('dlq:replay');
    expect(replay.code, replay.err).toBe(0);
    expect(replay.out).toBe(
      'Moved 2 message(s) to the events queue by receive → send → delete (message move unavailable: InvalidAction).',
    );
    const got = await c.send(
      new ReceiveMessageCommand({
        QueueUrl: env.EVENTS_QUEUE_URL,
        MaxNumberOfMessages: 10,
        MessageAttributeNames: ['All'],
      }),
    );
    expect(got.Messages?.map((m) => m.Body).sort()).toEqual(
      [JSON.stringify(event('evt_1')), 'not json'].sort(),
    );
    // The failed attempt's reason stays behind; the replayed event is a fresh delivery.
    expect(got.Messages?.some((m) => m.MessageAttributes?.reason)).toBe(false);
    const left = await c.send(
      new GetQueueAttributesCommand({
        QueueUrl: env.DLQ_URL,
        AttributeNames: ['ApproximateNumberOfMessages'],
      }),
    );
    expect(left.Attributes?.ApproximateNumberOfMessages).toBe('0');
    expect((await ops('dlq:list')).out).toBe('The dead-letter queue is empty.');
    c.destroy();
  });

  test('conversation:delete needs --confirm <id>; then erases it and leaves a tombstone (last: it takes c_ops)', async () => {
    expect(timers.emulator.schedules().map((x) => x.name)).toContain(expiryTimerName('a_ops'));
    const refused = await ops('conversation:delete', 'c_ops');
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('add --confirm c_ops');
    expect((await ops('conversation:delete', 'c_ops', '--confirm', 'c_other')).code).toBe(2);
    const r = await ops('conversation:delete', 'c_ops', '--confirm', 'c_ops');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(
      /^Deleted c_ops \(by ops:tester at 2026-11-23T15:00:00.000Z\): 1 conversation, 1 messages, 1 cards, 1 runs/,
    );
    expect(r.out).toContain("the memory repository's history is not rewritten");
    expect((await ops('conversation:export', 'c_ops')).err).toMatch(/No conversation c_ops/);
    // The card's expiry schedule is gone from the scheduler; the ledger keeps the event ids only.
    expect(timers.emulator.schedules().map((x) => x.name)).not.toContain(expiryTimerName('a_ops'));
    const trace = await ops('event:trace', 'evt_1');
    expect(trace.code, trace.err).toBe(0);
    expect(trace.out).toContain('evt_1');
    expect(trace.out).not.toMatch(/4155550111|drafted a reply|openphone:del_1/);
  });
});

describe('bad input is one clear line and exit code 2', () => {
  test.each([
    [['nope'], /Unknown command "nope"/],
    [['event:trace'], /event:trace needs exactly one <eventId> \(got 0\)/],
    [['event:trace', 'evt_missing'], /No event evt_missing in the ledger/],
    [['conversation:export', 'c_missing'], /No conversation c_missing/],
    [['dlq:list', '--limit', 'abc'], /--limit must be a whole number from 1 to 1000 \(got "abc"\)/],
    [['dlq:list', '--bogus'], /Unknown option '--bogus'/],
    [['approvals:pending', 'extra'], /approvals:pending takes no arguments/],
  ])('%j', async (argv, message) => {
    const r = await ops(...argv);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).not.toMatch(/\n\s+at /);
  });

  test('missing settings name what to set', async () => {
    const r = await runOps(['dlq:list'], {
      env: {},
      out: () => {},
      err: (s) => expect(s).toMatch(/TABLE_NAME.*EVENTS_QUEUE_URL.*DLQ_URL/s),
      runtimePath: '/nonexistent/runtime.json',
    });
    expect(r).toBe(2);
  });

  test('without TABLE_NAME the local stack runtime file is used', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ops-rt-'));
    writeFileSync(join(dir, 'runtime.json'), JSON.stringify({ env }));
    expect(resolveOpsEnv({}, join(dir, 'runtime.json')).TABLE_NAME).toBe(env.TABLE_NAME);
  });
});
