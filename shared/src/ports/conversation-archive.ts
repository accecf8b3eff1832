import type { Conversation, Message } from '../contracts/conversations';

/**
 * Bounded, read-only access to stored conversations for the search tools (search_conversations,
 * search_sms_history, get_contact_sms_history). Every read has a limit, so a search never scans the table.
 */
export interface ConversationArchive {
  /** The most recently active conversations, newest first, at most `limit`. */
  recentConversations(opts: { limit: number }): Promise<Conversation[]>;
  /**
   * The latest `limit` messages of one conversation, oldest first. Tool results are left out except
   * `tool.result.to` (who a sent text went to); the tool's name, arguments and error are kept.
   */
  latestMessages(conversationId: string, opts: { limit: number }): Promise<Message[]>;
}
