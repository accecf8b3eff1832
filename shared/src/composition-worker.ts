import { createDynamoPushSubscriptionStore } from './adapters/dynamo/push-subscription-store';
import { createWebPushSender, vapidDetailsFromConfig } from './adapters/web-push-sender';
import { runAgentForEvents } from './agent/handle-events';
import { emailTriageText } from './agent/inbound-triage';
import { type Core, getCore } from './composition';
import { buildAgent } from './composition-agent';
import type { EventEnvelope } from './contracts/events';
import type { ConsumeDeps } from './use-cases/consume-record';
import { endDeadLettered } from './use-cases/end-dead-lettered';
import { handleTimerFired } from './use-cases/expire-card';
import { runRetryDecision } from './use-cases/run-retry';
import { sendNotification } from './use-cases/send-notification';

/** The worker's graph: the core plus the agent runtime and push delivery, built once per cold start. */
export async function buildWorkerDeps(core: Core): Promise<ConsumeDeps & { core: Core }> {
  const agent = await buildAgent(core);
  const vapid = vapidDetailsFromConfig(core.config);
  const subscriptions = createDynamoPushSubscriptionStore({
    doc: core.dynamo.doc,
    tableName: core.config.TABLE_NAME,
  });
  const sender = vapid ? createWebPushSender({ vapid }) : undefined;
  return {
    ...core,
    core,
    cooldownSeconds: core.config.COOLDOWN_SECONDS,
    isUrgent: async (event) => {
      const text = urgencyText(event);
      if (!text || !agent.deps.triage) return false;
      return (
        (await agent.deps.triage.classify(text, core.config.URGENT_KEYWORDS)).triageClass === 'emergency'
      );
    },
    runAgent: (events) => runAgentForEvents(agent.deps, events),
    onTimer: (event) => handleTimerFired(core, event),
    maxReceiveCount: core.config.EVENTS_MAX_RECEIVE_COUNT,
    onDeadLetter: (event, reason) => endDeadLettered(core, event, reason),
    onRetryDecision: (event) =>
      runRetryDecision(
        {
          ...core,
          registry: agent.registry,
          staleExecutingMs: agent.deps.settings.staleExecutingMs,
          timezone: core.config.TEAM_TIMEZONE,
        },
        event,
      ),
    notify: async (payload) => {
      if (!sender) {
        core.log.info('push.disabled', { conversationId: payload.conversationId, kind: payload.kind });
        return;
      }
      const result = await sendNotification(
        {
          subscriptions,
          sender,
          log: core.log,
          countPendingApprovals: async () =>
            (await core.conversations.list({ limit: 100 })).reduce((n, c) => n + c.pendingCount, 0),
        },
        payload,
      );
      core.log.info('push.sent', { ...result });
    },
  };
}

/** The text triage reads for an inbound event; other events are never urgent here. */
function urgencyText(event: EventEnvelope): string | undefined {
  if (event.type === 'sms.received') return event.payload.text;
  if (event.type === 'email.received') return emailTriageText(event.payload.subject, event.payload.text);
  return undefined;
}

let cached: ReturnType<typeof buildWorkerDeps> | undefined;
export function getWorkerDeps() {
  cached ??= getCore('agent-worker').then(buildWorkerDeps);
  cached.catch(() => {
    cached = undefined;
  });
  return cached;
}
export function resetWorkerDeps() {
  cached = undefined;
}
