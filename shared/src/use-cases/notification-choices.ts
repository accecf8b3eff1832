import type { z } from 'zod';
import {
  DEFAULT_NOTIFICATION_CHOICES,
  type NotificationChoices,
  type saveNotificationChoicesRequest,
} from '../contracts/notification-choices';
import type { NotificationChoicesStore } from '../ports/notification-choices';

export interface NotificationChoicesDeps {
  notificationChoices: NotificationChoicesStore;
  clock: () => Date;
}

/** A person's choices as the sender applies them: theirs once saved, the defaults before. */
export async function readNotificationChoices(
  deps: NotificationChoicesDeps,
  userId: string,
): Promise<{ choices: NotificationChoices; saved: boolean }> {
  const stored = await deps.notificationChoices.get(userId);
  return stored ? { choices: stored, saved: true } : { choices: DEFAULT_NOTIFICATION_CHOICES, saved: false };
}

/**
 * Saves a person's own choices (the session's user is the subject: no one sets another's). The whole set is
 * replaced; quiet hours absent or null means none. Every device of theirs follows from the next push on.
 */
export async function saveNotificationChoices(
  deps: NotificationChoicesDeps,
  input: { userId: string; by: string; choices: z.infer<typeof saveNotificationChoicesRequest> },
): Promise<{ choices: NotificationChoices; saved: true }> {
  const { quietHours, ...rest } = input.choices;
  const choices: NotificationChoices = { ...rest, ...(quietHours ? { quietHours } : {}) };
  await deps.notificationChoices.put(input.userId, choices, { by: input.by, at: deps.clock().toISOString() });
  return { choices, saved: true };
}
