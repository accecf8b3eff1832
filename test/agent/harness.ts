import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { DateTime } from 'luxon';
import {
  type AnthropicEmulator,
  type ScriptedTurn,
  startAnthropicEmulator,
} from '../../scripts/emulators/anthropic';
import { type OpenPhoneEmulator, startOpenPhoneEmulator } from '../../scripts/emulators/openphone';
import type { SchedulerEmulator } from '../../scripts/emulators/scheduler';
import { DEMO_LINES, TEAM_DOMAIN } from '../../scripts/emulators/seed/demo-team';
import { startTwilioEmulator, type TwilioEmulator } from '../../scripts/emulators/twilio';
import { ensureQueues } from '../../scripts/local/queues';
import { type RunningSqs, startSqs } from '../../scripts/local/sqs';
import { startLocalTimers } from '../../scripts/local/timers';
import { dynamoAuditLog } from '../../shared/src/adapters/dynamo/audit-log';
import { makeSqsClient } from '../../shared/src/adapters/sqs-event-queue';
import { buildAgent } from '../../shared/src/composition/agent';
import { buildCore, type Core } from '../../shared/src/composition/core';
import { parseConfig } from '../../shared/src/config';
import type { PendingAction } from '../../shared/src/contracts/conversations';
import { type EventEnvelope, eventEnvelope, type NotifyPayload } from '../../shared/src/contracts/events';
import { judgeUrgency } from '../../shared/src/domain/urgency';
import { newId } from '../../shared/src/ids';
import type { Log } from '../../shared/src/ports/logger';
import type { ToolRegistry } from '../../shared/src/tools/registry';
import { type DecideApprovalInput, decideApproval } from '../../shared/src/use-cases/decide-approval';
import { processEvent } from '../../shared/src/use-cases/process-event';
import type { RunEventGroupDeps } from '../../shared/src/use-cases/run-event-group';
import { freshTable } from '../helpers';

/**
 * The agent runtime as the worker runs it, for integration tests: a fresh DynamoDB Local table, a fauxqs
 * queue, the OpenPhone and Twilio emulators and (in Claude mode) the Anthropic emulator, wired through the
 * production composition (`buildCore` + `buildAgent`) from an environment, as the Lambda wires it. Only the
 * clock is the test's, so expiry and "stale EXECUTING" can be stepped through without waiting.
 */

export const TEAM = TEAM_DOMAIN;
export const SAM = { phone: '+14155550102', email: `sam@${TEAM}`, id: 'u_sam' };
export const ALEX = { phone: '+14155550101', email: `alex@${TEAM}`, id: 'u_alex' };
export const ONCALL = '+14155550103';
export const MARIA = '+14155550111';
export const DAVID = '+14155550112';
export const PRIYA = '+14155550113';
export const BOB = '+14155550121';
export const LEAD = '+14155550131';
export const UNKNOWN = '+14155550177';
export const SHARED_LINE = DEMO_LINES.shared.number;
export const ASSISTANT_LINE = DEMO_LINES.assistant.number;
const OP_KEY = 'op_test_key';
const TWILIO = { sid: `AC${'0'.repeat(32)}`, token: 'twilio-test-token' };
export const ANTHROPIC_KEY = 'sk-ant-test';

export interface TestClock {
  (): Date;
  advance(ms: number): void;
}

/**
 * 09:00 tomorrow in the team's timezone: inside business hours (the policy's quiet hours must not decide a
 * test by the time it runs) and in the future (nothing a test writes is past its TTL in real time).
 */
export function businessMorning(): Date {
  return DateTime.now()
    .setZone('America/New_York')
    .plus({ days: 1 })
    .set({ hour: 9, minute: 0, second: 0, millisecond: 0 })
    .toJSDate();
}

/**
 * Moves 1 ms per reading (so records written one after the other are ordered, as with a real clock) and
 * jumps when told to.
 */
export function testClock(start = businessMorning()): TestClock {
  let now = start.getTime();
  const clock = (() => new Date(now++)) as TestClock;
  clock.advance = (ms) => {
    now += ms;
  };
  return clock;
}

export interface Servers {
  clock: TestClock;
  sqs: RunningSqs;
  openphone: OpenPhoneEmulator;
  twilio: TwilioEmulator;
  anthropic?: AnthropicEmulator;
  stop(): Promise<void>;
}

/** The slow parts, once per test file. */
export async function startServers(
  opts: { anthropic?: boolean; anthropicReply?: ScriptedTurn; webhookSecret?: string } = {},
): Promise<Servers> {
  const clock = testClock();
  const sqs = await startSqs();
  const openphone = await startOpenPhoneEmulator({
    apiKey: OP_KEY,
    now: () => clock(),
    ...(opts.webhookSecret ? { webhookSecret: opts.webhookSecret } : {}),
  });
  const twilio = await startTwilioEmulator({ accountSid: TWILIO.sid, authToken: TWILIO.token });
  const anthropic = opts.anthropic
    ? await startAnthropicEmulator({
        apiKey: ANTHROPIC_KEY,
        ...(opts.anthropicReply ? { defaultReply: opts.anthropicReply } : {}),
      })
    : undefined;
  return {
    clock,
    sqs,
    openphone,
    twilio,
    ...(anthropic ? { anthropic } : {}),
    async stop() {
      await anthropic?.stop();
      await twilio.stop();
      await openphone.stop();
      await sqs.stop();
    },
  };
}

export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields?: Record<string, unknown>;
}

export function recordingLog(): Log & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at = (level: LogEntry['level']) => (message: string, fields?: Record<string, unknown>) =>
    entries.push({ level, message, ...(fields ? { fields } : {}) });
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export interface WorldOptions {
  /** Claude mode through the Anthropic emulator (the servers must have one). */
  claude?: boolean;
  /** Point the model at this base URL instead (an unreachable one, for outage tests). */
  anthropicBaseUrl?: string;
  env?: Record<string, string>;
  /** EventBridge Scheduler through its local emulator, on the test's clock (fires only on `advance`). */
  timers?: boolean;
}

export interface World {
  core: Core;
  deps: RunEventGroupDeps;
  registry: ToolRegistry;
  log: ReturnType<typeof recordingLog>;
  servers: Servers;
  /** The Scheduler emulator when the world was made with `timers: true`. */
  scheduler?: SchedulerEmulator;
  /** Every notify payload the worker delivered (approval cards and alerts), in order. */
  notifications: NotifyPayload[];
  /** Runs the worker over the queue until it is empty (events the run emits included). */
  work(): Promise<EventEnvelope[]>;
  /** Enqueues an event as an ingress function would, then works the queue. */
  deliver(event: EventEnvelope): Promise<EventEnvelope[]>;
  /** A person's decision, through the same use case (and validation) the API and the SMS gate use. */
  decide(
    action: Pick<PendingAction, 'conversationId' | 'id'>,
    decision: 'approve' | 'deny',
    extra?: Partial<Pick<DecideApprovalInput, 'editedArgs' | 'reason' | 'user'>>,
  ): Promise<PendingAction>;
  /** Actions of the conversation fed by a trigger key (`sms:+1…`, `email:<thread>`). */
  actionsFor(triggerKey: string): Promise<PendingAction[]>;
  conversationFor(triggerKey: string): ReturnType<Core['conversations']['findByTriggerKey']>;
  /** Texts the OpenPhone emulator really sent to `to` since the world started. */
  sentTo(to: string): Array<{ text: string; from: string }>;
  /** Every text the OpenPhone emulator sent since the world started. */
  sent(): Array<{ to: string[]; text: string; from: string }>;
  stop(): Promise<void>;
}

/** A fresh table and queue with the agent composed over them; cheap enough for one per test. */
export async function createWorld(servers: Servers, opts: WorldOptions = {}): Promise<World> {
  const table = await freshTable('agent');
  const sqsClient = makeSqsClient({ region: 'us-east-1', endpoint: servers.sqs.endpoint });
  const queues = await ensureQueues(sqsClient, {
    prefix: `agent-${newId()}`,
    visibilityTimeoutSeconds: 30,
    maxReceiveCount: 3,
  });
  const timers = opts.timers
    ? await startLocalTimers({ sqs: sqsClient, queues, now: () => servers.clock(), tickMs: 0 })
    : undefined;
  const anthropicUrl = opts.anthropicBaseUrl ?? (opts.claude ? servers.anthropic?.url : undefined);
  if (opts.claude && !anthropicUrl) throw new Error('Claude mode needs startServers({ anthropic: true })');
  const config = parseConfig({
    STAGE: 'test',
    AWS_REGION: 'us-east-1',
    TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: table.endpoint,
    SQS_ENDPOINT: servers.sqs.endpoint,
    EVENTS_QUEUE_URL: queues.queueUrl,
    LOG_LEVEL: 'ERROR',
    ALLOWED_EMAIL_DOMAINS: TEAM,
    TEAM_NAME: 'Oak Properties',
    OPENPHONE_API_BASE: servers.openphone.url,
    OPENPHONE_API_KEY: OP_KEY,
    OPENPHONE_SHARED_NUMBER: SHARED_LINE,
    OPENPHONE_ASSISTANT_NUMBER: ASSISTANT_LINE,
    TWILIO_API_BASE: servers.twilio.url,
    TWILIO_ACCOUNT_SID: TWILIO.sid,
    TWILIO_AUTH_TOKEN: TWILIO.token,
    TWILIO_FROM_NUMBER: '+14155550190',
    ONCALL_NUMBERS: ONCALL,
    ...(anthropicUrl ? { ANTHROPIC_API_KEY: ANTHROPIC_KEY, ANTHROPIC_BASE_URL: anthropicUrl } : {}),
    // Scripted model turns are consumed in order: the model reviewers' extra calls are off here (they have
    // their own tests, shared/src/agent/model-reviewer.test.ts); a test may turn them on.
    MODEL_REVIEWERS: 'false',
    ...timers?.env,
    ...opts.env,
  });
  const core = buildCore(config, 'agent-test');
  const agent = await buildAgent(core);
  const clock = servers.clock;
  const log = recordingLog();
  const validateArgs = (tool: string, args: unknown) => agent.registry.validateArgs(tool, args);
  // The audit log stamps entries that carry no time with its own clock: it must be the test's too.
  const audit = dynamoAuditLog(core.table, clock);
  const decide = (input: DecideApprovalInput) =>
    decideApproval({ ...core, audit, clock, validateArgs }, input);
  const deps: RunEventGroupDeps = { ...agent.deps, audit, clock, log };
  const notifications: NotifyPayload[] = [];
  const sentBefore = servers.openphone.state.sent.length;

  async function receiveAll(): Promise<EventEnvelope[]> {
    const out: EventEnvelope[] = [];
    for (;;) {
      const res = await sqsClient.send(
        new ReceiveMessageCommand({ QueueUrl: queues.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
      );
      const msgs = res.Messages ?? [];
      if (!msgs.length) return out;
      for (const m of msgs) {
        out.push(eventEnvelope.parse(JSON.parse(m.Body ?? '')));
        await sqsClient.send(
          new DeleteMessageCommand({ QueueUrl: queues.queueUrl, ReceiptHandle: m.ReceiptHandle }),
        );
      }
    }
  }

  // Push is off (no VAPID keys): the notify events the worker delivers are recorded as they are worked.
  const processDeps = { ...core, ...deps, cooldownSeconds: 0 };

  const world: World = {
    core,
    deps,
    registry: agent.registry,
    log,
    servers,
    ...(timers ? { scheduler: timers.emulator } : {}),
    notifications,
    async work() {
      const seen: EventEnvelope[] = [];
      for (let round = 0; round < 20; round++) {
        const batch = await receiveAll();
        if (!batch.length) return seen;
        for (const e of batch) {
          seen.push(e);
          if (e.type === 'notify') notifications.push(e.payload);
          await processEvent(processDeps, e);
        }
      }
      throw new Error('the queue did not settle after 20 rounds');
    },
    async deliver(event) {
      await core.queue.send(event);
      return world.work();
    },
    decide(action, decision, extra = {}) {
      return decide({
        conversationId: action.conversationId,
        actionId: action.id,
        decision,
        user: extra.user ?? { id: SAM.id, email: SAM.email },
        ...(extra.editedArgs ? { editedArgs: extra.editedArgs } : {}),
        ...(extra.reason !== undefined ? { reason: extra.reason } : {}),
      });
    },
    async actionsFor(key) {
      const c = await core.conversations.findByTriggerKey(key);
      return c ? core.actions.listByConversation(c.id) : [];
    },
    conversationFor(key) {
      return core.conversations.findByTriggerKey(key);
    },
    sent() {
      return servers.openphone.state.sent
        .slice(sentBefore)
        .map((m) => ({ to: m.to, text: m.text, from: m.from }));
    },
    sentTo(to) {
      return servers.openphone.state.sent
        .slice(sentBefore)
        .filter((m) => m.to.includes(to))
        .map((m) => ({ text: m.text, from: m.from }));
    },
    async stop() {
      await timers?.emulator.stop();
      sqsClient.destroy();
      core.sqs.destroy();
      core.dynamo.raw.destroy();
      table.raw.destroy();
    },
  };
  return world;
}

const URGENT_KEYWORDS = parseConfig({
  TABLE_NAME: 't',
  EVENTS_QUEUE_URL: 'http://127.0.0.1/q',
}).URGENT_KEYWORDS;

/** An `sms.received` envelope as the webhook builds it (urgency judged by the same keywords). */
export function smsEvent(from: string, text: string, at: Date = new Date()): EventEnvelope {
  const id = `sms_${newId('EV')}`;
  return {
    id,
    type: 'sms.received',
    correlationId: `openphone:${id}`,
    key: `sms:${from}`,
    occurredAt: at.toISOString(),
    payload: {
      messageId: newId('AC'),
      from,
      to: SHARED_LINE,
      text,
      receivedAt: at.toISOString(),
      urgent: judgeUrgency(text, URGENT_KEYWORDS).urgent,
    },
  };
}

export function emailEvent(
  p: { from: string; subject: string; text: string; source?: 'general' | 'leads'; threadId?: string },
  at: Date = new Date(),
): EventEnvelope {
  const id = `email_${newId()}`;
  const threadId = p.threadId ?? newId('th_');
  return {
    id,
    type: 'email.received',
    correlationId: `gmail:${id}`,
    key: `email:${threadId}`,
    occurredAt: at.toISOString(),
    payload: {
      messageId: newId('msg_'),
      threadId,
      from: p.from,
      to: `office@${TEAM}`,
      subject: p.subject,
      date: at.toISOString(),
      text: p.text,
      labels: ['INBOX', 'UNREAD'],
      source: p.source ?? 'general',
    },
  };
}

export function chatEvent(
  conversationId: string,
  text: string,
  user: { id: string; email: string; name?: string } = { id: SAM.id, email: SAM.email, name: 'Sam Chen' },
  at: Date = new Date(),
): EventEnvelope {
  const id = newId('ev_');
  return {
    id,
    type: 'chat.message',
    correlationId: `conv:${conversationId}`,
    key: `conv:${conversationId}`,
    occurredAt: at.toISOString(),
    payload: { conversationId, messageId: newId('m_'), text, user },
  };
}
