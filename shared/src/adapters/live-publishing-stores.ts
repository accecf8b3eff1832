import type { ActionStore } from '../ports/action-store';
import type { ConversationStore } from '../ports/conversation-store';
import type { LiveUpdates } from '../ports/live-updates';

/**
 * The conversation and card stores, telling open apps about every change they write. Publishing at the
 * store keeps every writer (worker turns, approvals, chat, timers, and whatever later issues add) live
 * without each use case remembering to; the hint is sent after the write succeeded, so an app that
 * refetches on it reads the new state. `publish` never throws (the port's contract).
 */
export function liveConversationStore(inner: ConversationStore, live: LiveUpdates): ConversationStore {
  return {
    ...inner,
    async create(c) {
      await inner.create(c);
      await live.publish({ type: 'conversation.changed', conversationId: c.id });
    },
    async appendMessage(m) {
      await inner.appendMessage(m);
      await live.publish({ type: 'message.created', conversationId: m.conversationId, messageId: m.id });
    },
    async setInboxFields(conversationId, patch) {
      await inner.setInboxFields(conversationId, patch);
      await live.publish({ type: 'conversation.changed', conversationId });
    },
    async adjustPending(conversationId, delta) {
      await inner.adjustPending(conversationId, delta);
      await live.publish({ type: 'conversation.changed', conversationId });
    },
  };
}

export function liveActionStore(inner: ActionStore, live: LiveUpdates): ActionStore {
  return {
    ...inner,
    async create(a) {
      await inner.create(a);
      await live.publish({
        type: 'card.changed',
        conversationId: a.conversationId,
        actionId: a.id,
        status: a.status,
      });
    },
    async transition(conversationId, actionId, from, to, patch) {
      const moved = await inner.transition(conversationId, actionId, from, to, patch);
      // PENDING → PENDING is a change to a waiting card (a claim), never a new card to announce.
      const update = from.length === 1 && from[0] === to;
      if (moved)
        await live.publish({
          type: 'card.changed',
          conversationId,
          actionId,
          status: moved.status,
          ...(update ? { update } : {}),
        });
      return moved;
    },
  };
}
