import type { Context } from 'aws-lambda';
import { getAlarmPushDeps } from '../shared/src/composition/alarm-push';
import { snsLambdaEvent } from '../shared/src/contracts/cloudwatch-alarm';
import { AppError, describeZodIssues } from '../shared/src/errors';
import { type NotifyAdminsResult, notifyAdminsOfAlarm } from '../shared/src/use-cases/notify-admins-of-alarm';

/**
 * SNS (the alarm topic) → a push to the admins' devices. Nothing here throws for a bad message or a push that
 * did not go out: SNS would invoke again and the admins who did get it would get it twice, while the e-mail
 * subscription on the same topic already carries the alarm. Configuration errors do throw, so this
 * function's own error alarm (which also e-mails) says push is broken.
 */
export const handler = async (
  event: unknown,
  context?: Context,
): Promise<{ results: NotifyAdminsResult[]; refused: number }> => {
  const { core, deps } = await getAlarmPushDeps();
  if (context) core.log.addContext(context);
  const parsed = snsLambdaEvent.safeParse(event);
  if (!parsed.success) {
    core.log.error('alarm_push.refused', { reason: describeZodIssues(parsed.error.issues) });
    return { results: [], refused: 1 };
  }
  const results: NotifyAdminsResult[] = [];
  let refused = 0;
  try {
    for (const record of parsed.data.Records) {
      try {
        results.push(await notifyAdminsOfAlarm(deps(), record.Sns.Message));
      } catch (e) {
        if (!(e instanceof AppError) || e.status >= 500) throw e;
        refused++;
        core.log.error('alarm_push.refused', { messageId: record.Sns.MessageId, reason: e.message });
      }
    }
  } finally {
    core.metrics.flush();
  }
  return { results, refused };
};
