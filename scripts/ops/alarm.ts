import { createDynamoPushSubscriptionStore } from '../../shared/src/adapters/dynamo/push-subscription-store';
import { createWebPushSender, vapidDetailsFromConfig } from '../../shared/src/adapters/web-push-sender';
import type { PushLog } from '../../shared/src/ports/push';
import {
  type NotifyAdminsResult,
  notifyAdminsOfAlarm,
} from '../../shared/src/use-cases/notify-admins-of-alarm';
import type { OpsContext } from './context';
import { OpsUsageError } from './errors';

/** The alarm name `alarm:test` uses: clearly a test, never one of the deployment's real alarms. */
export const TEST_ALARM_NAME = 'Switchboard-AlarmPushTest';

const quiet: PushLog = { info() {}, warn() {}, error() {} };

/**
 * A CloudWatch-shaped ALARM (or OK) notification through the alarm function's own use case, so an operator
 * sees that the admins' devices get alarms without breaking anything. On AWS, the whole path (CloudWatch → SNS
 * → the function) is exercised with `aws cloudwatch set-alarm-state` instead.
 */
export async function testAlarmPush(ctx: OpsContext, state: 'ALARM' | 'OK'): Promise<NotifyAdminsResult> {
  const vapid = vapidDetailsFromConfig({
    VAPID_PUBLIC_KEY: ctx.env.VAPID_PUBLIC_KEY,
    VAPID_PRIVATE_KEY: ctx.env.VAPID_PRIVATE_KEY,
    VAPID_SUBJECT: ctx.env.VAPID_SUBJECT,
  });
  if (!vapid)
    throw new OpsUsageError('alarm:test needs VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY (npm run vapid:keys)');
  const message = {
    AlarmName: TEST_ALARM_NAME,
    AlarmDescription: 'A test from npm run ops -- alarm:test: nothing is wrong.',
    NewStateValue: state,
    OldStateValue: state === 'ALARM' ? 'OK' : 'ALARM',
    NewStateReason: state === 'ALARM' ? 'Set by an operator to test the alarm push.' : '',
    StateChangeTime: ctx.clock().toISOString().replace('Z', '+0000'),
  };
  return notifyAdminsOfAlarm(
    {
      subscriptions: createDynamoPushSubscriptionStore({
        doc: ctx.table.doc,
        tableName: ctx.table.tableName,
      }),
      sender: createWebPushSender({ vapid }),
      log: quiet,
      now: ctx.clock,
    },
    JSON.stringify(message),
  );
}

export function formatAlarmTest(r: NotifyAdminsResult): string {
  if (r.subscriptions === 0)
    return `${r.state} ${r.alarm}: no admin device is subscribed. An admin turns notifications on in the app (Settings); a device subscribed before alarm pushes existed turns them off and on once.`;
  return `${r.state} ${r.alarm}: ${r.subscriptions} admin device(s) — ${r.delivered} delivered, ${r.removed} removed (gone), ${r.failed} failed`;
}
