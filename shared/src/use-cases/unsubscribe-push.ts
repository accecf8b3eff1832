import type { UnsubscribePushResponse } from '../contracts/push';
import type { PushSubscriptionStore } from '../ports/push';

/**
 * Unsubscribe a device: remove the subscription for this endpoint if the caller owns it. Removing someone
 * else's device (or one already gone) is not an error and reveals nothing: the answer is `removed: false`
 * either way, and the browser side has unsubscribed regardless.
 */

export { type UnsubscribePushResponse, unsubscribePushResponse } from '../contracts/push';

export interface UnsubscribePushDeps {
  subscriptions: Pick<PushSubscriptionStore, 'delete'>;
}

export async function unsubscribePush(
  deps: UnsubscribePushDeps,
  input: { userId: string; endpoint: string },
): Promise<UnsubscribePushResponse> {
  const removed = await deps.subscriptions.delete(input.endpoint, { userId: input.userId });
  return { removed };
}
