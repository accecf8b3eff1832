import type { FollowUpCondition } from '../../../../shared/src/contracts/followups';

/** "Wed 25 Nov, 9:00" in the device's zone (the team's, for a local property manager). */
export function when(at: string): string {
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return at;
  return d.toLocaleString(undefined, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: 'numeric',
    minute: '2-digit',
  });
}

/** The condition as the card and the list say it: what must still be true for it to be sent. */
export function onlyIf(c: FollowUpCondition | undefined): string {
  if (!c) return 'Always (no condition)';
  switch (c.kind) {
    case 'no_reply':
      return `${c.name ?? c.from} has not replied since ${when(c.since)}`;
    case 'no_mention':
      return `no message mentions “${c.word}” since ${when(c.since)}`;
    case 'task_open':
      return `the task “${c.name ?? c.taskId}” is still open`;
    case 'event_unconfirmed':
      return `the event “${c.name ?? c.eventId}” is not confirmed`;
  }
}
