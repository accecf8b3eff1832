import { type CloudWatchAlarmMessage, cloudWatchAlarmMessage } from '../contracts/cloudwatch-alarm';
import { type PushNotificationPayload, pushNotificationPayload } from '../contracts/push';
import { describeZodIssues, ValidationError } from '../errors';
import type { PushLog, PushSender, PushSendOptions, PushSubscriptionStore } from '../ports/push';
import {
  conversationTopic,
  DEFAULT_RETRY_POLICY,
  deliverToOne,
  MAX_PAYLOAD_BYTES,
  type RetryPolicy,
} from './send-notification';

/**
 * Tell the admins' devices that an alarm fired or cleared (issue 15: "the admins get a push").
 *
 * Primary course:
 * 1. Parse the CloudWatch alarm notification SNS delivered (a JSON string; shape in contracts/cloudwatch-alarm.ts).
 * 2. ALARM → a push that stays on screen, urgent, held by the push service for 6 hours; OK → a quieter
 *    "resolved" push with the same Topic and tag, so it replaces the alarm where it was not yet shown or read.
 *    INSUFFICIENT_DATA is not pushed (our alarms treat missing data as not breaching; nobody can act on it).
 * 3. Send to every active subscription whose owner was an admin when subscribing, with the same retries and
 *    removal of dead devices as every other push (send-notification's deliverToOne).
 * The click opens /admin: an alarm is about the deployment, not a conversation. The text names the alarm
 * and its description, which says which `npm run ops` command answers the next question — never customer data.
 *
 * Alternate course: a message that is not an alarm notification is a ValidationError (the handler logs it and
 * does not retry: a retry would read the same text).
 */

export interface NotifyAdminsDeps {
  subscriptions: PushSubscriptionStore;
  sender: PushSender;
  log: PushLog;
  retry?: Partial<RetryPolicy>;
  now?: () => Date;
}

export interface NotifyAdminsResult {
  alarm: string;
  state: CloudWatchAlarmMessage['NewStateValue'];
  /** Admin devices found (0 when no admin has turned notifications on: the e-mail subscription still has it). */
  subscriptions: number;
  delivered: number;
  removed: number;
  failed: number;
}

/** Where an alarm push opens: the admin screen (same-origin path, as the service worker requires). */
export const ALARM_URL = '/admin';

const DELIVERY: Record<'ALARM' | 'OK', PushSendOptions & { requireInteraction: boolean }> = {
  ALARM: { ttlSeconds: 6 * 3600, urgency: 'high', requireInteraction: true },
  OK: { ttlSeconds: 3600, urgency: 'normal', requireInteraction: false },
};

export function parseAlarmMessage(text: string): CloudWatchAlarmMessage {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ValidationError('Alarm notification: the SNS message is not JSON');
  }
  const parsed = cloudWatchAlarmMessage.safeParse(json);
  if (!parsed.success) {
    throw new ValidationError(`Alarm notification: ${describeZodIssues(parsed.error.issues)}`);
  }
  return parsed.data;
}

export async function notifyAdminsOfAlarm(
  deps: NotifyAdminsDeps,
  messageText: string,
): Promise<NotifyAdminsResult> {
  const alarm = parseAlarmMessage(messageText);
  const state = alarm.NewStateValue;
  const result: NotifyAdminsResult = {
    alarm: alarm.AlarmName,
    state,
    subscriptions: 0,
    delivered: 0,
    removed: 0,
    failed: 0,
  };
  if (state === 'INSUFFICIENT_DATA') {
    deps.log.info('alarm push skipped: insufficient data is not news', { alarm: alarm.AlarmName });
    return result;
  }
  const delivery = DELIVERY[state];
  const payload = alarmPayload(alarm, state, (deps.now ?? (() => new Date()))());
  const topic = payload.tag;
  const admins = (await deps.subscriptions.listActive()).filter((s) => s.admin === true);
  result.subscriptions = admins.length;
  const fields = { alarm: alarm.AlarmName, state, topic };
  if (admins.length === 0) {
    deps.log.warn('alarm push skipped: no admin has a subscribed device', fields);
    return result;
  }
  const retry = { ...DEFAULT_RETRY_POLICY, ...deps.retry };
  const options: PushSendOptions = { ttlSeconds: delivery.ttlSeconds, urgency: delivery.urgency, topic };
  const body = JSON.stringify(payload);
  const outcomes = await Promise.all(admins.map((s) => deliverToOne(deps, retry, s, body, options, fields)));
  for (const o of outcomes) {
    if (o.result === 'delivered') result.delivered++;
    else if (o.result === 'removed') result.removed++;
    else result.failed++;
  }
  deps.log.info('alarm push sent', { ...fields, ...result });
  return result;
}

/** The push the service worker shows; the tag/Topic is per alarm, so "resolved" replaces "alarm". */
export function alarmPayload(
  alarm: CloudWatchAlarmMessage,
  state: 'ALARM' | 'OK',
  now: Date,
): PushNotificationPayload {
  const key = `alarm:${alarm.AlarmName}`;
  const description = alarm.AlarmDescription?.trim() ?? '';
  const title = clip(state === 'ALARM' ? `Alarm: ${alarm.AlarmName}` : `Resolved: ${alarm.AlarmName}`, 120);
  const reason = state === 'ALARM' ? alarm.NewStateReason.trim() : '';
  const text = [description, reason].filter(Boolean).join('\n');
  const payload = pushNotificationPayload.parse({
    v: 1,
    kind: 'alert',
    title,
    body: clip(text, 1000),
    conversationId: key,
    url: ALARM_URL,
    tag: conversationTopic(key),
    requireInteraction: DELIVERY[state].requireInteraction,
    sentAt: now.toISOString(),
  });
  // Names and descriptions are ours and short; the reason is CloudWatch's, and bounded above.
  if (Buffer.byteLength(JSON.stringify(payload)) > MAX_PAYLOAD_BYTES) {
    return { ...payload, body: clip(description, 300) };
  }
  return payload;
}

function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}
