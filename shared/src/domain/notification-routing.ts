import type { NotificationChoices, QuietHours } from '../contracts/notification-choices';

/** What a push is about, as a person's choices see it. */
export interface PushNature {
  kind: 'approval' | 'alert';
  urgent?: boolean;
}

/**
 * Whether a person who made these choices gets this push now. An urgent matter reaches whoever chose urgent
 * (or, for an urgent card, approvals) at any hour; everything else waits out their quiet hours — it is not
 * queued for later, the app shows it when they next open it.
 */
export function wantsPush(choices: NotificationChoices, push: PushNature, now: Date): boolean {
  if (push.urgent) return choices.urgent || (push.kind === 'approval' && choices.approvals);
  if (choices.quietHours && inQuietHours(choices.quietHours, now)) return false;
  return push.kind === 'approval' ? choices.approvals : choices.everything;
}

/** `now` is inside [start, end) in the quiet hours' own zone; a range past midnight wraps. */
export function inQuietHours(q: QuietHours, now: Date): boolean {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: q.timezone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(now);
  const part = (t: string) => parts.find((p) => p.type === t)?.value ?? '00';
  const at = `${part('hour')}:${part('minute')}`;
  return q.start < q.end ? at >= q.start && at < q.end : at >= q.start || at < q.end;
}
