import { dynamoNotificationChoicesStore } from '../adapters/dynamo/notification-choices-store';
import { meteredPush } from '../adapters/metered';
import { createWebPushSender, vapidDetailsFromConfig } from '../adapters/web-push-sender';
import { emailTriageText } from '../agent/inbound-triage';
import type { EventEnvelope } from '../contracts/events';
import { actionTokenKey } from '../domain/action-token';
import type { PushSubscriptionStore } from '../ports/push';
import type { ConsumeDeps } from '../use-cases/consume-record';
import { endDeadLettered } from '../use-cases/end-dead-lettered';
import { cachedPersonalPreferences } from '../use-cases/preferences';
import { buildAgent } from './agent';
import { type Core, getCore } from './core';
import { lazyPort } from './lazy-port';

/** The worker's graph: the core plus the agent runtime and push delivery, built once per cold start. */
export async function buildWorkerDeps(core: Core): Promise<ConsumeDeps & { core: Core }> {
  const agent = await buildAgent(core);
  const vapid = vapidDetailsFromConfig(core.config);
  // The subscription store and its contracts (~150 zod schemas) load with the first notification (issue 16).
  const subscriptions = lazyPort<PushSubscriptionStore>(async () =>
    (await import('../adapters/dynamo/push-subscription-store')).createDynamoPushSubscriptionStore({
      doc: core.dynamo.doc,
      tableName: core.config.TABLE_NAME,
    }),
  );
  return {
    ...core,
    ...agent.deps,
    core,
    cooldownSeconds: core.config.COOLDOWN_SECONDS,
    isUrgent: async (event) => {
      const text = urgencyText(event);
      if (!text || !agent.deps.triage) return false;
      return (
        (await agent.deps.triage.classify(text, core.config.URGENT_KEYWORDS)).triageClass === 'emergency'
      );
    },
    maxReceiveCount: core.config.EVENTS_MAX_RECEIVE_COUNT,
    onDeadLetter: (event, reason) => endDeadLettered(core, event, reason),
    ...(vapid
      ? {
          push: {
            subscriptions,
            sender: meteredPush(createWebPushSender({ vapid }), core.metrics),
            log: core.log,
            // Approve / Deny on the notification (cards #18): each device gets a token for its owner.
            actionTokenKey: actionTokenKey(vapid.privateKey),
            // Each person's choices and quiet hours (issue 19).
            choices: dynamoNotificationChoicesStore(core.table),
            // Quiet hours in each person's own zone (follow's preference; one cached read per minute).
            personalZone: async (userId: string) =>
              (await cachedPersonalPreferences({ facts: core.facts, clock: core.clock })(userId)).timezone,
            countPendingApprovals: async () => {
              const n = (await core.conversations.list({ limit: 100 })).reduce(
                (n, c) => n + c.pendingCount,
                0,
              );
              // Already read for the badge, so the dashboard's pending-approvals level costs no request.
              core.metrics.count('PendingApprovals', n);
              return n;
            },
          },
        }
      : {}),
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
