import type { BrowserPushSubscription, SubscribePushResponse } from '../contracts/push';
import type { PushSubscriptionStore } from '../ports/push';

/**
 * Subscribe a device to push: store the browser's subscription for the signed-in member.
 *
 * Primary course:
 * 1. The API has validated the browser's `PushSubscription.toJSON()` with its contract.
 * 2. The store keys it by endpoint, so re-subscribing the same device updates its keys, owner and user
 *    agent and keeps its creation time (a shared tablet follows whoever turned push on last).
 * 3. The answer describes the device without its keys: they are secrets for the push service only.
 */

export {
  type PushDevice,
  pushDevice,
  type SubscribePushResponse,
  subscribePushResponse,
} from '../contracts/push';

export interface SubscribePushDeps {
  subscriptions: Pick<PushSubscriptionStore, 'put'>;
}

export interface SubscribePushInput {
  userId: string;
  subscription: BrowserPushSubscription;
  userAgent: string;
  /** The member is an admin (the session says so): the device also receives alarm pushes. */
  admin?: boolean;
  /** From the session: a notification's Approve / Deny is recorded as this person (cards #18). */
  email?: string;
  name?: string;
}

/** The store's contract allows 512 characters; a long user agent is informative only, so it is cut, not refused. */
const USER_AGENT_MAX = 512;

export async function subscribePush(
  deps: SubscribePushDeps,
  input: SubscribePushInput,
): Promise<SubscribePushResponse> {
  const stored = await deps.subscriptions.put({
    subscription: input.subscription,
    userId: input.userId,
    userAgent: input.userAgent.slice(0, USER_AGENT_MAX),
    admin: input.admin === true,
    ...(input.email ? { email: input.email } : {}),
    ...(input.name ? { name: input.name } : {}),
  });
  return {
    device: {
      endpoint: stored.endpoint,
      userAgent: stored.userAgent,
      createdAt: stored.createdAt,
      updatedAt: stored.updatedAt,
    },
  };
}
