import type { Conversation } from '../contracts/conversations';
import type { EventOf } from '../contracts/events';
import { NotFoundError } from '../errors';
import { newId } from '../ids';
import type { AuditLog } from '../ports/audit-log';
import type { ConversationStore } from '../ports/conversation-store';
import type { EventQueue } from '../ports/event-queue';
import type { FactStore } from '../ports/fact-store';
import { personalFrom, teamPreferenceFacts } from './preferences';

export interface PostChatDeps {
  conversations: ConversationStore;
  audit: AuditLog;
  queue: EventQueue;
  clock: () => Date;
  /** The team partition, for the person's own zone and event length (follow #20); absent → the team's. */
  facts?: FactStore;
}

export interface PostChatInput {
  /** Omitted to start a new conversation. */
  conversationId?: string;
  text: string;
  user: { id: string; email: string; name?: string };
  /**
   * Deliver the queued copy this much later (issue 19): the streaming function runs the turn itself, and
   * the copy is only its backstop — a turn already processed meets the event ledger and is a duplicate.
   */
  queueDelaySeconds?: number;
}

/**
 * A team member's chat turn: store it (creating the conversation on the first turn) and enqueue a
 * `chat.message` for the worker; the API then streams the run's progress back from the store.
 */
export async function postChatMessage(
  deps: PostChatDeps,
  input: PostChatInput,
): Promise<{ conversation: Conversation; messageId: string; event: EventOf<'chat.message'> }> {
  const at = deps.clock().toISOString();
  let conversation: Conversation | undefined;
  if (input.conversationId) {
    conversation = await deps.conversations.get(input.conversationId);
    if (!conversation) throw new NotFoundError(`No conversation ${input.conversationId}`);
  } else {
    conversation = {
      id: newId('c_'),
      title: input.text.slice(0, 60),
      source: 'chat',
      preview: input.text.slice(0, 160),
      createdAt: at,
      updatedAt: at,
      lastMessageAt: at,
      createdBy: input.user.id,
      pendingCount: 0,
      readBy: {},
    };
    await deps.conversations.create(conversation);
  }
  const messageId = newId('m_');
  await deps.conversations.appendMessage({
    id: messageId,
    conversationId: conversation.id,
    role: 'user',
    text: input.text,
    createdAt: at,
    channel: 'web',
    author: { kind: 'user', name: input.user.name ?? input.user.email, id: input.user.id },
  });
  await deps.audit.append({
    conversationId: conversation.id,
    type: 'message.in',
    actor: input.user.email,
    at,
    data: { messageId, channel: 'web' },
  });
  const event: EventOf<'chat.message'> = {
    id: newId('ev_'),
    type: 'chat.message',
    correlationId: `conv:${conversation.id}`,
    key: `conv:${conversation.id}`,
    occurredAt: at,
    payload: {
      conversationId: conversation.id,
      messageId,
      text: input.text,
      user: { ...input.user, ...(await planningPreferences(deps, input.user.id)) },
    },
  };
  await deps.queue.send(
    event,
    input.queueDelaySeconds ? { delaySeconds: input.queueDelaySeconds } : undefined,
  );
  return { conversation, messageId, event };
}

/**
 * The person's zone and default event length, put on the event so the worker's turn plans in them (both
 * planners; Claude mode's turn has no request to spare for them). One cached Query per API container per
 * minute; a failed read costs only the personal defaults.
 */
async function planningPreferences(deps: PostChatDeps, userId: string) {
  if (!deps.facts) return {};
  const all = await teamPreferenceFacts(deps.facts, deps.clock()).catch(() => undefined);
  const p = all ? personalFrom(all, userId) : {};
  const preferences = {
    ...(p.timezone ? { timezone: p.timezone } : {}),
    ...(p.eventMinutes ? { eventMinutes: p.eventMinutes } : {}),
  };
  return Object.keys(preferences).length ? { preferences } : {};
}
