import type { Config } from '../config';
import type { Timers } from '../ports/timers';

/**
 * Timers on EventBridge Scheduler, with the Scheduler SDK client loaded on the first schedule instead of at
 * init (issue 16): most invocations of every function never set a timer, and with code splitting the
 * `import()` below is a chunk, so `@aws-sdk/client-scheduler` is not loaded at cold start. Off (undefined)
 * unless the deployment names the target queue's ARN and the role (the CDK app and npm start do).
 */
export function timersFromConfig(config: Config, clock: () => Date): Timers | undefined {
  if (!config.EVENTS_QUEUE_ARN || !config.SCHEDULER_ROLE_ARN) return undefined;
  const queueArn = config.EVENTS_QUEUE_ARN;
  const roleArn = config.SCHEDULER_ROLE_ARN;
  let loaded: Promise<Timers> | undefined;
  const timers = () => {
    loaded ??= import('./eventbridge-scheduler').then((m) =>
      m.eventBridgeTimers(
        m.makeSchedulerClient({ region: config.AWS_REGION, endpoint: config.SCHEDULER_ENDPOINT }),
        { groupName: config.SCHEDULE_GROUP_NAME, queueArn, roleArn, clock },
      ),
    );
    // A failed load is not kept: the next schedule tries again.
    loaded.catch(() => {
      loaded = undefined;
    });
    return loaded;
  };
  // Every method of the port, present or added later, waits for the client and then runs.
  return new Proxy({} as Timers, {
    get:
      (_t, method) =>
      async (...args: unknown[]) => {
        const t = (await timers()) as unknown as Record<PropertyKey, (...a: unknown[]) => unknown>;
        return t[method]?.(...args);
      },
  });
}
