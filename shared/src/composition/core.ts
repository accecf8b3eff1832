import { apiGatewayLiveUpdates } from '../adapters/api-gateway-live';
import {
  awsSettingsSource,
  resolveDeployedEnv,
  SETTINGS_TTL_SECONDS,
  type SettingsSource,
} from '../adapters/aws-settings';
import { dynamoActionStore } from '../adapters/dynamo/action-store';
import { dynamoAuditLog } from '../adapters/dynamo/audit-log';
import { dynamoCallStore } from '../adapters/dynamo/call-store';
import { makeDynamoClients } from '../adapters/dynamo/client';
import { dynamoConversationStore } from '../adapters/dynamo/conversation-store';
import { dynamoCooldownStore } from '../adapters/dynamo/cooldown-store';
import { dynamoEventLedger } from '../adapters/dynamo/event-ledger';
import { DynamoFactStore } from '../adapters/dynamo/fact-store';
import { dynamoFollowUpStore } from '../adapters/dynamo/followup-store';
import { dynamoInstructionsStore } from '../adapters/dynamo/instructions-store';
import { dynamoIntentStore } from '../adapters/dynamo/intent-store';
import { dynamoLiveConnections } from '../adapters/dynamo/live-connection-store';
import { dynamoMediaStore } from '../adapters/dynamo/media-store';
import { dynamoNotificationChoicesStore } from '../adapters/dynamo/notification-choices-store';
import { dynamoRunStore } from '../adapters/dynamo/run-store';
import { dynamoTurnStore } from '../adapters/dynamo/turn-store';
import { timersFromConfig } from '../adapters/lazy-scheduler';
import { liveActionStore, liveConversationStore } from '../adapters/live-publishing-stores';
import { httpMediaFetcher } from '../adapters/media-http';
import { meteredActions, meteredLedger, meteredRuns, meteredTurns, runMeter } from '../adapters/metered';
import { powertoolsMetrics, recordingMetrics } from '../adapters/powertools-metrics';
import { sqsDeadLetterSink } from '../adapters/sqs-dead-letter';
import { makeSqsClient, sqsEventQueue } from '../adapters/sqs-event-queue';
import { type Config, loadConfig } from '../config';
import { makeLogger } from '../logger';
import { type LiveUpdates, noLiveUpdates } from '../ports/live-updates';
import type { Metrics } from '../ports/metrics';

/**
 * Environment → config → adapters, once per cold start. Handlers call `getCore()` (and the worker its
 * richer graph) at module scope; nothing else in the code base reads process.env.
 */
export function buildCore(config: Config, serviceName: string) {
  const log = makeLogger(serviceName, config.LOG_LEVEL);
  const dynamo = makeDynamoClients({ region: config.AWS_REGION, endpoint: config.DYNAMODB_ENDPOINT });
  const table = { doc: dynamo.doc, tableName: config.TABLE_NAME };
  const sqs = makeSqsClient({ region: config.AWS_REGION, endpoint: config.SQS_ENDPOINT });
  const clock = () => new Date();
  const metrics = metricsFor(config);
  const runMetrics = runMeter(metrics, clock);
  const liveConnections = dynamoLiveConnections(table, clock);
  const live: LiveUpdates = config.LIVE_ENDPOINT
    ? apiGatewayLiveUpdates({
        endpoint: config.LIVE_ENDPOINT,
        region: config.AWS_REGION,
        connections: liveConnections,
        log,
        clock,
      })
    : noLiveUpdates;
  const media = dynamoMediaStore(table);
  return {
    config,
    log,
    clock,
    /** The few numbers on the dashboard (ports/metrics.ts); handlers flush them once per invocation. */
    metrics,
    dynamo,
    table,
    sqs,
    queue: sqsEventQueue(sqs, config.EVENTS_QUEUE_URL),
    deadLetters: config.DLQ_URL ? sqsDeadLetterSink(sqs, config.DLQ_URL) : undefined,
    ledger: meteredLedger(dynamoEventLedger(table), metrics),
    cooldowns: dynamoCooldownStore(table),
    /** Open apps are told about every conversation and card change (issue 19; best-effort, never throws). */
    live,
    liveConnections,
    conversations: liveConversationStore(dynamoConversationStore(table), live),
    actions: meteredActions(liveActionStore(dynamoActionStore(table), live), metrics),
    intents: dynamoIntentStore(table),
    runs: meteredRuns(dynamoRunStore(table), runMetrics),
    /** A turn's one partition read and one-transaction commit (issue 14's six-request budget). */
    turns: meteredTurns(dynamoTurnStore(table), metrics, runMetrics),
    audit: dynamoAuditLog(table, clock),
    instructions: dynamoInstructionsStore(table),
    /** Scheduled conditional texts and reminders (follow #20). */
    followups: dynamoFollowUpStore(table),
    /** Phone calls as their Quo events build them up (follow #20). */
    calls: dynamoCallStore(table),
    /** What pushes each person wants (issue 19): read by the sender, written by the person's settings. */
    notificationChoices: dynamoNotificationChoicesStore(table),
    /** Fact partitions outside the agent's turn: the team's preferences and assignments (follow #20). */
    facts: new DynamoFactStore(table),
    /** Inbound photos: where each really is (server-side only), and the proxy's fetch by our id. */
    media,
    mediaFetcher: httpMediaFetcher({
      store: media,
      openPhoneBase: config.OPENPHONE_API_BASE,
      ...(config.OPENPHONE_API_KEY ? { openPhoneKey: config.OPENPHONE_API_KEY } : {}),
    }),
    /** Card expiry and urgent re-notification on EventBridge Scheduler (off when no target is named). */
    cardTimers: {
      timers: timersFromConfig(config, clock),
      expiryMinutes: config.CARD_EXPIRY_MINUTES,
      renotifyMinutes: config.URGENT_RENOTIFY_MINUTES,
      teamDelayMinutes: config.APPROVAL_TEAM_DELAY_MINUTES,
    },
  };
}
export type Core = ReturnType<typeof buildCore>;

/** EMF on AWS (CloudWatch reads the log lines); in memory elsewhere, so local logs stay readable. */
function metricsFor(config: Config): Metrics {
  return config.STAGE === 'aws'
    ? powertoolsMetrics({ namespace: config.METRICS_NAMESPACE })
    : recordingMetrics();
}

const cache = new Map<string, { core: Promise<Core>; settings: string; checkedAt: number }>();
let settingsSource: SettingsSource | undefined;

/** Environment with the deployed facts and secrets merged in; plain environment off AWS. */
async function resolveSettings(env: Record<string, string | undefined>) {
  if (!env.SECRETS_ARN && !env.SECRETS_ARNS && !env.PUBLIC_BASE_URL_PARAMETER)
    return { env, fetchSecret: undefined };
  settingsSource ??= awsSettingsSource();
  const source = settingsSource;
  return { env: await resolveDeployedEnv(env, source), fetchSecret: (arn: string) => source.secret(arn) };
}

/**
 * The composed core for a runtime, built once per cold start and re-checked every SETTINGS_TTL_SECONDS: a
 * secret filled in after the first deploy reaches warm functions (the core is rebuilt only when the settings
 * changed), and a failed load is dropped, not cached, so the next invocation tries again.
 */
export function getCore(
  serviceName: string,
  env: Record<string, string | undefined> = process.env,
): Promise<Core> {
  const entry = cache.get(serviceName);
  const now = Date.now();
  if (entry && now - entry.checkedAt < SETTINGS_TTL_SECONDS * 1000) return entry.core;
  const next = (async () => {
    const resolved = await resolveSettings(env);
    const config = await loadConfig(resolved.env, resolved.fetchSecret);
    const settings = JSON.stringify(config);
    if (entry && entry.settings === settings) {
      cache.set(serviceName, { ...entry, checkedAt: now });
      return entry.core;
    }
    const core = buildCore(config, serviceName);
    cache.set(serviceName, { core: Promise.resolve(core), settings, checkedAt: now });
    return core;
  })();
  // Concurrent callers share this attempt; a failure leaves the previous core (if any) or nothing cached.
  cache.set(serviceName, { core: next, settings: entry?.settings ?? '', checkedAt: now });
  next.catch(() => {
    if (entry) cache.set(serviceName, entry);
    else cache.delete(serviceName);
  });
  return next;
}

/** Tests and the local stack rebuild the graph after changing the environment (as a new container would). */
export function resetComposition() {
  cache.clear();
  settingsSource = undefined;
}
