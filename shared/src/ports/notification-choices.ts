import type { NotificationChoices } from '../contracts/notification-choices';

/** People's notification choices (issue 19), one record per person. */
export interface NotificationChoicesStore {
  get(userId: string): Promise<NotificationChoices | undefined>;
  put(userId: string, choices: NotificationChoices, meta: { by: string; at: string }): Promise<void>;
  /** Everyone's, by user id: the sender reads them once per push (one request for the whole team). */
  all(): Promise<Map<string, NotificationChoices>>;
}
