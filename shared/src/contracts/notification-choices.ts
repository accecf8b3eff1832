import { z } from 'zod';
import { timeZone } from './time-zone';

/**
 * What pushes a person wants (issue 19), stored server-side per person and honoured by the sender
 * (use-cases/send-notification.ts), so every device of theirs behaves the same and a phone that was off
 * cannot miss the change. Separate from follow's personal preferences (DESIGN §7: one record each).
 */
const clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day such as 22:00');

export const quietHours = z
  .object({ start: clock, end: clock, timezone: timeZone })
  .refine((q) => q.start !== q.end, 'quiet hours must start and end at different times');

export const notificationChoices = z.object({
  /** Cards waiting for a decision. */
  approvals: z.boolean(),
  /** Urgent matters (a flood, a break-in: on-call is paged); they also come through quiet hours. */
  urgent: z.boolean(),
  /** Everything else: answers to inbound messages, expired or failed cards, digests of the team's day. */
  everything: z.boolean(),
  /** Nothing but urgent matters between these times (may cross midnight: 22:00–07:00). */
  quietHours: quietHours.optional(),
});
export type NotificationChoices = z.infer<typeof notificationChoices>;
export type QuietHours = z.infer<typeof quietHours>;

/** Until a person chooses, they get what everyone got before choices existed: everything, any time. */
export const DEFAULT_NOTIFICATION_CHOICES: NotificationChoices = {
  approvals: true,
  urgent: true,
  everything: true,
};

/** PUT /api/me/notifications: the whole set (a missing quietHours, or null, means none). */
export const saveNotificationChoicesRequest = z.strictObject({
  approvals: z.boolean(),
  urgent: z.boolean(),
  everything: z.boolean(),
  quietHours: quietHours.nullable().optional(),
});

export const notificationChoicesResponse = z.object({
  choices: notificationChoices,
  /** False until the person saved once (they are getting the defaults). */
  saved: z.boolean(),
  /** Minutes an approval waits for its assignee before it goes to everyone (APPROVAL_TEAM_DELAY_MINUTES). */
  teamDelayMinutes: z.number(),
});
