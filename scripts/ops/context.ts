import { existsSync, readFileSync } from 'node:fs';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import { dynamoActionStore } from '../../shared/src/adapters/dynamo/action-store';
import { dynamoAuditLog } from '../../shared/src/adapters/dynamo/audit-log';
import type { DynamoTable } from '../../shared/src/adapters/dynamo/base';
import { makeDynamoClients } from '../../shared/src/adapters/dynamo/client';
import { dynamoConversationEraser } from '../../shared/src/adapters/dynamo/conversation-eraser';
import { dynamoConversationStore } from '../../shared/src/adapters/dynamo/conversation-store';
import { dynamoEventLedger } from '../../shared/src/adapters/dynamo/event-ledger';
import { DynamoFactStore } from '../../shared/src/adapters/dynamo/fact-store';
import { dynamoFollowUpStore } from '../../shared/src/adapters/dynamo/followup-store';
import { dynamoRunStore } from '../../shared/src/adapters/dynamo/run-store';
import { eventBridgeTimers, makeSchedulerClient } from '../../shared/src/adapters/eventbridge-scheduler';
import { makeSqsClient } from '../../shared/src/adapters/sqs-event-queue';
import { describeZodIssues } from '../../shared/src/errors';
import type { Timers } from '../../shared/src/ports/timers';
import { OpsUsageError } from './errors';

/**
 * What the operator commands need, and nothing else: the table, the events queue and its DLQ. The same
 * variables the functions read, so pointing them at a deployment (stack outputs) or at `npm start`'s
 * `.local/runtime.json` runs the same code against AWS or the local stack.
 */
export const opsEnv = z.object({
  AWS_REGION: z.string().min(1).default('us-east-1'),
  TABLE_NAME: z.string().min(1),
  EVENTS_QUEUE_URL: z.url(),
  DLQ_URL: z.url(),
  DYNAMODB_ENDPOINT: z.url().optional(),
  SQS_ENDPOINT: z.url().optional(),
  /**
   * The timers' scheduler (as the functions read it): `conversation:delete` cancels the conversation's
   * schedules through it. Without them schedules stay, and fire into a no-op on the deleted conversation.
   */
  SCHEDULER_ENDPOINT: z.url().optional(),
  SCHEDULE_GROUP_NAME: z.string().min(1).default('default'),
  SCHEDULER_ROLE_ARN: z.string().min(1).optional(),
  EVENTS_QUEUE_ARN: z.string().min(1).optional(),
  /** Only `alarm:test` needs them: it signs a push as the alarm function does. */
  VAPID_PUBLIC_KEY: z.string().optional(),
  VAPID_PRIVATE_KEY: z.string().optional(),
  VAPID_SUBJECT: z.string().default('mailto:ops@example.com'),
});
export type OpsEnv = z.infer<typeof opsEnv>;

export interface OpsContext {
  env: OpsEnv;
  table: DynamoTable;
  sqs: SQSClient;
  ledger: ReturnType<typeof dynamoEventLedger>;
  conversations: ReturnType<typeof dynamoConversationStore>;
  actions: ReturnType<typeof dynamoActionStore>;
  runs: ReturnType<typeof dynamoRunStore>;
  audit: ReturnType<typeof dynamoAuditLog>;
  facts: DynamoFactStore;
  eraser: ReturnType<typeof dynamoConversationEraser>;
  followups: ReturnType<typeof dynamoFollowUpStore>;
  /** The scheduler, when the environment names it (see opsEnv). */
  cardTimers?: { timers: Timers };
  clock: () => Date;
  close(): void;
}

/**
 * The environment to use: the caller's when it names a table; otherwise the local stack's runtime file
 * (written by `npm start`), so `npm run ops -- …` beside a running stack needs no setup.
 */
export function resolveOpsEnv(
  env: Record<string, string | undefined>,
  runtimePath = '.local/runtime.json',
): OpsEnv {
  let source: Record<string, unknown> = env;
  if (!env.TABLE_NAME && existsSync(runtimePath)) {
    const runtime = JSON.parse(readFileSync(runtimePath, 'utf8')) as { env?: Record<string, unknown> };
    source = { ...runtime.env, ...stripEmpty(env) };
  }
  const cleaned = stripEmpty(source);
  const parsed = opsEnv.safeParse(cleaned);
  if (!parsed.success) {
    throw new OpsUsageError(
      `Missing or invalid settings: ${describeZodIssues(parsed.error.issues)}. Set TABLE_NAME, EVENTS_QUEUE_URL and DLQ_URL (the stack outputs of the deployment), or start the local stack (npm start) so .local/runtime.json exists.`,
    );
  }
  return parsed.data;
}

function stripEmpty(env: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
}

export function buildOpsContext(env: OpsEnv, clock: () => Date = () => new Date()): OpsContext {
  const dynamo = makeDynamoClients({ region: env.AWS_REGION, endpoint: env.DYNAMODB_ENDPOINT });
  const table = { doc: dynamo.doc, tableName: env.TABLE_NAME };
  const sqs = makeSqsClient({ region: env.AWS_REGION, endpoint: env.SQS_ENDPOINT });
  return {
    env,
    table,
    sqs,
    ledger: dynamoEventLedger(table),
    conversations: dynamoConversationStore(table),
    actions: dynamoActionStore(table),
    runs: dynamoRunStore(table),
    audit: dynamoAuditLog(table, clock),
    facts: new DynamoFactStore(table),
    eraser: dynamoConversationEraser(table, clock),
    followups: dynamoFollowUpStore(table),
    ...opsTimers(env, clock),
    clock,
    close() {
      dynamo.raw.destroy();
      sqs.destroy();
    },
  };
}

/** The schedules' client, only when the environment names the scheduler's target and role. */
function opsTimers(env: OpsEnv, clock: () => Date): Pick<OpsContext, 'cardTimers'> {
  if (!env.EVENTS_QUEUE_ARN || !env.SCHEDULER_ROLE_ARN) return {};
  const client = makeSchedulerClient({ region: env.AWS_REGION, endpoint: env.SCHEDULER_ENDPOINT });
  const timers = eventBridgeTimers(client, {
    groupName: env.SCHEDULE_GROUP_NAME,
    queueArn: env.EVENTS_QUEUE_ARN,
    roleArn: env.SCHEDULER_ROLE_ARN,
    clock,
  });
  return { cardTimers: { timers } };
}
