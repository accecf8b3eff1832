import { createDynamoPushSubscriptionStore } from '../adapters/dynamo/push-subscription-store';
import { meteredPush } from '../adapters/metered';
import { createWebPushSender, vapidDetailsFromConfig } from '../adapters/web-push-sender';
import { ConfigError } from '../errors';
import type { NotifyAdminsDeps } from '../use-cases/notify-admins-of-alarm';
import { type Core, getCore } from './core';

/** Per push request; the function's timeout (infra) is 30 s. */
export const ALARM_PUSH_TIMEOUT_MS = 5_000;

/** The alarm push: the subscription store and the Web Push sender, nothing of the agent or the API. */
export function buildAlarmPushDeps(core: Core): NotifyAdminsDeps {
  const vapid = vapidDetailsFromConfig(core.config);
  // Without a key pair there is no push at all; the alarm's e-mail subscription is then the only channel.
  if (!vapid) throw new ConfigError('VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY are not set: no alarm push');
  return {
    subscriptions: createDynamoPushSubscriptionStore({
      doc: core.dynamo.doc,
      tableName: core.config.TABLE_NAME,
    }),
    // Bounded well inside the function's 30 s: 3 attempts of at most 5 s plus short waits. Past it, Lambda
    // would time out and SNS's retry would push the same alarm to every admin again.
    sender: meteredPush(createWebPushSender({ vapid, timeoutMs: ALARM_PUSH_TIMEOUT_MS }), core.metrics),
    retry: { retries: 2, minTimeoutMs: 500, maxTimeoutMs: 2_000, maxRetryAfterMs: 3_000 },
    log: core.log,
  };
}

export interface AlarmPushRuntime {
  core: Core;
  /** Throws a ConfigError while push is not configured; the handler logs it with the core's logger. */
  deps(): NotifyAdminsDeps;
}

let cached: { core: Promise<Core>; runtime: Promise<AlarmPushRuntime> } | undefined;

/** Built once per cold start (and again when the core is rebuilt because a secret changed). */
export function getAlarmPushDeps(): Promise<AlarmPushRuntime> {
  const core = getCore('alarm-push');
  if (cached?.core !== core) {
    cached = {
      core,
      runtime: core.then((c) => {
        let deps: NotifyAdminsDeps | undefined;
        return { core: c, deps: () => (deps ??= buildAlarmPushDeps(c)) };
      }),
    };
  }
  return cached.runtime;
}
