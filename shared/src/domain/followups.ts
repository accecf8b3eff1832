import { DateTime } from 'luxon';
import type { FollowUpCondition } from '../contracts/followups';

/** "Tue 25 Nov, 9:00" in the team's zone: how a card and the conversation list say when. */
export function whenText(at: string, timezone: string): string {
  const dt = DateTime.fromISO(at, { setZone: true }).setZone(timezone);
  return dt.isValid ? dt.toFormat('ccc d LLL, H:mm') : at;
}

/** The condition in words, as the card shows it and the approval binds it. */
export function conditionText(c: FollowUpCondition | undefined, timezone: string): string {
  if (!c) return 'no condition: it is sent at that time';
  switch (c.kind) {
    case 'no_reply':
      return `only if ${c.name ?? c.from} has not replied since ${whenText(c.since, timezone)}`;
    case 'no_mention':
      return `only if no message mentions “${c.word}” since ${whenText(c.since, timezone)}`;
    case 'task_open':
      return `only if the task ${c.name ? `“${c.name}”` : c.taskId} is still open`;
    case 'event_unconfirmed':
      return `only if the event ${c.name ? `“${c.name}”` : c.eventId} is not confirmed`;
  }
}
