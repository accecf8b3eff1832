import type { TestNotificationResponse } from '../contracts/push';
import type { ConversationStore } from '../ports/conversation-store';
import type { SendNotificationInput, SendNotificationResult } from './send-notification';

/**
 * "Send me a test notification": a push to the caller's own devices only, through the same use case (and
 * so the same payload, TTL, urgency, Topic, retries and 404/410 cleanup) as the real ones.
 *
 * Primary course:
 * 1. Pick where a tap lands: the newest conversation (a notification always deep-links to `/chat?id=…`,
 *    and a real conversation beats a "does not exist" screen); a fixed id when the inbox is empty.
 * 2. Send it as an alert (auto-dismisses, normal urgency) to the caller's devices (`userId`).
 * 3. Answer with the counts, so the PWA can say "sent to 2 devices" or "1 device did not accept it".
 */

export { type TestNotificationResponse, testNotificationResponse } from '../contracts/push';

/** Where a test notification points when there is no conversation yet. */
export const TEST_CONVERSATION_ID = 'push-test';

export interface SendTestNotificationDeps {
  /** sendNotification with its dependencies bound (passed in, so this module stays free of Node imports). */
  send: (input: SendNotificationInput) => Promise<SendNotificationResult>;
  conversations: Pick<ConversationStore, 'list'>;
}

export async function sendTestNotification(
  deps: SendTestNotificationDeps,
  input: { userId: string; name?: string },
): Promise<TestNotificationResponse> {
  const [latest] = await deps.conversations.list({ limit: 1 });
  const conversationId = latest?.id ?? TEST_CONVERSATION_ID;
  const greeting = input.name ? `${input.name.split(' ')[0]}, notifications` : 'Notifications';
  const result = await deps.send({
    kind: 'alert',
    conversationId,
    title: 'Switchboard test notification',
    body: latest
      ? `${greeting} work on this device. Tap to open the latest conversation.`
      : `${greeting} work on this device.`,
    userId: input.userId,
  });
  return {
    subscriptions: result.subscriptions,
    delivered: result.delivered,
    removed: result.removed,
    failed: result.failed,
    conversationId,
  };
}
